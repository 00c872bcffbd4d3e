"""The consolidation scheduler inside `serve`: every ``every_seconds``, each tenant written to
since its last run gets a run over all its scopes (actor ``consolidation``, requested by
``admin:scheduler``). Service processes sharing one Neo4j may all run it: the cadence is read
from the runs in the graph and the scopes' leases refuse a second run (logged, skipped)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass

from graph_memory.domain import Principal, Role, utcnow
from graph_memory.errors import Conflict, GraphMemoryError
from graph_memory.repositories.consolidation import ConsolidationRepository
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.session_share import working_for

__all__ = ["ConsolidationScheduler", "TickReport"]

log = logging.getLogger(__name__)
TENANTS_PER_TICK = 100


@dataclass(frozen=True)
class TickReport:
    runs: tuple[str, ...]  # run ids applied
    skipped: tuple[str, ...]  # tenants another process was consolidating


class ConsolidationScheduler:
    def __init__(self, service: ConsolidationService, every_seconds: float) -> None:
        self.service = service
        self.every_seconds = every_seconds

    async def tick(self, tenants: list[str] | None = None) -> TickReport:
        """One pass over the due tenants (``tenants`` narrows it, for operators and tests)."""
        now, every = utcnow(), int(self.every_seconds)
        due = await self.service.db.read_tx(
            lambda tx: ConsolidationRepository.due(tx, tenants, now, every, TENANTS_PER_TICK)
        )
        runs: list[str] = []
        skipped: list[str] = []
        for row in due:
            who = Principal(
                tenant=row["tenant"], role=Role.ADMIN, key_id="scheduler", name="scheduler"
            )
            try:
                with working_for(who.tenant):  # behind its own tenant's work
                    report = await self.service.run(who, sorted(row["scopes"]))
                runs.append(report.id)
            except Conflict:
                skipped.append(row["tenant"])
            except GraphMemoryError as e:  # one tenant's trouble never stops the others
                log.warning("scheduled consolidation of %s failed: %s", row["tenant"], e)
        return TickReport(tuple(runs), tuple(skipped))

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await self.tick()
            except GraphMemoryError as e:
                log.warning("consolidation scheduler tick failed: %s", e)
            with contextlib.suppress(TimeoutError):  # the cadence elapsed: next tick
                await asyncio.wait_for(stop.wait(), timeout=self.every_seconds)
