"""Benchmark right-to-be-forgotten in its two phases, per user size (facts; episodes a tenth).

    python bench/forget.py                          # 10k (3 runs) and 100k facts
    python bench/forget.py --sizes 500000 --runs 1 --no-embeddings --phase1-only

Each run loads a fresh tenant straight over Bolt (UNWIND batches, not timed): the user's
episodes and facts with 384-dim embeddings (so vector index entries are deleted too), the
audit events the write path would have left (one per episode and fact, which excision must
redact), ABOUT edges to a few hundred entities, supersession chains (every 10th fact replaced
an earlier version of its own), and a second user whose episodes also support 10% of the
facts (those survive with recomputed confidence) plus 1,000 facts of their own. Then:

* phase 1: ``ForgetService.mark`` (the transaction inside the mutation: from its commit on
  nothing of the user is answerable), and a second forget of the same user (joins the job);
* phase 2: ``ForgetService.run`` (the purge job, in batches) timed, as fact versions/s, while
  another user's fact listing runs in a loop: its p95 during the purge against its idle p95;
* the floor: a bare batched DETACH DELETE of the same nodes (versions, their timeline
  segments, episodes) on a fresh copy, and the same with the bare redaction of the audit
  events about them; the purge's ratio to each. With --loaded-floor, that floor also beside
  the other user's reads and writes, as the purge runs (on 2 cores they slow it several times).

The tenant is deleted afterwards unless --keep.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.container import build_services
from graph_memory.db import Database
from graph_memory.domain import Cardinality, Citation, FactInput, Principal, Role, ft_token
from graph_memory.embeddings import LocalEmbedder
from graph_memory.migrations import migrate
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.facts.reads import FactFilter, ReadService
from graph_memory.services.facts.writes import FactService
from graph_memory.services.forget.service import ForgetService
from graph_memory.services.store.timeline_backfill import rebuild_tenant
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings

BATCH = 2_000
DIM = 384
EMBED = True  # --no-embeddings: the largest sizes without vectors (see main)

EPISODES = """
UNWIND $rows AS r
MERGE (u:User {tenant: $tenant, id: r.user_id})
ON CREATE SET u.key = randomUUID()
CREATE (e:Episode {id: r.id, tenant: $tenant, scope: r.scope, ft_scope: r.ft_scope,
  contributor: u.key,
  user_id: r.user_id, session_id: r.session_id, started_at: r.at, ended_at: r.at,
  summary: r.text, text: r.text, caption: r.text, outcome: 'success', topics: [],
  key_entities: [], source: 'user', confidence: 0.7, recorded_at: r.at, retrieval_count: 0})
CREATE (e)-[:CONTRIBUTED_BY]->(u)
WITH e, r WHERE r.embedding IS NOT NULL
CALL db.create.setNodeVectorProperty(e, 'embedding', r.embedding)
"""
FACTS = """
UNWIND $rows AS r
MERGE (s:Entity {tenant: $tenant, key: r.subject})
ON CREATE SET s.id = r.subject_id, s.name = r.subject
CREATE (f:Fact {id: r.id, tenant: $tenant, scope: r.scope, ft_scope: r.ft_scope,
  subject: r.subject, subject_name: r.subject, predicate: r.predicate, object: r.object,
  object_key: toLower(r.object), object_is_entity: false, text: r.text, caption: r.text,
  kind: 'fact', source: 'user', tier: 'user', tier_rank: 1, tier_cap: 0.95,
  status: r.status, cardinality: 'one', confidence: 0.7, version: r.version,
  recorded_at: r.at, superseded_at: r.superseded_at, superseded_by: r.superseded_by,
  successor_valid_from: r.superseded_at, supersedes: r.supersedes, valid_from: r.at,
  valid_from_stated: false, told_at: r.at, told_log_at: [r.at], told_log: [r.at],
  needs_verification: false, retrieval_count: 0})
CREATE (f)-[:ABOUT]->(s)
WITH f, r CALL (f, r) {
  WITH f, r WHERE r.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
}
WITH f, r UNWIND r.episodes AS eid
MATCH (e:Episode {id: eid})
CREATE (f)-[:DERIVED_FROM {weight: 0.7, at: r.at}]->(e)
"""
LINKS = """
UNWIND $rows AS r
MATCH (new:Fact {id: r.new}), (old:Fact {id: r.old})
CREATE (new)-[:SUPERSEDES]->(old)
"""
AUDIT = """
UNWIND $rows AS r
CREATE (:AuditEvent {id: r.id, tenant: $tenant, at: r.at, actor: 'agent:bench',
  actor_type: 'user', action: r.action, target_type: r.target_type, target_id: r.target_id,
  before: null, after: r.after, confidence_delta: 0.7, reason: null, caption: r.action})
"""
CLEAN = """
MATCH (n) WHERE n.tenant = $tenant
WITH n LIMIT 10000
DETACH DELETE n
RETURN count(*) AS n
"""


def _vectors(n: int, rng: np.random.Generator) -> list[list[float]] | list[None]:
    if not EMBED:
        return [None] * n
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return [list(map(float, row)) for row in v]


async def _batched(db: Database, text: str, tenant: str, rows: list[dict[str, Any]]) -> None:
    for i in range(0, len(rows), BATCH):
        await db.run_raw(text, {"tenant": tenant, "rows": rows[i : i + BATCH]})


async def load(
    db: Database, tenant: str, n_facts: int, n_eps: int, rng: np.random.Generator
) -> None:
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    episodes: list[dict[str, Any]] = []
    for user, count in (("victim", n_eps), ("other", n_eps // 2)):
        scope = f"user:{user}"
        vecs = _vectors(count, rng)
        episodes += [
            {
                "id": f"ep_{uuid.uuid4().hex}",
                "user_id": user,
                "scope": scope,
                "ft_scope": ft_token(tenant, scope),
                "session_id": f"{user}-s{i}",
                "at": t0 + timedelta(hours=i),
                "embedding": vecs[i],
                "text": f"{user} session {i}: talked about account plans and preferences.",
            }
            for i in range(count)
        ]
    await _batched(db, EPISODES, tenant, episodes)
    victim = [e["id"] for e in episodes if e["user_id"] == "victim"]
    other = [e["id"] for e in episodes if e["user_id"] == "other"]

    facts: list[dict[str, Any]] = []
    links: list[dict[str, str]] = []
    for owner, count in (("victim", n_facts), ("other", 1_000)):
        vecs = _vectors(count, rng)
        for i in range(count):
            at = t0 + timedelta(minutes=i)
            cites = [victim[i % len(victim)]] if owner == "victim" else [other[i % len(other)]]
            if owner == "victim" and i % 10 == 3:
                cites.append(other[i % len(other)])  # 10% also supported by another user
            row = {
                "id": f"fact_{uuid.uuid4().hex}",
                "scope": f"user:{owner}",
                "ft_scope": ft_token(tenant, f"user:{owner}"),
                "subject": f"{owner} topic {i % 300}",
                "subject_id": uuid.uuid4().hex,
                "predicate": f"p{i // 300}",  # one slot per fact (bar the chains below)
                "object": f"value {i}",
                "status": "active",
                "version": 1,
                "at": at,
                "superseded_at": None,
                "superseded_by": None,
                "supersedes": None,
                "embedding": vecs[i],
                "episodes": cites,
                "text": f"{owner} topic {i % 300} p{i // 300} value {i}",
            }
            if i % 10 == 9 and facts and facts[-1]["scope"] == row["scope"]:
                prev = facts[-1]  # this version supersedes the previous fact
                prev.update(status="superseded", superseded_at=at, superseded_by=row["id"])
                row.update(
                    version=2,
                    supersedes=prev["id"],
                    subject=prev["subject"],
                    predicate=prev["predicate"],
                )
                links.append({"new": str(row["id"]), "old": str(prev["id"])})
            facts.append(row)
    await _batched(db, FACTS, tenant, facts)
    await _batched(db, LINKS, tenant, links)
    audit = [
        {
            "id": f"aud_{uuid.uuid4().hex}",
            "at": r["at"],
            "action": "created",
            "target_type": "fact",
            "target_id": r["id"],
            "after": r["text"],
        }
        for r in facts
    ]
    audit += [
        {
            "id": f"aud_{uuid.uuid4().hex}",
            "at": e["at"],
            "action": "record",
            "target_type": "episode",
            "target_id": e["id"],
            "after": e["text"],
        }
        for e in episodes
    ]
    await _batched(db, AUDIT, tenant, audit)


async def clean(db: Database, tenant: str) -> None:
    while (await db.run_raw(CLEAN, {"tenant": tenant}))[0]["n"]:
        pass


# The floor of phase 2: the same nodes (the victim's episodes, the fact versions only they
# support and those versions' timeline segments) deleted by a bare batched DETACH DELETE, no
# logic at all; and that delete plus the bare redaction of the audit events about them (the
# purge must blank that content too): what the data alone costs, beside what the purge adds.
FLOOR = """
MATCH (f:Fact {tenant: $tenant, scope: 'user:victim'})
WHERE NOT EXISTS { (f)-[:DERIVED_FROM]->(:Episode {user_id: 'other'}) }
CALL (f) {
  OPTIONAL MATCH (s:Segment)-[:WINS]->(f)
  RETURN collect(s) AS segments
}
UNWIND [f] + segments AS n
RETURN n
UNION ALL
MATCH (e:Episode {tenant: $tenant, user_id: 'victim'})
RETURN e AS n
"""
FLOOR_DELETE = """
MATCH (n) WHERE elementId(n) IN $ids
DETACH DELETE n
"""
FLOOR_REDACT = """
UNWIND $ids AS id
MATCH (a:AuditEvent {tenant: $tenant, target_id: id})
SET a.before = null, a.after = null, a.reason = null, a.redacted_at = datetime()
"""


async def floor(db: Database, tenant: str, batch: int, redact: bool) -> tuple[float, int]:
    """(ms, fact versions): the same nodes deleted in batches of ``batch``, no logic; with
    ``redact`` each batch also blanks the audit events about what it deletes."""
    rows = await db.run_raw(
        "CALL () { " + FLOOR + " } RETURN collect(elementId(n)) AS ids, "
        "collect(n.id) AS keys, count(CASE WHEN n:Fact THEN 1 END) AS facts",
        {"tenant": tenant},
    )
    ids, keys, facts = list(rows[0]["ids"]), list(rows[0]["keys"]), int(rows[0]["facts"])
    t = time.perf_counter()
    for i in range(0, len(ids), batch):
        if redact:
            await db.run_raw(FLOOR_REDACT, {"tenant": tenant, "ids": keys[i : i + batch]})
        await db.run_raw(FLOOR_DELETE, {"ids": ids[i : i + batch]})
    return (time.perf_counter() - t) * 1000, facts


def _pct(xs: list[float], q: float) -> float:
    return float(np.percentile(xs, q)) if xs else float("nan")


async def _reader(
    reads: ReadService, other: Principal, stop: asyncio.Event, out: list[float]
) -> None:
    """Another user's reads (their facts, newest first) in a loop, timed."""
    flt = FactFilter(scopes=("user:other",))
    while not stop.is_set():
        t = time.perf_counter()
        await reads.list_facts(other, flt, as_of=None, valid_at=None, first=20, after=None)
        out.append((time.perf_counter() - t) * 1000)
        await asyncio.sleep(0.005)


async def _writer(
    facts: FactService, other: Principal, episode: str, stop: asyncio.Event, out: list[float]
) -> None:
    """Another user's writes (a new fact in their own scope, citing their episode) in a loop,
    timed: with per-scope purge locks they do not wait for the purge's batches."""
    n = 0
    while not stop.is_set():
        n += 1
        item = FactInput(
            subject=f"other note {uuid.uuid4().hex[:8]}",
            predicate="noted",
            object=f"note {n}",
            citations=(Citation(episode),),
            scope="user:other",
            cardinality=Cardinality.MANY,
        )
        t = time.perf_counter()
        (result,) = await facts.assert_facts(other, [item])
        out.append((time.perf_counter() - t) * 1000)
        assert result.ok, result.error_message
        await asyncio.sleep(0.02)


async def _reads_for(
    reads: ReadService, facts: FactService, other: Principal, episode: str, seconds: float
) -> tuple[list[float], list[float]]:
    stop, out, wrote = asyncio.Event(), [], []  # type: ignore[var-annotated]
    tasks = [
        asyncio.create_task(_reader(reads, other, stop, out)),
        asyncio.create_task(_writer(facts, other, episode, stop, wrote)),
    ]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks)
    return out, wrote


async def one_size(
    db: Database,
    service: ForgetService,
    reads: ReadService,
    facts: FactService,
    n_facts: int,
    runs: int,
    rng: np.random.Generator,
    keep: bool,
    with_floor: bool,
    phase1_only: bool = False,
    loaded_floor: bool = False,
) -> None:
    phase1: list[float] = []
    rates: list[float] = []
    ratios: list[float] = []
    ratios_redact: list[float] = []
    for run in range(runs):
        tenant = f"forgetbench-{uuid.uuid4().hex[:8]}"
        started = time.perf_counter()
        await load(db, tenant, n_facts, max(1, n_facts // 10), rng)
        # Loaded behind the service's back: the stored timeline its writes would keep (phase 1
        # reads none of it: --phase1-only skips it, and the purge).
        if not phase1_only:
            await rebuild_tenant(db, tenant)
        loaded = time.perf_counter() - started
        admin = Principal(tenant=tenant, role=Role.ADMIN, key_id="bench", name="bench")
        other = Principal(tenant=tenant, role=Role.AGENT, key_id="bench", name="reader")
        rows = await db.run_raw(
            "MATCH (e:Episode {tenant: $t, user_id: 'other'}) RETURN e.id AS id LIMIT 1",
            {"t": tenant},
        )
        episode = str(rows[0]["id"])
        # Warm first (the embedder's first call, plans of a fresh tenant's statistics): the
        # idle figures are the steady state the purge's are compared with.
        await _reads_for(reads, facts, other, episode, 1.0)
        idle, idle_writes = await _reads_for(reads, facts, other, episode, 3.0)
        t = time.perf_counter()
        job_id = await service.mark(admin, "victim")
        phase1.append((time.perf_counter() - t) * 1000)
        # A second forget of the same user joins the running job: phase 1 again, as small.
        t = time.perf_counter()
        assert await service.mark(admin, "victim") == job_id
        phase1.append((time.perf_counter() - t) * 1000)
        if phase1_only:
            # Forgetting another user of the same tenant: a third phase 1 on the same store.
            t = time.perf_counter()
            await service.mark(admin, "other")
            phase1.append((time.perf_counter() - t) * 1000)
            print(
                f"{n_facts:>7,} facts run {run + 1}: load {loaded:6.1f}s | phase 1 "
                + " / ".join(f"{x:.1f}" for x in phase1[-3:])
                + " ms (the user, joining, another user)"
            )
            if not keep:
                await clean(db, tenant)
            continue
        stop, during, writes = asyncio.Event(), [], []  # type: ignore[var-annotated]
        others = [
            asyncio.create_task(_reader(reads, other, stop, during)),
            asyncio.create_task(_writer(facts, other, episode, stop, writes)),
        ]
        t = time.perf_counter()
        job = await service.run(tenant, job_id)
        purge = time.perf_counter() - t
        stop.set()
        await asyncio.gather(*others)
        assert job is not None and job.done
        c = job.counts
        rate = c.fact_versions_deleted / purge
        rates.append(rate)
        print(
            f"{n_facts:>7,} facts run {run + 1}: load {loaded:6.1f}s | phase 1 "
            f"{phase1[-2]:6.1f} ms (join {phase1[-1]:5.1f} ms) | phase 2 {purge:6.2f}s in "
            f"{job.batches} batches = {rate:7.0f} fact versions/s | episodes "
            f"{c.episodes_deleted} | versions {c.fact_versions_deleted} | recomputed "
            f"{c.facts_recomputed} | reinstated {c.facts_reinstated} | audit redacted "
            f"{c.audit_events_redacted}"
        )
        print(
            f"        other user's reads: idle p50 {_pct(idle, 50):.1f} / p95 "
            f"{_pct(idle, 95):.1f} ms ({len(idle)}) | during the purge p50 "
            f"{_pct(during, 50):.1f} / p95 {_pct(during, 95):.1f} ms ({len(during)}) = "
            f"{_pct(during, 95) / _pct(idle, 95):.2f}x idle p95 (target <= 1.5x)"
        )
        print(
            f"        other user's writes: idle p50 {_pct(idle_writes, 50):.1f} / p95 "
            f"{_pct(idle_writes, 95):.1f} ms ({len(idle_writes)}) | during the purge p50 "
            f"{_pct(writes, 50):.1f} / p95 {_pct(writes, 95):.1f} ms ({len(writes)}) = "
            f"{_pct(writes, 95) / _pct(idle_writes, 95):.2f}x idle p95"
        )
        if not keep:
            await clean(db, tenant)
        if with_floor:
            for redact in (False, True):
                tenant = f"forgetbench-{uuid.uuid4().hex[:8]}"
                await load(db, tenant, n_facts, max(1, n_facts // 10), rng)
                await rebuild_tenant(db, tenant)
                ms, versions = await floor(db, tenant, batch=10_000, redact=redact)
                floor_rate = versions / (ms / 1000)
                (ratios_redact if redact else ratios).append(floor_rate / rate)
                what = "+ bare audit redaction" if redact else "(versions, segments, episodes)"
                print(
                    f"        floor: bare batched DETACH DELETE {what} {ms / 1000:6.2f}s ="
                    f" {floor_rate:7.0f} fact versions/s; the purge takes "
                    f"{(ratios_redact if redact else ratios)[-1]:.2f}x it (target <= 1.5x)"
                )
                await clean(db, tenant)
        if with_floor and loaded_floor:
            # The purge above runs beside another user's reads and writes (on 2 cores they
            # take much of the machine); the bare floor alone does not. The same floor, with
            # its audit redaction, beside the same reads and writes: like for like.
            tenant = f"forgetbench-{uuid.uuid4().hex[:8]}"
            await load(db, tenant, n_facts, max(1, n_facts // 10), rng)
            await rebuild_tenant(db, tenant)
            ep = await db.run_raw(
                "MATCH (e:Episode {tenant: $t, user_id: 'other'}) RETURN e.id AS id LIMIT 1",
                {"t": tenant},
            )
            busy = Principal(tenant=tenant, role=Role.AGENT, key_id="bench", name="reader")
            stop, _reads, _writes = asyncio.Event(), [], []  # type: ignore[var-annotated]
            beside = [
                asyncio.create_task(_reader(reads, busy, stop, _reads)),
                asyncio.create_task(_writer(facts, busy, str(ep[0]["id"]), stop, _writes)),
            ]
            ms, versions = await floor(db, tenant, batch=10_000, redact=True)
            stop.set()
            await asyncio.gather(*beside)
            floor_rate = versions / (ms / 1000)
            print(
                f"        floor beside the same reads and writes (+ bare audit redaction) "
                f"{ms / 1000:6.2f}s = {floor_rate:7.0f} fact versions/s; the purge takes "
                f"{floor_rate / rate:.2f}x it"
            )
            await clean(db, tenant)
    if phase1_only:
        print(
            f"== {n_facts:,} facts: phase 1 p50 {_pct(phase1, 50):.1f} / p95 "
            f"{_pct(phase1, 95):.1f} ms over {len(phase1)} calls (target p95 <= 300 ms)"
        )
        return
    print(
        f"== {n_facts:,} facts: phase 1 p50 {_pct(phase1, 50):.1f} / p95 {_pct(phase1, 95):.1f}"
        f" ms over {len(phase1)} calls (target p95 <= 300 ms) | phase 2 "
        f"{statistics.median(rates):,.0f} fact versions/s (target >= 5,000)"
        + (
            f" | {statistics.median(ratios):.2f}x the floor, "
            f"{statistics.median(ratios_redact):.2f}x it with the audit redaction"
            if ratios
            else ""
        )
    )


async def main() -> None:
    global EMBED
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", default="10000,100000", help="facts per user, comma separated")
    ap.add_argument("--runs", type=int, default=3, help="runs of the smallest size (others: 1)")
    ap.add_argument("--no-floor", action="store_true", help="skip the bare-delete baseline")
    ap.add_argument("--no-embeddings", action="store_true", help="load without vectors")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument(
        "--phase1-only", action="store_true", help="time phase 1 only (no purge, no floor)"
    )
    ap.add_argument(
        "--loaded-floor",
        action="store_true",
        help="also time the floor beside the other user's reads and writes, as the purge is",
    )
    args = ap.parse_args()
    EMBED = not args.no_embeddings
    settings = Settings.from_env()
    db = Database.connect(settings.neo4j())
    rng = np.random.default_rng(7)
    try:
        await migrate(db, dimensions=DIM)
        # With the embedder, as served: a surviving fact first written citing the forgotten
        # user is re-embedded in its neutral wording by the purge.
        embedder = LocalEmbedder()
        embedder.load()
        service = ForgetService(db, PolicyStore(TrustRepository(db)).policy_for, embedder)
        # The whole service: another user's reads and writes while the purge runs.
        services = build_services(settings, db=db, embedder=embedder)
        reads, facts = services.reads, services.facts
        sizes = [int(x) for x in args.sizes.split(",")]
        for i, n in enumerate(sizes):
            await one_size(
                db,
                service,
                reads,
                facts,
                n,
                args.runs if i == 0 else 1,
                rng,
                args.keep,
                not args.no_floor,
                args.phase1_only,
                args.loaded_floor,
            )
    finally:
        await db.close()


if __name__ == "__main__":
    asyncio.run(main())
