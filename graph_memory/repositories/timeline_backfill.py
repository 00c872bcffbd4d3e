"""Progress of the timeline backfill: where it stopped, so an interrupted run resumes."""

from __future__ import annotations

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories.timeline import SlotKey

__all__ = ["BackfillRepository"]


class BackfillRepository:
    @staticmethod
    async def state(db: Database, rule: int) -> Record | None:
        rows = await db.read("timeline.backfill_get", {"rule": rule})
        return rows[0] if rows else None

    @staticmethod
    async def mark(
        tx: Tx, rule: int, tenant: str, last: SlotKey | None, slots: int, *, done: bool
    ) -> None:
        await tx.run(
            "timeline.backfill_set",
            {
                "rule": rule,
                "done": done,
                "tenant": tenant,
                "scope": last.scope if last else None,
                "subject": last.subject if last else None,
                "predicate": last.predicate if last else None,
                "slots": slots,
            },
        )
