"""Benchmark consolidation: one run over a generated scope, its rollback, and entity
resolution's precision/recall on the generator's known duplicates.

    python bench/consolidate.py                          # 20,000 facts, 2,000 episodes
    python bench/consolidate.py --facts 100000 --episodes 10000 --entities 2000

A fresh tenant is loaded straight over Bolt (not timed; timelines rebuilt as a backfill
would): episodes, facts about ``--entities`` companies, of which ``--dup-share`` have a
variant spelling with facts of its own ("Acme Widgets" / "Acme Widgets Inc." / "The Acme
Widgets"), 1% legacy case/whitespace duplicate versions, 1% facts past their TTL. Then it
times ``ConsolidationService.run`` (the service behind runConsolidation) and ``rollback``,
and scores the merge + proposal pairs against the known variant pairs. The tenant is deleted
afterwards unless --keep.

Beside each figure it prints a floor, measured on the same data just before: a bare Cypher
pass that only reads what the run must read (every live fact of the scope, grouped by slot)
and makes the same data changes set-based (the known variants' facts moved to their base
entity with their ABOUT edges and timeline segments, the due facts expired, the legacy
duplicates retracted), committed in pages, then the same changes undone: no rule, snapshot,
diff, audit or lock. The gap between a figure and its floor is the cost of the bookkeeping
that makes a run reviewable and undoable.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.db import Database, Tx
from graph_memory.domain import Principal, Role, entity_key, ft_token
from graph_memory.embeddings import LocalEmbedder
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.similarity import SimilarityRepository
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.consolidation.entities import EntityResolver
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.services.store.timeline_backfill import rebuild_tenant
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings

BATCH = 2_000
SCOPE = "team:bench"
WORDS_A = [
    "Acme",
    "Blue",
    "Harbor",
    "Quantum",
    "Silver",
    "Northern",
    "Granite",
    "Maple",
    "Orbit",
    "Crimson",
    "Atlas",
    "Lumen",
    "Pioneer",
    "Cedar",
    "Vertex",
    "Summit",
    "Echo",
    "Nova",
    "Falcon",
    "Iron",
    "Jade",
    "Kestrel",
    "Lotus",
    "Meridian",
    "Onyx",
    "Prism",
    "Raven",
    "Sierra",
    "Tidal",
    "Union",
    "Vivid",
    "Willow",
    "Zephyr",
    "Amber",
    "Boreal",
    "Cobalt",
    "Delta",
]
WORDS_B = [
    "Widgets",
    "Logistics",
    "Analytics",
    "Foods",
    "Robotics",
    "Pharma",
    "Textiles",
    "Energy",
    "Software",
    "Media",
    "Freight",
    "Bakery",
    "Motors",
    "Labs",
    "Capital",
    "Studios",
    "Clinics",
    "Mining",
    "Telecom",
    "Outfitters",
]
PREDICATES = [f"p{i}" for i in range(40)]

EPISODES = """
UNWIND $rows AS r
CREATE (e:Episode {id: r.id, tenant: $tenant, scope: r.scope, ft_scope: r.ft_scope,
  ft_kind: 'episode',
  user_id: r.user_id, session_id: r.session_id, started_at: r.at, ended_at: r.at,
  summary: r.text, text: r.text, outcome: 'success', topics: [], key_entities: [],
  source: 'user', confidence: 0.7, recorded_at: r.at, retrieval_count: 0})
"""
FACTS = """
UNWIND $rows AS r
MERGE (s:Entity {tenant: $tenant, key: r.subject})
ON CREATE SET s.id = r.subject_id, s.name = r.subject_name, s.caption = r.subject_name
CREATE (f:Fact {id: r.id, tenant: $tenant, scope: r.scope, ft_scope: r.ft_scope, ft_kind: 'fact',
  subject: r.subject, subject_name: r.subject_name, predicate: r.predicate, object: r.object,
  object_key: r.object_key, object_is_entity: false, text: r.text, kind: 'fact',
  source: 'user', tier: 'user', tier_rank: 1, tier_cap: 0.95, status: 'active',
  cardinality: 'many', confidence: 0.7, version: 1, recorded_at: r.at, activated_at: r.at,
  valid_from: r.at, valid_from_stated: false, told_at: r.at, told_log_at: [r.at],
  told_log: [r.at], changes_at: [r.at], changes: ['activated'],
  needs_verification: false, retrieval_count: 0, expires_at: r.expires_at})
CREATE (f)-[:ABOUT]->(s)
WITH f, r MATCH (e:Episode {id: r.episode})
CREATE (f)-[:DERIVED_FROM {weight: 0.7, at: r.at}]->(e)
"""
FLOOR_SCAN = """
MATCH (f:Fact {tenant: $tenant})
WHERE f.scope = $scope AND f.status IN ['active', 'candidate']
WITH f.subject AS subject, f.predicate AS predicate, collect(f.object_key) AS objects,
     sum(CASE WHEN f.expires_at < $now THEN 1 ELSE 0 END) AS due
RETURN count(*) AS slots, sum(due) AS due
"""
# A merge carries each believed version over as a copy about the survivor (properties,
# vector, evidence) and retracts the version; its rollback deletes the copies and reopens.
FLOOR_MOVE = """
UNWIND $moves AS m
MATCH (dst:Entity {tenant: $tenant, key: m.keep})
MATCH (f:Fact {tenant: $tenant, scope: $scope, subject: m.gone})
WHERE f.retracted_at IS NULL
CREATE (c:Fact)
SET c = f {.*, embedding: null, id: 'floor_' + replace(randomUUID(), '-', '')}
SET c.subject = dst.key, c.subject_name = dst.name, c.floor_copy = true
CREATE (c)-[:ABOUT]->(dst)
SET f.retracted_at = $now, f.status = 'retracted'
WITH f, c
CALL (f, c) {
  WITH f, c WHERE f.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', f.embedding)
}
CALL (f, c) {
  MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
  CREATE (c)-[x:DERIVED_FROM]->(e)
  SET x = properties(d)
  RETURN count(x) AS evidence
}
RETURN count(*) AS n
"""
FLOOR_BACK = """
UNWIND $moves AS m
CALL (m) {
  MATCH (c:Fact {tenant: $tenant, scope: $scope, subject: m.keep})
  WHERE c.floor_copy
  DETACH DELETE c
  RETURN count(*) AS dropped
}
MATCH (f:Fact {tenant: $tenant, scope: $scope, subject: m.gone})
WHERE f.retracted_at = $now
SET f.retracted_at = null, f.status = 'active'
RETURN count(*) AS n
"""
FLOOR_STATUS = """
MATCH (f:Fact {tenant: $tenant, status: 'active'})
WHERE f.expires_at < $now OR f.object_key STARTS WITH '  '
SET f.floor_status = f.status,
    f.retracted_at = CASE WHEN f.expires_at < $now THEN null ELSE $now END,
    f.status = CASE WHEN f.expires_at < $now THEN 'expired' ELSE 'retracted' END
RETURN count(*) AS n
"""
FLOOR_STATUS_BACK = """
MATCH (f:Fact {tenant: $tenant})
WHERE f.status IN ['expired', 'retracted'] AND f.floor_status IS NOT NULL
SET f.status = f.floor_status
REMOVE f.floor_status, f.retracted_at
RETURN count(*) AS n
"""
CLEAN = """
MATCH (n) WHERE n.tenant = $tenant
WITH n LIMIT 10000
DETACH DELETE n
RETURN count(*) AS n
"""


def _names(
    n: int, dup_share: float, rng: random.Random
) -> tuple[list[str], set[frozenset[str]], dict[str, str]]:
    base = [f"{a} {b}" for a in WORDS_A for b in WORDS_B]
    rng.shuffle(base)
    names = base[:n]
    variants = (
        lambda s: s + " Inc.",
        lambda s: "The " + s,
        lambda s: s + ".",
        lambda s: s.replace(" ", "-"),
    )
    truth: set[frozenset[str]] = set()
    base_of: dict[str, str] = {}  # variant key -> its base name's key
    extra = []
    for name in names[: int(n * dup_share)]:
        v = rng.choice(variants)(name)
        extra.append(v)
        truth.add(frozenset((entity_key(name), entity_key(v))))
        base_of[entity_key(v)] = entity_key(name)
    return names + extra, truth, base_of


async def _batched(db: Database, text: str, tenant: str, rows: list[dict[str, Any]]) -> None:
    for i in range(0, len(rows), BATCH):
        await db.run_raw(text, {"tenant": tenant, "rows": rows[i : i + BATCH]})


async def load(db: Database, tenant: str, args: argparse.Namespace) -> set[frozenset[str]]:
    rng = random.Random(7)
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    names, truth, _ = _names(args.entities, args.dup_share, rng)
    ft = ft_token(tenant, SCOPE)
    eps = [
        {
            "id": f"ep_{uuid.uuid4().hex}",
            "scope": SCOPE,
            "ft_scope": ft,
            "user_id": f"u{i % 50}",
            "session_id": f"s{i}",
            "at": t0 + timedelta(minutes=i),
            "text": f"session {i}",
        }
        for i in range(args.episodes)
    ]
    await _batched(db, EPISODES, tenant, eps)
    facts = []
    past = datetime.now(UTC) - timedelta(days=1)
    for i in range(args.facts):
        name = names[i % len(names)]
        obj = f"value {i}"
        row = {
            "id": f"fact_{uuid.uuid4().hex}",
            "scope": SCOPE,
            "ft_scope": ft,
            "subject": entity_key(name),
            "subject_id": f"ent_{uuid.uuid4().hex[:24]}",
            "subject_name": name,
            "predicate": PREDICATES[i % len(PREDICATES)],
            "object": obj,
            "object_key": entity_key(obj),
            "text": f"{name} {obj}",
            "at": t0 + timedelta(seconds=i),
            "episode": eps[i % len(eps)]["id"],
            "expires_at": past if i % 100 == 50 else None,
        }
        facts.append(row)
        if i % 100 == 7:  # a legacy duplicate version: same claim, other case/whitespace
            dup = dict(
                row,
                id=f"fact_{uuid.uuid4().hex}",
                object=f"  VALUE {i} ",
                object_key=f"  VALUE {i} ",
                episode=eps[(i + 1) % len(eps)]["id"],
            )
            facts.append(dup)
    await _batched(db, FACTS, tenant, facts)
    await rebuild_tenant(db, tenant)
    return truth


def profile_queries() -> dict[str, list[float]]:
    """Time every named query run inside a transaction (--profile): where a run's time goes."""
    spent: dict[str, list[float]] = {}
    original = Tx.run

    async def timed(self: Tx, name: str, params: Any) -> Any:
        t = time.perf_counter()
        try:
            return await original(self, name, params)
        finally:
            spent.setdefault(name, []).append(time.perf_counter() - t)

    Tx.run = timed  # type: ignore[method-assign]
    whole = Database.write_tx

    async def timed_tx(self: Database, fn: Any) -> Any:
        # A transaction whole, commit included: its gap to the statements is the commit
        # (where Neo4j applies index updates) and the Python between statements.
        t = time.perf_counter()
        try:
            return await whole(self, fn)
        finally:
            spent.setdefault("(write_tx whole, commit incl.)", []).append(time.perf_counter() - t)

    Database.write_tx = timed_tx  # type: ignore[method-assign]
    return spent


def print_profile(spent: dict[str, list[float]]) -> None:
    for name, times in sorted(spent.items(), key=lambda kv: -sum(kv[1]))[:20]:
        print(f"  {name:<40} {sum(times):8.2f} s  {len(times):6d} calls")
    spent.clear()


async def floor(db: Database, tenant: str, base_of: dict[str, str]) -> tuple[float, float]:
    """The bare Cypher pass (module docstring): seconds to make the changes, to undo them."""
    now = datetime.now(UTC)
    moves = [{"gone": g, "keep": k} for g, k in sorted(base_of.items())]
    pages = [moves[i : i + 50] for i in range(0, len(moves), 50)]  # ~5,000 facts a commit
    p = {"tenant": tenant, "scope": SCOPE, "now": now}
    t = time.perf_counter()
    await db.run_raw(FLOOR_SCAN, p)
    for page in pages:
        await db.run_raw(FLOOR_MOVE, p | {"moves": page})
    await db.run_raw(FLOOR_STATUS, p)
    forward = time.perf_counter() - t
    t = time.perf_counter()
    for page in pages:
        await db.run_raw(FLOOR_BACK, p | {"moves": page})
    await db.run_raw(FLOOR_STATUS_BACK, p)
    return forward, time.perf_counter() - t


async def clean(db: Database, tenant: str) -> None:
    while (await db.run_raw(CLEAN, {"tenant": tenant}))[0]["n"]:
        pass


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", type=int, default=20_000)
    ap.add_argument("--episodes", type=int, default=2_000)
    ap.add_argument("--entities", type=int, default=500)
    ap.add_argument("--dup-share", type=float, default=0.1)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument(
        "--reuse",
        metavar="TENANT",
        help="time again on a tenant a --keep run left (rolled back, so as loaded; its name "
        "vectors are already there)",
    )
    ap.add_argument("--profile", action="store_true", help="time per named query")
    ap.add_argument("--verbose", action="store_true", help="list false positives and misses")
    args = ap.parse_args()
    settings = Settings.from_env()
    db = Database.connect(settings.neo4j())
    tenant = args.reuse or f"bench-consolidate-{uuid.uuid4().hex[:8]}"
    try:
        t = time.perf_counter()
        if args.reuse:  # the generator is seeded: the same known pairs
            truth = _names(args.entities, args.dup_share, random.Random(7))[1]
            print(f"reusing {tenant}")
        else:
            truth = await load(db, tenant, args)
            print(
                f"loaded {args.facts} facts, {args.episodes} episodes into {tenant} in "
                f"{time.perf_counter() - t:.1f} s (not timed below)"
            )
        base_of = _names(args.entities, args.dup_share, random.Random(7))[2]
        floor_run, floor_back = await floor(db, tenant, base_of)
        print(
            f"floor (bare Cypher: the scan and the same data changes, then undone): "
            f"{floor_run:.2f} s / {floor_back:.2f} s"
        )
        resolver = EntityResolver(
            ResolutionRepository(db), SimilarityRepository(settings.neo4j()), LocalEmbedder()
        )
        service = ConsolidationService(
            db, PolicyStore(TrustRepository(db)).policy_for, resolver=resolver
        )
        spent = profile_queries() if args.profile else None
        admin = Principal(tenant=tenant, role=Role.ADMIN, key_id="bench", name="bench")
        t = time.perf_counter()
        report = await service.run(admin, [SCOPE])
        took = time.perf_counter() - t
        print(
            f"run {report.status} in {took:.2f} s (entity name vectors included; floor "
            f"{floor_run:.2f} s), {len(report.changes or ())} changes"
        )
        for s in report.steps:
            counts = " ".join(f"{c.name}={c.value}" for c in s.counts)
            print(f"  {s.step:<15} {s.duration_ms:10.1f} ms  {counts}")
        if spent is not None:
            print_profile(spent)
        found: set[frozenset[str]] = set()
        for c in report.changes or ():
            if c.action == "propose_merge" and c.after:
                row = json.loads(c.after)
                found.add(frozenset((row["a"], row["b"])))
            elif c.action == "merge_entity" and c.reason:
                gone, keep = c.reason.split("'")[1], c.reason.split("'")[3]
                found.add(frozenset((gone, keep)))
        hits = len(found & truth)
        precision = hits / len(found) if found else 1.0
        recall = hits / len(truth) if truth else 1.0
        print(
            f"entity resolution: {len(found)} pairs found, {len(truth)} known; "
            f"precision {precision:.3f}, recall {recall:.3f}"
        )
        if args.verbose:
            for pair in sorted(found - truth, key=sorted):
                print("  false positive:", " | ".join(sorted(pair)))
            for pair in sorted(truth - found, key=sorted):
                print("  missed:", " | ".join(sorted(pair)))
        # As rollbackConsolidation answers a client that does not select the run's diff; the
        # diff's read (a client that asks for it) is timed apart.
        t = time.perf_counter()
        await service.rollback(admin, report.id, diff=False)
        back = time.perf_counter() - t
        # The run's spent snapshots are deleted after the rollback answers, in the background:
        # timed apart, and waited for before the diff's read so the two are not timed together.
        t = time.perf_counter()
        swept = await service.sweep_later(tenant, report.id)
        sweep_s = time.perf_counter() - t
        t = time.perf_counter()
        (undone,) = await service.runs(admin, first=1)
        print(
            f"rollback in {back:.2f} s (floor {floor_back:.2f} s); its {swept} spent snapshots "
            f"swept after it in {sweep_s:.2f} s more (background); its diff of "
            f"{len(undone.changes or ())} changes read back in {time.perf_counter() - t:.2f} s"
        )
        if spent is not None:
            print_profile(spent)
    finally:
        if not args.keep and not args.reuse:
            await clean(db, tenant)
        await db.close()


if __name__ == "__main__":
    asyncio.run(main())
