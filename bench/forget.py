"""Benchmark right-to-be-forgotten: forgetContributor for a user with 10k facts, 1k episodes.

    python bench/forget.py                      # 10,000 facts / 1,000 episodes, 5 runs
    python bench/forget.py --facts 50000 --episodes 5000 --runs 3

Each run loads a fresh tenant straight over Bolt (UNWIND batches, not timed): the user's
episodes and facts with 384-dim embeddings (so vector index entries are deleted too), the
audit events the write path would have left (one per episode and fact, which excision must
redact), ABOUT edges to a few hundred entities, supersession chains (every 10th fact replaced
an earlier version of its own), and a second user whose episodes also support 10% of the
facts (those survive with recomputed confidence) plus 1,000 facts of their own. Then it
times ``ForgetService.forget`` (the service call behind the mutation: one write transaction)
and prints p50/min/max. The tenant is deleted afterwards unless --keep.
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

from graph_memory.db import Database
from graph_memory.domain import Principal, Role, ft_token
from graph_memory.embeddings import LocalEmbedder
from graph_memory.migrations import migrate
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.forget import ForgetService
from graph_memory.services.timeline_backfill import rebuild_tenant
from graph_memory.services.trust import PolicyStore
from graph_memory.settings import Settings

BATCH = 2_000
DIM = 384

EPISODES = """
UNWIND $rows AS r
MERGE (u:User {tenant: $tenant, id: r.user_id})
CREATE (e:Episode {id: r.id, tenant: $tenant, scope: r.scope, ft_scope: r.ft_scope,
  user_id: r.user_id, session_id: r.session_id, started_at: r.at, ended_at: r.at,
  summary: r.text, text: r.text, caption: r.text, outcome: 'success', topics: [],
  key_entities: [], source: 'user', confidence: 0.7, recorded_at: r.at, retrieval_count: 0})
CREATE (e)-[:CONTRIBUTED_BY]->(u)
WITH e, r CALL db.create.setNodeVectorProperty(e, 'embedding', r.embedding)
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
WITH f, r CALL db.create.setNodeVectorProperty(f, 'embedding', r.embedding)
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


def _vectors(n: int, rng: np.random.Generator) -> list[list[float]]:
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
                "predicate": f"p{i % 50}",
                "object": f"value {i}",
                "status": "active",
                "version": 1,
                "at": at,
                "superseded_at": None,
                "superseded_by": None,
                "supersedes": None,
                "embedding": vecs[i],
                "episodes": cites,
                "text": f"{owner} topic {i % 300} p{i % 50} value {i}",
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
                links.append({"new": row["id"], "old": prev["id"]})
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


FLOOR = """
MATCH (f:Fact {tenant: $tenant, scope: 'user:victim'})
WHERE NOT EXISTS { (f)-[:DERIVED_FROM]->(:Episode {user_id: 'other'}) }
WITH collect(f) AS facts
MATCH (e:Episode {tenant: $tenant, user_id: 'victim'})
WITH facts, collect(e) AS episodes
FOREACH (x IN facts + episodes | DETACH DELETE x)
"""


async def floor(db: Database, tenant: str) -> float:
    """The bare cost of deleting the same nodes in one transaction, no logic: the floor."""
    t = time.perf_counter()
    await db.run_raw(FLOOR, {"tenant": tenant})
    return (time.perf_counter() - t) * 1000


def _summary(label: str, timings: list[float]) -> str:
    return (
        f"{label}: p50 {statistics.median(timings):.1f} ms, min {min(timings):.1f} ms, "
        f"max {max(timings):.1f} ms over {len(timings)} runs"
    )


async def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--facts", type=int, default=10_000)
    ap.add_argument("--episodes", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-floor", action="store_true", help="skip the bare-delete baseline")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    settings = Settings.from_env()
    db = Database.connect(settings.neo4j())
    rng = np.random.default_rng(7)
    try:
        await migrate(db, dimensions=DIM)
        # With the embedder, as served: a surviving fact first written citing the forgotten
        # user is re-embedded in its neutral wording inside the forget's transaction.
        embedder = LocalEmbedder()
        embedder.load()
        service = ForgetService(db, PolicyStore(TrustRepository(db)).policy_for, embedder)
        timings: list[float] = []
        floors: list[float] = []
        for run in range(args.runs):
            tenant = f"forgetbench-{uuid.uuid4().hex[:8]}"
            started = time.perf_counter()
            await load(db, tenant, args.facts, args.episodes, rng)
            # Loaded behind the service's back: the stored timeline its writes would keep.
            await rebuild_tenant(db, tenant)
            loaded = time.perf_counter() - started
            admin = Principal(tenant=tenant, role=Role.ADMIN, key_id="bench", name="bench")
            t = time.perf_counter()
            report = await service.forget(admin, "victim")
            took = (time.perf_counter() - t) * 1000
            timings.append(took)
            print(
                f"run {run + 1}: load {loaded:5.1f}s | forget {took:7.1f} ms | "
                f"episodes {report.episodes_deleted} | fact versions "
                f"{report.fact_versions_deleted} | recomputed {report.facts_recomputed} | "
                f"reinstated {report.facts_reinstated} | reworded {report.facts_reworded} | "
                f"audit redacted "
                f"{report.audit_events_redacted} | entities {report.entities_deleted}"
            )
            if not args.keep:
                await clean(db, tenant)
            if not args.no_floor:
                tenant = f"forgetbench-{uuid.uuid4().hex[:8]}"
                await load(db, tenant, args.facts, args.episodes, rng)
                floors.append(await floor(db, tenant))
                print(f"        floor: bare DETACH DELETE of the same nodes {floors[-1]:7.1f} ms")
                await clean(db, tenant)
        size = f"{args.facts:,} facts, {args.episodes:,} episodes"
        print(
            f"\n{_summary(f'forgetContributor ({size}, one transaction)', timings)}"
            " (target <= 500 ms)"
        )
        if floors:
            print(_summary("bare DETACH DELETE of the same nodes (floor)", floors))
    finally:
        await db.close()


if __name__ == "__main__":
    asyncio.run(main())
