"""Shared setup for the consolidation tests: a small store with one of each thing a run
cleans up, and a way to read every answer of a few scopes at a moment."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.repositories.timeline import SlotKey, TimelineRepository
from graph_memory.settings import Settings
from tests.integration.conftest import elapse_ttl, episode, fact

CORE, OPS = "team:core", "team:ops"
SCOPES = [CORE, OPS]
RUN_FIELDS = """id scopes status dryRun actor requestedBy startedAt finishedAt rolledBackAt error
  steps { step durationMs counts { name value } }
  changes { seq step action targetId reason before after }"""
M_RUN = (
    "mutation($s: [String!]!, $steps: [ConsolidationStep!], $dry: Boolean!) {"
    " runConsolidation(scopes: $s, steps: $steps, dryRun: $dry) { " + RUN_FIELDS + " } }"
)
M_ROLLBACK = "mutation($id: ID!) { rollbackConsolidation(runId: $id) { " + RUN_FIELDS + " } }"
Q_RUNS = "query($scope: String) { consolidationRuns(scope: $scope) { " + RUN_FIELDS + " } }"


@dataclass(frozen=True)
class Store:
    expiring: str  # TTL elapsed, not swept yet
    conclusion: str  # depends on the expiring fact
    candidate: str  # 2 sessions of evidence, promoted once the threshold is 2
    jira: str  # the better-supported of two case/whitespace duplicates
    jira_dup: str
    core_day: str  # deploy day in team:core ...
    ops_day: str  # ... contradicted in team:ops


def legacy_duplicate(
    settings: Settings, tenant: str, fact_id: str, obj: str, episode_id: str
) -> str:
    """A version of the same claim whose object differs only in case/whitespace, as versions
    written before object keys were normalised are (today's write path corroborates instead).
    Written over Bolt, then the slot's timeline is rebuilt as a backfill would."""
    new_id = f"fact_{uuid.uuid4().hex}"

    async def go() -> None:
        db = Database.connect(settings.neo4j())
        try:
            rows = await db.run_raw(
                "MATCH (f:Fact {id: $id}) WHERE f.tenant = $tenant "
                "MATCH (f)-[:ABOUT]->(s:Entity) MATCH (e:Episode {id: $ep}) "
                "CREATE (g:Fact) SET g = f {.*, id: $new}, g.object = $obj, "
                "  g.object_key = $obj, g.text = f.subject_name + ' ' + f.predicate + ' ' + $obj,"
                "  g.version = f.version + 1, g.recorded_at = datetime(), "
                "  g.activated_at = datetime(), g.told_log_at = [datetime()], "
                "  g.told_log = [datetime()], g.confidence = 0.8, "
                "  g.changes_at = [datetime()], g.changes = ['activated'] "
                "CREATE (g)-[:ABOUT]->(s) "
                "CREATE (g)-[:DERIVED_FROM {weight: 0.8, at: datetime()}]->(e) "
                "RETURN g.scope AS scope, g.subject AS subject, g.predicate AS predicate",
                {"id": fact_id, "tenant": tenant, "new": new_id, "obj": obj, "ep": episode_id},
            )
            slot = SlotKey(rows[0]["scope"], rows[0]["subject"], rows[0]["predicate"])
            await db.write_tx(lambda tx: TimelineRepository.rebuild(tx, tenant, [slot]))
        finally:
            await db.close()

    asyncio.run(go())
    return new_id


def build_store(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> Store:
    eps = [
        client.record_episode(**episode(u, s, scope=CORE))
        for u, s in (("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    ]
    ops_ep = client.record_episode(**episode("dave", "s4", scope=OPS))

    def one(f: dict[str, Any]) -> str:
        out = client.assert_facts([f])
        assert out["accepted"] == 1, out
        return str(out["results"][0]["factId"])

    expiring = one(
        fact(
            "Core team", "sprint_goal", "ship v2", eps[:1], scope=CORE, ttlDays=1, cardinality="ONE"
        )
    )
    conclusion = one(
        fact(
            "Core team",
            "release_date",
            "Friday",
            eps[:1],
            scope=CORE,
            dependsOn=[expiring],
            cardinality="ONE",
        )
    )
    candidate = one(
        fact(
            "Core team",
            "uses",
            "Linear",
            eps[:2],
            scope=CORE,
            source="conversation",
            cardinality="MANY",
        )
    )
    jira = one(fact("Core team", "uses", "Jira", eps[:2], scope=CORE, cardinality="MANY"))
    jira_dup = legacy_duplicate(settings, tenant, jira, "  JIRA ", eps[2])
    core_day = one(
        fact("Core team", "deploy_day", "Monday", eps[:1], scope=CORE, cardinality="ONE")
    )
    ops_day = one(fact("Core team", "deploy_day", "Thursday", [ops_ep], scope=OPS))
    elapse_ttl(settings, tenant, expiring)
    # The threshold drops after the candidate's evidence arrived: no write promotes it now.
    admin.execute("mutation { configureTenant(policy: {promoteSessions: 2}) { version } }")
    return Store(expiring, conclusion, candidate, jira, jira_dup, core_day, ops_day)


def answers(client: GraphMemoryClient, as_of: Any = None) -> list[tuple[Any, ...]]:
    """Every answer in the scopes at ``as_of``: what a rollback must give back exactly."""
    edges = client.facts(SCOPES, as_of=as_of, first=200)["edges"]
    return sorted(
        (
            n["id"],
            n["scope"],
            n["predicate"],
            n["object"],
            n["status"],
            n["confidence"],
            n["needsVerification"],
            n["verificationReason"],
        )
        for n in (e["node"] for e in edges)
    )


def run(admin: GraphMemoryClient, dry: bool = False, steps: list[str] | None = None) -> Any:
    return admin.execute(M_RUN, {"s": SCOPES, "steps": steps, "dry": dry})["runConsolidation"]
