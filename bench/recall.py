"""Benchmark recall at scale: GraphQL over HTTP next to the same Cypher over Bolt.

    python bench/recall.py --facts 10000                   # 100 users, 100 facts each
    python bench/recall.py --facts 1000000 --users 10000   # the target size

Synthetic tenants, users, facts and episodes (random unit vectors from numpy, words from a
fixed vocabulary so full-text has something to match) are loaded over Bolt in UNWIND batches.
Then, per query and interleaved so all see the same background load: recall through the real
app (uvicorn subprocess) with a fresh text (embedding included), again with the text cached,
and the floor: the named Cypher queries recall runs, same parameters, straight over Bolt.
Query embedding (local model, no cache) is timed on its own. Bench tenants are deleted at the
end unless --keep.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from neo4j import AsyncGraphDatabase, GraphDatabase
from neo4j.vector import Vector
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.cypher import catalog
from graph_memory.db import Database
from graph_memory.domain import ft_token
from graph_memory.embeddings import LocalEmbedder
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.repositories.recall import Search
from graph_memory.services.access.keys import AuthService
from graph_memory.services.recall.ranking import build_lucene, name_keys
from graph_memory.services.recall.request import KINDS
from graph_memory.services.store.timeline_backfill import rebuild_tenant
from graph_memory.settings import Settings

DIMS = 384
LOAD_EPISODES = """
UNWIND $rows AS r
MERGE (u:User {tenant: r.tenant, id: r.user})
CREATE (e:Episode {id: r.id, tenant: r.tenant, scope: r.scope, ft_scope: r.ft_scope,
  ft_kind: 'episode',
  user_id: r.user, session_id: r.id, started_at: r.at, ended_at: r.at, summary: r.text,
  text: r.text, caption: r.text, outcome: 'success', topics: [], key_entities: [],
  source: 'user', confidence: 0.8, recorded_at: r.at, retrieval_count: 0})
CREATE (e)-[:CONTRIBUTED_BY]->(u)
WITH e, r
CALL db.create.setNodeVectorProperty(e, 'embedding', r.embedding)
"""
LOAD_FACTS = """
UNWIND $rows AS r
MATCH (e:Episode {id: r.episode})
CREATE (f:Fact {id: r.id, tenant: r.tenant, scope: r.scope, ft_scope: r.ft_scope, ft_kind: 'fact',
  subject: r.user, subject_name: r.user, predicate: 'notes', object: r.text,
  object_key: r.text, object_is_entity: false, text: r.text, caption: r.text, kind: 'fact',
  source: 'user', tier: 'user', tier_rank: 1, tier_cap: 0.95, status: 'active',
  cardinality: 'many', confidence: r.confidence, version: 1, recorded_at: r.at,
  valid_from: r.at, valid_from_stated: false, told_at: r.at, activated_at: r.at,
  told_log_at: [r.at], told_log: [r.at], changes_at: [r.at], changes: ['activated'],
  needs_verification: false, retrieval_count: 0})
CREATE (f)-[:DERIVED_FROM {weight: 0.8, at: r.at}]->(e)
WITH f, r
CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
"""
COUNT = "MATCH (f:Fact) WHERE f.tenant IN $tenants RETURN count(f) AS n"
DELETE = """
MATCH (n:{label}) WHERE n.tenant IN $tenants
CALL (n) {{ DETACH DELETE n }} IN TRANSACTIONS OF 5000 ROWS
"""
GQL = """query($q: String!, $s: [String!]!) {
  recall(query: $q, scopes: $s) { items { id kind score { total } } considered }
}"""


def _vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "da", "zu", "fe", "gi"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _unit(n: int, np_rng: np.random.Generator) -> np.ndarray[Any, Any]:
    v = np_rng.standard_normal((n, DIMS), dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _users(args: argparse.Namespace) -> list[tuple[str, str]]:
    per_tenant = max(1, args.users // args.tenants)
    return [
        (f"bench-{args.facts}-t{t}", f"u{u}")
        for t in range(args.tenants)
        for u in range(per_tenant)
    ]


def _batches(rows: Iterator[dict[str, Any]], size: int) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def load(args: argparse.Namespace, settings: Settings, vocab: list[str]) -> None:
    conn = settings.neo4j()
    users = _users(args)
    tenants = sorted({t for t, _ in users})
    per_user = max(1, args.facts // len(users))
    eps_per_user = max(1, per_user // 10)
    rng, np_rng = random.Random(1), np.random.default_rng(1)
    now = datetime.now(UTC)
    with GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver:
        have = driver.execute_query(COUNT, tenants=tenants, database_=conn.database)
        if have.records[0]["n"] >= per_user * len(users):
            print(f"reusing {have.records[0]['n']:,} bench facts already loaded")
            return

        def text(n: int) -> str:
            return " ".join(rng.choice(vocab) for _ in range(n))

        def episodes() -> Iterator[dict[str, Any]]:
            for tenant, user in users:
                scope = f"user:{user}"
                for i in range(eps_per_user):
                    yield {
                        "id": f"ep-{tenant}-{user}-{i}",
                        "tenant": tenant,
                        "user": user,
                        "scope": scope,
                        "ft_scope": ft_token(tenant, scope),
                        "text": f"{user} {text(20)}",
                        "at": now - timedelta(days=rng.uniform(0, 365)),
                    }

        def facts() -> Iterator[dict[str, Any]]:
            for tenant, user in users:
                scope = f"user:{user}"
                for i in range(per_user):
                    yield {
                        "id": f"f-{tenant}-{user}-{i}",
                        "tenant": tenant,
                        "user": user,
                        "scope": scope,
                        "ft_scope": ft_token(tenant, scope),
                        "episode": f"ep-{tenant}-{user}-{i % eps_per_user}",
                        "text": f"{user} {text(8)}",
                        "confidence": rng.uniform(0.5, 0.95),
                        "at": now - timedelta(days=rng.uniform(0, 365)),
                    }

        for name, cypher, rows, total in (
            ("episodes", LOAD_EPISODES, episodes(), eps_per_user * len(users)),
            ("facts", LOAD_FACTS, facts(), per_user * len(users)),
        ):
            with tqdm(total=total, desc=f"loading {name}", unit=" rows") as bar:
                for batch in _batches(rows, args.batch):
                    vectors = _unit(len(batch), np_rng)
                    for row, vec in zip(batch, vectors, strict=True):
                        row["embedding"] = vec.tolist()
                    driver.execute_query(cypher, rows=batch, database_=conn.database)
                    bar.update(len(batch))
        driver.execute_query("CALL db.awaitIndexes(600)", database_=conn.database)
    # Loaded behind the service's back: the stored timeline its writes would keep.
    asyncio.run(_timelines(settings, tenants))


async def _timelines(settings: Settings, tenants: list[str]) -> None:
    db = Database.connect(settings.neo4j())
    started = time.perf_counter()
    slots = 0
    try:
        for tenant in tenants:
            slots += (await rebuild_tenant(db, tenant)).slots
    finally:
        await db.close()
    print(f"timeline rebuilt: {slots:,} slots in {time.perf_counter() - started:.1f} s")


def cleanup(args: argparse.Namespace, settings: Settings) -> None:
    conn = settings.neo4j()
    tenants = sorted({t for t, _ in _users(args)})
    with GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver:
        for label in ("Segment", "Fact", "Episode", "User", "ApiKey", "AuditEvent"):
            with driver.session(database=conn.database) as session:
                session.run(DELETE.format(label=label), tenants=tenants).consume()
        driver.execute_query(
            "MATCH (t:Tenant) WHERE t.id IN $tenants DETACH DELETE t",
            tenants=tenants,
            database_=conn.database,
        )
    print(f"deleted bench tenants {tenants[0]} .. {tenants[-1]}")


async def _keys(settings: Settings, tenants: list[str]) -> dict[str, str]:
    db = Database.connect(settings.neo4j())
    try:
        auth = AuthService(ApiKeyRepository(db))
        return {t: (await auth.create_key(t, "agent", "bench"))[1] for t in tenants}
    finally:
        await db.close()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _line(name: str, ms: list[float]) -> str:
    return (
        f"  {name:<44} p50 {statistics.median(ms):7.2f} ms   p95 {_pct(ms, 0.95):7.2f} ms"
        f"   mean {statistics.fmean(ms):7.2f} ms"
    )


def _server(port: int) -> subprocess.Popen[bytes]:
    cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "--factory",
        "graph_memory.app:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(cmd, cwd=Path(__file__).resolve().parents[1], env=os.environ.copy())
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health").status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("the app did not start")


# The least any scoped recall can cost: the in-index filtered vector search alone, per scope,
# no full-text half, no in-force check, no hydration (bench text, not a product query).
BARE_SEARCH = """
CYPHER 25
UNWIND $scopes AS scope
CALL (scope) {
  MATCH (hit:Fact)
    SEARCH hit IN (VECTOR INDEX fact_embedding FOR $vector
                   WHERE hit.tenant = $tenant AND hit.scope = scope LIMIT $k) SCORE AS score
  RETURN hit.id AS id, score
}
RETURN id, score
"""


class Floor:
    """The service's named queries with its parameters, straight over Bolt, no service."""

    def __init__(self, settings: Settings, k: int, over_recall: int) -> None:
        self.conn, self.queries = settings.neo4j(), catalog()
        self.driver = AsyncGraphDatabase.driver(
            self.conn.uri, auth=(self.conn.user, self.conn.password)
        )
        self.k, self.limit = k, max(k, over_recall)

    async def _run(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        q = self.queries[name]
        async with self.driver.session(database=self.conn.database) as s:
            res = await s.run(q.text, q.bind(params))
            return await res.data()

    async def recall(self, c: dict[str, Any]) -> float:
        now = datetime.now(UTC)
        # The service's own search parameters (repositories/recall.Search), so the floor runs
        # what the service runs. Bench facts name no entity, so there is no second, name-free
        # embedding to search with.
        search = Search(
            tenant=c["tenant"],
            scopes=c["scopes"],
            vector=list(c["vector"]),
            lucene=c["lucene"],
            as_of=now,
            valid_at=now,
        )
        start = time.perf_counter()
        # The service asks which entities the query names while it embeds the query.
        await self._run(
            "recall.entities",
            {
                "tenant": c["tenant"],
                "scopes": c["scopes"],
                "keys": name_keys(c["text"]),
                "as_of": now,
            },
        )
        found = await self._run(
            "recall.search", {**search.params(self.limit), "kinds": list(KINDS)}
        )
        await self._run(
            "recall.hydrate",
            {
                "tenant": c["tenant"],
                "episodes": [],
                "procedures": [],
                "memos": [],
                "facts": [r["id"] for r in (found[0]["fact_rows"] if found else [])[: self.k]],
            },
        )
        return (time.perf_counter() - start) * 1000

    async def bare(self, c: dict[str, Any]) -> float:
        params = {
            "tenant": c["tenant"],
            "scopes": c["scopes"],
            "vector": Vector(np.asarray(c["vector"], dtype=np.float32)),
            "k": self.limit,
        }
        start = time.perf_counter()
        async with self.driver.session(database=self.conn.database) as s:
            await (await s.run(BARE_SEARCH, params)).data()
        return (time.perf_counter() - start) * 1000


async def measure(
    cases: list[dict[str, Any]], keys: dict[str, str], port: int, floor: Floor
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Per query, back to back: HTTP with a fresh text, HTTP again (cached), the raw floor,
    a bare scoped vector search;
    interleaved so all three see the same background load."""
    fresh, cached, raw, bare = [], [], [], []
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:

        async def call(c: dict[str, Any], text: str) -> float:
            start = time.perf_counter()
            r = await http.post(
                "/graphql",
                json={"query": GQL, "variables": {"q": text, "s": c["scopes"]}},
                headers={"Authorization": f"Bearer {keys[c['tenant']]}"},
            )
            elapsed = (time.perf_counter() - start) * 1000
            if r.json().get("errors"):
                raise RuntimeError(r.json()["errors"])
            return elapsed

        for c in cases[:20]:  # warm-up: model load, connection pools, query plans
            await call(c, f"warm {uuid.uuid4().hex[:6]}")
            await floor.recall(c)
        for c in tqdm(cases, desc="measuring"):
            fresh.append(await call(c, c["text"]))
            cached.append(await call(c, c["text"]))
            raw.append(await floor.recall(c))
            bare.append(await floor.bare(c))
    await floor.driver.close()
    return fresh, cached, raw, bare


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=None, help="default: facts / 100")
    ap.add_argument("--tenants", type=int, default=10)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--batch", type=int, default=2_000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--over-recall", type=int, default=20)
    ap.add_argument("--port", type=int, default=18_765)
    ap.add_argument("--keep", action="store_true", help="keep the bench data for a rerun")
    args = ap.parse_args()
    args.users = args.users or max(1, args.facts // 100)
    args.tenants = min(args.tenants, args.users)
    settings = Settings.from_env()
    rng = random.Random(7)
    vocab = _vocabulary(random.Random(3))

    load(args, settings, vocab)
    users = _users(args)
    picks = [rng.choice(users) for _ in range(args.queries)]
    texts = [" ".join(rng.choice(vocab) for _ in range(4)) for _ in range(args.queries)]

    embedder = LocalEmbedder()
    embedder.load()
    embed_ms, vectors = [], []
    for t in texts:
        start = time.perf_counter()
        vectors.append(embedder.encode([t])[0].tolist())
        embed_ms.append((time.perf_counter() - start) * 1000)

    cases = [
        {
            "tenant": tenant,
            "scopes": [f"user:{user}", "tenant"],
            "vector": v,
            "text": t,
            "lucene": build_lucene(tenant, [f"user:{user}", "tenant"], t),
        }
        for (tenant, user), t, v in zip(picks, texts, vectors, strict=True)
    ]
    keys = asyncio.run(_keys(settings, sorted({t for t, _ in users})))
    server = _server(args.port)
    try:
        http_fresh, http_cached, raw, bare = asyncio.run(
            measure(cases, keys, args.port, Floor(settings, args.k, args.over_recall))
        )
    finally:
        server.terminate()
        server.wait(timeout=30)

    print(
        f"\nrecall at {args.facts:,} facts, {len(users):,} users, {args.tenants} tenants; "
        f"k={args.k}, overRecall={args.over_recall}, scopes per query: 2 (user + tenant), "
        f"{args.queries} queries, sequential, interleaved"
    )
    print(_line("query embedding (local model, no cache)", embed_ms))
    print(_line("bare scoped vector SEARCH over Bolt", bare))
    print(_line("raw Cypher over Bolt (the floor)", raw))
    b50 = statistics.median(raw) / statistics.median(bare)
    print(
        f"  recall's Cypher vs the bare search: p50 {b50:.2f}x, "
        f"p95 {_pct(raw, 0.95) / _pct(bare, 0.95):.2f}x"
    )
    print(_line("recall over HTTP, embedding cached", http_cached))
    print(_line("recall over HTTP, fresh text (embeds)", http_fresh))
    r50 = statistics.median(http_cached) / statistics.median(raw)
    r95 = _pct(http_cached, 0.95) / _pct(raw, 0.95)
    print(f"  overhead vs raw Cypher (embedding cached): p50 {r50:.2f}x, p95 {r95:.2f}x")
    e50 = statistics.median(http_fresh) / (statistics.median(raw) + statistics.median(embed_ms))
    print(f"  overhead vs raw Cypher + embedding (fresh text): p50 {e50:.2f}x")
    if not args.keep:
        cleanup(args, settings)


if __name__ == "__main__":
    main()
