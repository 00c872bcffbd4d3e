"""The consolidation scheduler: a tenant written to since its last run is consolidated over
all its scopes; a tenant consolidated since its last write is left alone; a scheduler meeting
a lease another process holds skips the tenant until it is free."""

from __future__ import annotations

import asyncio

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.domain import Principal, Role
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.consolidation.schedule import ConsolidationScheduler, TickReport
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, episode, fact
from tests.integration.consolidation_helpers import CORE, OPS, Q_RUNS, build_store


def test_scheduler_runs_due_tenants_once_and_skips_held_scopes(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    s = build_store(settings, tenant, client, admin)

    def write() -> None:
        ep = client.record_episode(**episode("zoe", scope=OPS))
        client.assert_facts(
            [fact("Ops team", "on_call", "zoe", [ep], scope=OPS, cardinality="ONE")]
        )

    async def go() -> list[TickReport]:
        db = Database.connect(settings.neo4j())
        try:
            service = ConsolidationService(db, PolicyStore(TrustRepository(db)).policy_for)
            scheduler = ConsolidationScheduler(service, every_seconds=0)
            ticks = [await scheduler.tick([tenant])]
            ticks.append(await scheduler.tick([tenant]))  # nothing written since: not due
            # Another process holds a lease on one scope when the next write makes it due.
            held = {
                "id": "run_elsewhere",
                "scopes": [CORE],
                "steps": ["expiry"],
                "dry_run": False,
                "requested_by": "admin:other",
                "actor": "consolidation",
            }
            await db.write_tx(lambda tx: service._claim(tx, tenant, [CORE], held))
            await asyncio.to_thread(write)
            ticks.append(await scheduler.tick([tenant]))
            return ticks
        finally:
            await db.close()

    first, second, third = asyncio.run(go())
    assert len(first.runs) == 1 and second.runs == () and second.skipped == ()
    assert third.runs == () and third.skipped == (tenant,)
    runs = analyst.execute(Q_RUNS, {})["consolidationRuns"]
    done = next(r for r in runs if r["id"] == first.runs[0])
    assert done["requestedBy"] == "admin:scheduler" and done["status"] == "APPLIED"
    assert sorted(done["scopes"]) == [CORE, OPS]
    assert client.fact(s.expiring)["status"] == "EXPIRED"  # type: ignore[index]


def test_a_rolled_back_run_is_not_applied_again_and_episodes_alone_make_a_tenant_due(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    """An admin's rollback stands until the tenant is written to again (the next tick used to
    apply the same run again); a tenant that holds only episodes is due too (compaction works
    on episodes alone)."""
    build_store(settings, tenant, client, admin)
    quiet = f"{tenant}-episodes"

    async def go() -> list[TickReport]:
        db = Database.connect(settings.neo4j())
        try:
            service = ConsolidationService(db, PolicyStore(TrustRepository(db)).policy_for)
            scheduler = ConsolidationScheduler(service, every_seconds=0)
            first = await scheduler.tick([tenant])
            who = Principal(tenant=tenant, role=Role.ADMIN, key_id="t", name="t")
            await service.rollback(who, first.runs[0])
            after_rollback = await scheduler.tick([tenant])
            await asyncio.to_thread(
                lambda: client.record_episode(
                    **episode("zoe", scope=OPS, summary="zoe came back again today")
                )
            )
            after_write = await scheduler.tick([tenant])
            return [first, after_rollback, after_write]
        finally:
            await db.close()

    first, after_rollback, after_write = asyncio.run(go())
    assert len(first.runs) == 1
    assert after_rollback.runs == () and after_rollback.skipped == ()
    assert len(after_write.runs) == 1

    def only_episodes() -> TickReport:
        async def go() -> TickReport:
            db = Database.connect(settings.neo4j())
            try:
                service = ConsolidationService(db, PolicyStore(TrustRepository(db)).policy_for)
                return await ConsolidationScheduler(service, every_seconds=0).tick([quiet])
            finally:
                await db.close()

        return asyncio.run(go())

    key = _create_key(settings, quiet, "agent")
    with GraphMemoryClient(client.url, key) as other:
        other.record_episode(**episode("yan", summary="yan told a long story about the sea"))
    assert len(only_episodes().runs) == 1
