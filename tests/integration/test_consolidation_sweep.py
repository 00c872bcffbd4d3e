"""A rollback answers once every memory is restored; the run's spent snapshots are deleted
after it, in the background, and a sweep its process never finished is done by the tenant's
next run."""

from __future__ import annotations

import asyncio
import time

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.domain import Principal, Role
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.consolidation.rollback import roll_back
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings
from tests.integration.consolidation_helpers import M_ROLLBACK, SCOPES, answers, build_store, run

_LEFT = """
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run})
OPTIONAL MATCH (s:ConsolidationSnapshot {snapshot_run: $run})
RETURN r.snapshots_left AS flagged, count(s) AS snapshots,
       count(CASE WHEN s.spent THEN 1 END) AS spent
"""


def _left(settings: Settings, tenant: str, run_id: str) -> tuple[bool, int, int]:
    async def read() -> tuple[bool, int, int]:
        db = Database.connect(settings.neo4j())
        try:
            (row,) = await db.run_raw(_LEFT, {"tenant": tenant, "run": run_id})
            return bool(row["flagged"]), int(row["snapshots"]), int(row["spent"])
        finally:
            await db.close()

    return asyncio.run(read())


def test_a_rollback_s_snapshots_are_swept_after_it(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    build_store(settings, tenant, client, admin)
    before = answers(client)
    done = run(admin)
    assert _left(settings, tenant, done["id"])[1] > 0  # what a rollback restores from
    back = admin.execute(M_ROLLBACK, {"id": done["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK"
    assert answers(client) == before
    deadline = time.monotonic() + 20
    while _left(settings, tenant, done["id"]) != (False, 0, 0):
        assert time.monotonic() < deadline, _left(settings, tenant, done["id"])
        time.sleep(0.1)


def test_the_next_run_sweeps_what_a_stopped_process_left(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    build_store(settings, tenant, client, admin)
    before = answers(client)
    who = Principal(tenant=tenant, role=Role.ADMIN, key_id="k", name="ops")

    async def go() -> tuple[str, tuple[bool, int, int], str]:
        db = Database.connect(settings.neo4j())
        try:
            service = ConsolidationService(db, PolicyStore(TrustRepository(db)).policy_for)
            first = await service.run(who, SCOPES)
            # The rollback alone, as a process that stopped before its sweep began.
            back = await roll_back(db, who, first.id, diff=False)
            assert back.status == "rolled_back"
            (row,) = await db.run_raw(_LEFT, {"tenant": tenant, "run": first.id})
            left = (bool(row["flagged"]), int(row["snapshots"]), int(row["spent"]))
            second = await service.run(who, SCOPES)
            await service.rollback(who, second.id, diff=False)
            await service.sweep_later(tenant, second.id)
            return first.id, left, second.id
        finally:
            await db.close()

    first, left, second = asyncio.run(go())
    # Every snapshot spent by the rollback (none left to restore), all still there, flagged.
    assert left[0] and left[1] > 0 and left[2] == left[1]
    assert answers(client) == before
    assert _left(settings, tenant, first) == (False, 0, 0)
    assert _left(settings, tenant, second) == (False, 0, 0)
