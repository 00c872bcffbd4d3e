"""Backfill the stored timeline of a store written before it existed.

Walks every tenant's slots in key order and rebuilds each slot's segments from its versions
(graph_memory/temporal), a batch per transaction. Progress is recorded in the graph after
every batch, so an interrupted backfill resumes where it stopped; rebuilding a slot twice
gives the same segments, so a batch replayed after a crash is harmless. Writes that land
during the backfill settle their own slots; a later rebuild of such a slot recomputes the
same timeline from the same versions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from graph_memory.db import Database, Tx
from graph_memory.repositories.timeline import SlotKey, TimelineRepository
from graph_memory.repositories.timeline_backfill import BackfillRepository

__all__ = ["RULE_VERSION", "BackfillReport", "backfill_timelines"]

# Bumped when graph_memory/temporal changes what it decides: every timeline is rebuilt.
RULE_VERSION = 1
BATCH = 200


@dataclass
class BackfillReport:
    slots: int = 0
    segments: int = 0
    resumed: bool = False
    already_done: bool = False


async def backfill_timelines(
    db: Database, progress: Callable[[int], None] | None = None
) -> BackfillReport:
    report = BackfillReport()
    state = await BackfillRepository.state(db, RULE_VERSION)
    if state is not None and state["done"]:
        report.already_done = True
        return report
    tenant = state["tenant"] if state else ""
    after: SlotKey | None = (
        SlotKey(state["scope"], state["subject"], state["predicate"])
        if state and state["scope"] is not None
        else None
    )
    report.resumed = state is not None
    report.slots = int(state["slots"] or 0) if state else 0
    while True:
        if after is None:
            # The tenant after `tenant`, or the first one when none was started.
            async def next_tenant(tx: Tx, prev: str = tenant) -> list[str]:
                return await TimelineRepository.tenants(tx, prev, 1)

            nxt = await db.read_tx(next_tenant)
            if not nxt:
                break
            tenant = nxt[0]
        pending = await _slots_after(db, tenant, after)
        for start in range(0, len(pending), BATCH):
            keys = pending[start : start + BATCH]

            async def batch(tx: Tx, t: str = tenant, ks: list[SlotKey] = keys) -> int:
                written = await TimelineRepository.rebuild(tx, t, ks)
                await _mark(tx, t, ks[-1], len(ks), report.slots, done=False)
                return written

            report.segments += await db.write_tx(batch)
            report.slots += len(keys)
            if progress is not None:
                progress(len(keys))

        async def tenant_done(tx: Tx, t: str = tenant) -> None:
            await _mark(tx, t, None, 0, report.slots, done=False)

        await db.write_tx(tenant_done)
        after = None

    async def finish(tx: Tx) -> None:
        await _mark(tx, tenant, None, 0, report.slots, done=True)

    await db.write_tx(finish)
    return report


async def _mark(
    tx: Tx, tenant: str, last: SlotKey | None, n: int, total: int, *, done: bool
) -> None:
    await BackfillRepository.mark(tx, RULE_VERSION, tenant, last, total + n, done=done)


async def _slots_after(db: Database, tenant: str, after: SlotKey | None) -> list[SlotKey]:
    async def work(tx: Tx) -> list[SlotKey]:
        return await TimelineRepository.slots(tx, tenant)

    keys = await db.read_tx(work)
    return keys if after is None else [k for k in keys if k > after]


async def rebuild_tenant(
    db: Database, tenant: str, progress: Callable[[int], None] | None = None
) -> BackfillReport:
    """Rebuild every slot of one tenant (a store loaded behind the service's back, as the
    benchmarks do, or a repair); not recorded as the store-wide backfill."""
    report = BackfillReport()
    pending = await _slots_after(db, tenant, None)
    for start in range(0, len(pending), BATCH):
        keys = pending[start : start + BATCH]

        async def batch(tx: Tx, ks: list[SlotKey] = keys) -> int:
            return await TimelineRepository.rebuild(tx, tenant, ks)

        report.segments += await db.write_tx(batch)
        report.slots += len(keys)
        if progress is not None:
            progress(len(keys))
    return report
