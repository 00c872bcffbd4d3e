"""Benchmark semantic memory: write throughput and bitemporal reads at scale.

    python bench/facts.py --versions 1000000      # full target size
    python bench/facts.py --versions 100000       # quicker

Prints:
  * assertFacts throughput through the service and through GraphQL over HTTP, batches of
    1,000 (embeddings excluded: the embedder is off for this measurement);
  * `facts` and `history` with asOf + validAt, p50/p95 through GraphQL over HTTP next to the
    same read as raw Cypher over Bolt (the floor), and their ratio, in the same run.

Bulk data is loaded straight over Bolt (UNWIND batches) into its own tenant, which is deleted
at the end unless --keep.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import random
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import uvicorn
from neo4j import GraphDatabase
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.app import create_app
from graph_memory.container import build_services, default_policy
from graph_memory.cypher import catalog
from graph_memory.db import Database
from graph_memory.domain import SERVABLE_STATUSES, Citation, FactInput, Principal, Role, ft_token
from graph_memory.services.access.keys import AuthService
from graph_memory.services.facts.writes import FactService
from graph_memory.services.store.timeline_backfill import rebuild_tenant
from graph_memory.settings import Settings

LOAD = """
UNWIND $rows AS r
CREATE (f:Fact {id: r.id, tenant: $tenant, scope: r.scope, ft_scope: r.ft_scope, ft_kind: 'fact',
  subject: r.subject, subject_name: r.subject, predicate: r.predicate, object: r.object,
  object_key: toLower(r.object), object_is_entity: false, text: r.text, caption: r.text,
  kind: 'fact', source: 'user', tier: 'user', tier_rank: 1, tier_cap: 0.95,
  status: r.status, cardinality: 'one', confidence: 0.8, version: r.version,
  recorded_at: r.recorded_at, superseded_at: r.superseded_at,
  successor_valid_from: r.successor_valid_from, superseded_by: r.superseded_by,
  supersedes: r.supersedes, valid_from: r.valid_from, activated_at: r.recorded_at,
  valid_from_stated: true, told_at: r.recorded_at,
  told_log_at: [r.recorded_at], told_log: [r.recorded_at],
  changes_at: CASE WHEN r.superseded_at IS NULL THEN [r.recorded_at]
                   ELSE [r.recorded_at, r.superseded_at] END,
  changes: CASE WHEN r.superseded_at IS NULL THEN ['activated']
                ELSE ['activated', 'superseded'] END,
  needs_verification: false,
  retrieval_count: 0})
"""
LINK = """
UNWIND $rows AS r
MATCH (new:Fact {id: r.new}), (old:Fact {id: r.old})
CREATE (new)-[:SUPERSEDES]->(old)
"""


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(p / 100 * (len(xs) - 1)))]


def fmt(xs: list[float]) -> str:
    return f"p50 {pct(xs, 50):7.2f} ms  p95 {pct(xs, 95):7.2f} ms"


def load(
    driver: Any, tenant: str, versions: int, users: int, per_slot: int
) -> list[tuple[str, str, str]]:
    """Creates `versions` fact versions in chains of `per_slot` versions per slot."""
    slots = versions // per_slot
    base = datetime(2024, 1, 1, tzinfo=UTC)
    sample: list[tuple[str, str, str]] = []
    rows: list[dict[str, Any]] = []
    links: list[dict[str, str]] = []
    bar = tqdm(total=slots * per_slot, desc="loading fact versions", unit="v")

    def flush() -> None:
        with driver.session() as s:
            s.run(LOAD, rows=rows, tenant=tenant).consume()
            if links:
                s.run(LINK, rows=links).consume()
        bar.update(len(rows))
        rows.clear()
        links.clear()

    for slot in range(slots):
        user = f"user:u{slot % users}"
        subject = f"entity {slot}"
        predicate = f"attr_{slot % 7}"
        ids = [f"fact_{uuid.uuid4().hex}" for _ in range(per_slot)]
        for v in range(per_slot):
            rec = base + timedelta(days=30 * v, seconds=slot)
            nxt = base + timedelta(days=30 * (v + 1), seconds=slot)
            last = v == per_slot - 1
            rows.append(
                {
                    "id": ids[v],
                    "scope": user,
                    "ft_scope": ft_token(tenant, user),
                    "subject": subject,
                    "predicate": predicate,
                    "object": f"value {slot}-{v}",
                    "text": f"{subject} {predicate} value {slot}-{v}",
                    "status": "active" if last else "superseded",
                    "version": v + 1,
                    "recorded_at": rec,
                    "valid_from": rec,
                    "superseded_at": None if last else nxt,
                    "successor_valid_from": None if last else nxt,
                    "superseded_by": None if last else ids[v + 1],
                    "supersedes": ids[v - 1] if v else None,
                }
            )
            if v:
                links.append({"new": ids[v], "old": ids[v - 1]})
        if slot % 997 == 0:
            sample.append((user, subject, predicate))
        if len(rows) >= 10_000:
            flush()
    if rows:
        flush()
    bar.close()
    return sample


def existing_sample(driver: Any, tenant: str) -> list[tuple[str, str, str]]:
    rows = driver.execute_query(
        "MATCH (f:Fact {tenant: $t}) WHERE f.version = 1 WITH f SKIP 0 LIMIT 2000 "
        "RETURN DISTINCT f.scope AS s, f.subject AS su, f.predicate AS p",
        {"t": tenant},
    ).records
    return [(r["s"], r["su"], r["p"]) for r in rows]


def _app_factory() -> Any:
    def factory(s: Settings) -> Any:
        services = build_services(s)
        # Writes are measured without embeddings (the issue's target excludes them).
        services.facts = FactService(services.db, None, default_policy)
        return services

    return create_app(Settings.from_env(), services_factory=factory)


def serve() -> tuple[subprocess.Popen[bytes], str]:
    """The service in its own process, as deployed: a server thread in this process would
    share the GIL with the client and the raw-Cypher side and blur both measurements."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port)])
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return proc, f"{base}/graphql"
        except httpx.TransportError:
            pass
        if proc.poll() is not None:
            raise SystemExit("the benchmark server exited during start-up")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the benchmark server did not start within 60 s")


FACTS_Q = """query($f: FactFilterInput!, $a: DateTime, $v: DateTime) {
  facts(filter: $f, asOf: $a, validAt: $v, first: 20) {
    edges { node { id object version recordedAt } } } }"""
HISTORY_Q = """query($s: String!, $p: String!, $sc: [String!]!, $a: DateTime) {
  history(subject: $s, predicate: $p, scopes: $sc, asOf: $a) { versions { id object version } } }"""


def timeline(settings: Settings, tenant: str) -> None:
    """Loaded behind the service's back: rebuild the stored timeline its writes would keep."""

    async def go() -> None:
        db = Database.connect(settings.neo4j())
        bar = tqdm(desc="timeline", unit=" slots")
        started = time.perf_counter()
        try:
            report = await rebuild_tenant(db, tenant, bar.update)
        finally:
            bar.close()
            await db.close()
        took = time.perf_counter() - started
        print(
            f"timeline rebuilt: {report.slots:,} slots, {report.segments:,} segments in "
            f"{took:.1f} s ({report.slots / max(took, 1e-9):,.0f} slots/s)"
        )

    asyncio.run(go())


def reads(
    driver: Any, url: str, key: str, tenant: str, sample: list[tuple[str, str, str]], rounds: int
) -> None:
    as_of = datetime(2024, 4, 15, tzinfo=UTC)
    valid_at = datetime(2024, 3, 1, tzinfo=UTC)
    list_q = catalog()["fact.in_force_subject"].text
    hist_q = catalog()["fact.slot_versions"].text
    http = KeepAlivePoster(url, key)
    # httpx is what the typed client uses, but it spends ~1 ms of its own per request on this
    # machine: it is timed on the side, the ratio uses the stdlib client (see KeepAlivePoster).
    httpx_client = httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30)
    timings: dict[str, list[float]] = {
        k: [] for k in ("facts_http", "facts_raw", "hist_http", "hist_raw", "facts_httpx", "empty")
    }
    picks = [random.choice(sample) for _ in range(rounds)]

    def facts_body(user: str, subject: str) -> dict[str, Any]:
        return {
            "query": FACTS_Q,
            "variables": {
                "f": {"scopes": [user], "subject": subject},
                "a": as_of.isoformat(),
                "v": valid_at.isoformat(),
            },
        }

    def raw(text: str, params: dict[str, Any]) -> None:
        # The floor: an auto-commit query, one round trip, as the service's reads do.
        with driver.session() as session:
            session.run(text, params).data()

    for user, subject, _ in picks:  # warm-up, not measured
        http.post(facts_body(user, subject))
    for user, subject, predicate in picks:
        t = time.perf_counter()
        r = http.post(facts_body(user, subject))
        timings["facts_http"].append((time.perf_counter() - t) * 1000)
        assert "errors" not in r, r
        t = time.perf_counter()
        httpx_client.post(url, json=facts_body(user, subject)).read()
        timings["facts_httpx"].append((time.perf_counter() - t) * 1000)
        # What HTTP, auth and GraphQL cost with no data to read: the service's fixed cost.
        t = time.perf_counter()
        http.post({"query": "{ __typename }"})
        timings["empty"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        raw(
            list_q,
            catalog()["fact.in_force_subject"].bind(
                {
                    "tenant": tenant,
                    "scopes": [user],
                    "subject": subject,
                    "statuses": list(SERVABLE_STATUSES),
                    "include_candidates": False,
                    "as_of": as_of,
                    "valid_at": valid_at,
                    "include_expired": False,
                    "needs_verification": None,
                    "after_recorded": None,
                    "after_id": None,
                    "limit": 21,
                }
            ),
        )
        timings["facts_raw"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        r = http.post(
            {
                "query": HISTORY_Q,
                "variables": {"s": subject, "p": predicate, "sc": [user], "a": as_of.isoformat()},
            }
        )
        assert "errors" not in r, r
        timings["hist_http"].append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        raw(
            hist_q,
            {
                "tenant": tenant,
                "scopes": [user],
                "subject": subject,
                "predicate": predicate,
                "as_of": as_of,
            },
        )
        timings["hist_raw"].append((time.perf_counter() - t) * 1000)
    for name in ("facts", "hist"):
        h, raw_ms = timings[f"{name}_http"], timings[f"{name}_raw"]
        print(
            f"{name:>7} GraphQL/HTTP {fmt(h)}   raw Cypher/Bolt {fmt(raw_ms)}   "
            f"ratio p50 {pct(h, 50) / pct(raw_ms, 50):.2f}x  "
            f"p95 {pct(h, 95) / pct(raw_ms, 95):.2f}x"
        )
    print(f"  facts GraphQL/HTTP through httpx instead: {fmt(timings['facts_httpx'])}")
    empty, floor = pct(timings["empty"], 50), pct(timings["facts_raw"], 50)
    print(
        f"  {{ __typename }} over GraphQL/HTTP (no read): {fmt(timings['empty'])}; "
        f"so facts cannot beat {(floor + empty) / floor:.2f}x at p50 here"
    )
    http.close()
    httpx_client.close()


class KeepAlivePoster:
    """POSTs GraphQL over one kept-alive HTTP/1.1 connection with the standard library.

    The raw side is the driver's cheapest path (one auto-commit round trip); the HTTP side
    gets the cheapest client too, so the ratio measures the service and not a client library.
    """

    def __init__(self, url: str, key: str) -> None:
        parts = urlsplit(url)
        self._path = parts.path
        self._conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port)
        self._headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}

    def post(self, payload: dict[str, Any]) -> dict[str, Any]:
        self._conn.request("POST", self._path, body=json.dumps(payload), headers=self._headers)
        response = self._conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"HTTP {response.status}: {body[:300]!r}")
        result: dict[str, Any] = json.loads(body)
        return result

    def close(self) -> None:
        self._conn.close()


async def writes(settings: Settings, url: str, batches: int, writers: list[int]) -> None:
    services = build_services(settings)
    service = FactService(services.db, None, default_policy)
    tenant = f"bench-w-{uuid.uuid4().hex[:6]}"
    principal = Principal(tenant=tenant, role=Role.AGENT, key_id="bench")
    ep = await services.episodes.record(principal, [_episode()])
    ep_id = ep[0][0]
    assert ep_id
    total = 0
    t = time.perf_counter()
    for b in range(batches):
        items = [
            FactInput(
                subject=f"thing {b}-{i}",
                predicate="lives_in",
                object=f"place {i}",
                citations=(Citation(ep_id),),
                source="user",
            )
            for i in range(1000)
        ]
        res = await service.assert_facts(principal, items)
        total += sum(1 for r in res if r.ok)
    dt = time.perf_counter() - t
    print(
        f"assertFacts (service, no embeddings): {total} facts in {dt:.2f} s "
        f"= {total / dt:,.0f} facts/s"
    )
    await services.close()
    write_floor(settings, tenant, batches)
    # Over HTTP, with the served app's embedder switched off for the same comparison.
    # One tenant, each writer another user: writes lock per scope (each user's facts land in
    # user:<id>), so writers of one tenant run in parallel; the ratio is against one writer.
    key = await _make_key(settings, f"bench-w-{uuid.uuid4().hex[:6]}")
    # One batch first, not counted: the served process compiles its queries and registers the
    # predicate, so the one-writer figure (every ratio's base) is not its warm-up.
    await _http_writer(url, key, 1, "warm-up")
    alone = 0.0
    for n in sorted({1, *writers}):
        t = time.perf_counter()
        totals = await asyncio.gather(
            *(_http_writer(url, key, batches, f"w{n}-{i}") for i in range(n))
        )
        dt = time.perf_counter() - t
        rate = sum(totals) / dt
        alone = alone or rate
        print(
            f"assertFacts (GraphQL/HTTP, no embeddings, one tenant, {n} writer(s) of "
            f"different users): {sum(totals)} facts in {dt:.2f} s = {rate:,.0f} facts/s "
            f"({rate / alone:.2f}x one writer)"
        )
    # Each writer its own tenant, as before the per-scope locks.
    for n in writers:
        keys = [await _make_key(settings, f"bench-w-{uuid.uuid4().hex[:6]}") for _ in range(n)]
        t = time.perf_counter()
        totals = await asyncio.gather(*(_http_writer(url, k, batches) for k in keys))
        dt = time.perf_counter() - t
        print(
            f"assertFacts (GraphQL/HTTP, no embeddings, {n} concurrent writer(s)): "
            f"{sum(totals)} facts in {dt:.2f} s = {sum(totals) / dt:,.0f} facts/s"
        )


# The same graph straight over Bolt: fact nodes with the properties the service gave them,
# their subject, evidence edge, audit event and timeline segment, one transaction per 1,000
# facts. Times cross as ISO text, as the service sends them.
FLOOR_SAMPLE = """
MATCH (f:Fact {tenant: $t})
WITH f LIMIT 1000
MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
OPTIONAL MATCH (a:AuditEvent {tenant: $t, target_id: f.id})
RETURN properties(f) AS f, properties(a) AS a, d.weight AS w, e.id AS episode
"""
FLOOR_WRITE = """
MATCH (e:Episode {id: $episode})
UNWIND $rows AS r
CREATE (f:Fact)
SET f += r.f
SET f.recorded_at = datetime(r.times.recorded_at), f.valid_from = datetime(r.times.valid_from),
    f.told_at = datetime(r.times.told_at), f.activated_at = datetime(r.times.activated_at)
MERGE (s:Entity {tenant: $t, key: r.f.subject})
ON CREATE SET s.id = r.f.id + '-s', s.name = r.f.subject, s.caption = r.f.subject
CREATE (f)-[:ABOUT]->(s)
CREATE (f)-[:DERIVED_FROM {weight: r.w, at: datetime(r.times.recorded_at)}]->(e)
CREATE (a:AuditEvent)
SET a += r.a, a.at = datetime(r.times.recorded_at)
CREATE (g:Segment {id: r.f.id + '-g', tenant: $t, scope: r.f.scope, subject: r.f.subject,
                   predicate: r.f.predicate, fact_id: r.f.id, view: 'both',
                   recorded_at: datetime(r.times.recorded_at),
                   sys_from: datetime(r.times.recorded_at),
                   valid_from: datetime(r.times.valid_from)})
CREATE (g)-[:WINS]->(f)
"""
_FLOOR_TIMES = ("recorded_at", "valid_from", "told_at", "activated_at")


def write_floor(settings: Settings, tenant: str, batches: int) -> None:
    """Neo4j's own cost of the graph one assertFacts batch leaves, without the service."""
    conn = settings.neo4j()
    with GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver:
        sample = driver.execute_query(FLOOR_SAMPLE, {"t": tenant}).records
        episode = sample[0]["episode"]
        total = 0
        elapsed = 0.0
        for b in range(batches):
            rows = []
            for i, rec in enumerate(sample):
                f = dict(rec["f"])
                times = {k: f.pop(k).isoformat() for k in _FLOOR_TIMES if f.get(k) is not None}
                f = {k: v for k, v in f.items() if not hasattr(v, "iso_format")}
                f["id"] = f"floor-{b}-{i}-{uuid.uuid4().hex[:8]}"
                f["subject"] = f"floor {b}-{i}"
                a = {k: v for k, v in dict(rec["a"] or {}).items() if k != "at"}
                a["id"] = f["id"] + "-a"
                a["target_id"] = f["id"]
                rows.append({"f": f, "a": a, "w": rec["w"], "times": times})
            params = {"t": tenant, "episode": episode, "rows": rows}

            def work(tx: Any, params: dict[str, Any] = params) -> None:
                tx.run(FLOOR_WRITE, params).consume()

            t = time.perf_counter()
            with driver.session() as session:
                session.execute_write(work)
            elapsed += time.perf_counter() - t
            total += len(rows)
    print(
        f"raw Cypher/Bolt, the same graph (the floor): {total} facts in {elapsed:.2f} s "
        f"= {total / elapsed:,.0f} facts/s"
    )


async def _http_writer(url: str, key: str, batches: int, user: str = "u0") -> int:
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120) as http:
        r = await http.post(
            url,
            json={
                "query": "mutation($e:[EpisodeInput!]!){recordEpisodes(episodes:$e){id}}",
                "variables": {"e": [_episode_gql(user)]},
            },
        )
        episode = r.json()["data"]["recordEpisodes"][0]["id"]
        total = 0
        for b in range(batches):
            facts = [
                {
                    "subject": f"other {user} {b}-{i}",
                    "predicate": "lives_in",
                    "object": f"place {i}",
                    "episodes": [{"episodeId": episode}],
                    "source": "user",
                }
                for i in range(1000)
            ]
            r = await http.post(
                url,
                json={
                    "query": "mutation($f:[FactInput!]!){assertFacts(facts:$f){accepted}}",
                    "variables": {"f": facts},
                },
            )
            total += r.json()["data"]["assertFacts"]["accepted"]
        return total


async def _make_key(settings: Settings, tenant: str) -> str:
    from graph_memory.db import Database
    from graph_memory.repositories.apikeys import ApiKeyRepository

    db = Database.connect(settings.neo4j())
    try:
        return (await AuthService(ApiKeyRepository(db)).create_key(tenant, "admin", "bench"))[1]
    finally:
        await db.close()


def _episode() -> Any:
    from graph_memory.domain import EpisodeInput, Outcome

    now = datetime.now(UTC)
    return EpisodeInput(
        user_id="u0",
        session_id="bench",
        started_at=now,
        ended_at=now,
        summary="benchmark episode with enough words to pass the gate",
        outcome=Outcome.SUCCESS,
        source="user",
    )


def _episode_gql(user: str = "u0") -> dict[str, Any]:
    now = datetime.now(UTC).isoformat()
    return {
        "userId": user,
        "sessionId": "bench",
        "startedAt": now,
        "endedAt": now,
        "summary": "benchmark episode with enough words to pass the gate",
        "outcome": "SUCCESS",
        "source": "user",
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--versions", type=int, default=100_000)
    ap.add_argument("--users", type=int, default=10_000)
    ap.add_argument("--per-slot", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--write-batches", type=int, default=10)
    ap.add_argument(
        "--writers",
        default="1,2",
        help="concurrent HTTP writers to measure (comma-separated counts): on one tenant as "
        "different users, then one tenant each",
    )
    ap.add_argument("--keep", action="store_true", help="keep the loaded tenant")
    ap.add_argument("--tenant", help="reuse a tenant loaded by an earlier --keep run")
    ap.add_argument("--skip-writes", action="store_true")
    ap.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        uvicorn.run(_app_factory(), host="127.0.0.1", port=args.serve, log_level="warning")
        return
    settings = Settings.from_env()
    conn = settings.neo4j()
    # Notifications off, as the service's own driver has them (graph_memory/db.py): the floor
    # must not pay for warnings the service never asks for.
    driver = GraphDatabase.driver(
        conn.uri, auth=(conn.user, conn.password), notifications_min_severity="OFF"
    )
    tenant = args.tenant or f"bench-{uuid.uuid4().hex[:6]}"
    key = asyncio.run(_make_key(settings, tenant))

    server, url = serve()
    try:
        if not args.skip_writes:
            asyncio.run(
                writes(
                    settings,
                    url,
                    args.write_batches,
                    [int(n) for n in args.writers.split(",")],
                )
            )
        if args.tenant:
            sample = existing_sample(driver, tenant)
        else:
            t = time.perf_counter()
            sample = load(driver, tenant, args.versions, args.users, args.per_slot)
            timeline(settings, tenant)
            print(f"loaded {args.versions:,} versions in {time.perf_counter() - t:.1f} s")
        count = driver.execute_query(
            "MATCH (f:Fact {tenant: $t}) RETURN count(f) AS n", {"t": tenant}
        ).records[0]["n"]
        print(f"tenant {tenant}: {count:,} fact versions")
        reads(driver, url, key, tenant, sample, args.rounds)
    finally:
        server.terminate()
        server.wait(timeout=30)
        if not args.keep and not args.tenant:
            with driver.session() as s:
                s.run(
                    "MATCH (n) WHERE n.tenant = $t OR n.tenant STARTS WITH 'bench-w-' "
                    "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS",
                    t=tenant,
                ).consume()
        driver.close()


if __name__ == "__main__":
    main()
