"""No tenant's query scans another tenant's nodes: every named query over tenant-owned labels is
planned as an index seek, never a label or all-nodes scan, once those labels hold other
tenants' data. A scan makes every tenant's request pay for the whole database (the audit log,
the predicate list and the scope-lock stamp of each write did, each seeking a tenant by the
first key of a composite index, which Neo4j uses only with a predicate on every key).

The planner picks a scan over a seek for a label it believes tiny, so the test first gives
each label a few thousand nodes of a throwaway tenant and plans afresh (`replan=force`)."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from graph_memory.cypher import catalog
from graph_memory.db import Database
from graph_memory.settings import Settings

# The labels a tenant owns, each with the properties its indexes and constraints are on.
_SEED: dict[str, str] = {
    "Fact": "{tenant: $t, id: 'fact_' + $p + i, scope: 'user:u' + (i % 50), subject: 's' + i, "
    "predicate: 'p' + (i % 7), object_key: 'o' + i, status: 'active', "
    "recorded_at: datetime(), expires_at: datetime()}",
    "Episode": "{tenant: $t, id: 'ep_' + $p + i, scope: 'user:u' + (i % 50), "
    "session_id: 's' + i, speaker: 'x' + i, user_id: 'u' + (i % 50)}",
    "Segment": "{tenant: $t, id: 'seg_' + $p + i, scope: 'user:u' + (i % 50), subject: 's' + i, "
    "predicate: 'p' + (i % 7), recorded_at: datetime()}",
    "AuditEvent": "{tenant: $t, id: 'aud_' + $p + i, at: datetime(), target_id: 't' + i, "
    "action: 'record', acted_for: 'u' + i}",
    "Predicate": "{tenant: $t, name: 'p' + i}",
    "ScopeLock": "{tenant: $t, scope: 'user:u' + i}",
    "Entity": "{tenant: $t, id: 'ent_' + $p + i, key: 'k' + i}",
    "Memo": "{tenant: $t, id: 'memo_' + $p + i, scope: 'user:u' + (i % 50), kind: 'todo', "
    "user_id: 'u' + (i % 50)}",
    "IngestJob": "{tenant: $t, id: 'job_' + $p + i, user_id: 'u' + (i % 50), "
    "session_id: 's' + i, status: 'done', available_at: datetime()}",
    "ConsolidationRun": "{tenant: $t, id: 'run_' + $p + i}",
    "ConsolidationSnapshot": "{tenant: $t, snapshot_run: 'run_' + $p + (i % 40), "
    "snapshot_of: 'fact_' + $p + i, snapshot_batch: i % 5}",
    "ConsolidationJournal": "{tenant: $t, run_id: 'run_' + $p + (i % 40), batch: i}",
    "MergeProposal": "{tenant: $t, scope: 'user:u' + (i % 50), entity_a: 'a' + i, "
    "entity_b: 'b' + i, run_id: 'run_' + $p + (i % 40), status: 'open'}",
    "Forgotten": "{tenant: $t, contributor: 'c' + i}",
}
_COUNT = 3_000

# Queries that read across tenants on purpose, or whose label has no key every node carries.
_GLOBAL = {
    "apikey.list": "an operator's listing of every tenant's keys",
    "consolidation.due": "the scheduler's pass over every tenant",
    "forget.user_procedures": "a procedure's scope and role may be null: no index holds all",
    "transfer.count": "an export walks every node of its tenant, whatever the label",
    "transfer.nodes": "an export walks every node of its tenant, whatever the label",
    "timeline.tenants": "the timeline backfill's pass over every tenant",
    "expiry.tenants": "the expiry sweep's pass over every tenant",
    "reembed.count": "a re-embedding covers the whole database",
}
_SCANS = (
    "NodeByLabelScan",
    "AllNodesScan",
    "DirectedRelationshipTypeScan",
    "UndirectedRelationshipTypeScan",
)


def _scans(plan: dict[str, Any]) -> list[str]:
    found = []
    op = str(plan["operatorType"]).split("@")[0]
    details = str(plan.get("args", {}).get("Details", ""))
    if op in _SCANS and (op == "AllNodesScan" or any(f":{label}" in details for label in _SEED)):
        found.append(f"{op} {details}")
    for child in plan.get("children", []):
        found += _scans(child)
    return found


def test_no_tenant_query_scans_other_tenants_nodes(settings: Settings, server: str) -> None:
    del server  # the indexes are the migrated schema's
    queries = catalog()
    tenant, prefix = f"plans-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex[:6]

    async def go() -> list[str]:
        db = Database.connect(settings.neo4j())
        scanning: list[str] = []
        try:
            for label, props in _SEED.items():
                await db.run_raw(
                    f"UNWIND range(1, $n) AS i CREATE (:{label} {props})",
                    {"t": tenant, "p": prefix, "n": _COUNT},
                )
            # The planner weighs an index by its sampled statistics: sample what was seeded.
            await db.run_raw("CALL db.resampleOutdatedIndexes()")
            for name in queries.names():
                if name in _GLOBAL:
                    continue
                query = queries[name]
                # EXPLAIN plans without running; parameters bound null (a plan does not
                # depend on their values).
                async with db.driver.session(database=db.database) as session:
                    result = await session.run(
                        f"EXPLAIN CYPHER replan=force {query.text}", dict.fromkeys(query.params)
                    )
                    summary = await result.consume()
                assert summary.plan is not None
                scanning += [f"{name}: {s}" for s in _scans(summary.plan)]
        finally:
            for label in _SEED:
                await db.run_raw(
                    f"MATCH (n:{label}) WHERE n.tenant = $t DETACH DELETE n", {"t": tenant}
                )
            await db.close()
        return scanning

    scanning = asyncio.run(go())
    assert scanning == [], "\n".join(scanning)
