"""The speaker backfill's reads and writes: episodes in id order, their speaker keys, and
where the backfill stopped (so an interrupted run resumes)."""

from __future__ import annotations

from typing import Any

from graph_memory.db import Database, Record, Tx

__all__ = ["SpeakerBackfillRepository"]


class SpeakerBackfillRepository:
    @staticmethod
    async def state(db: Database, rule: int, of: str) -> Record | None:
        rows = await db.read("episode.speaker_backfill_get", {"rule": rule, "of": of})
        return rows[0] if rows else None

    @staticmethod
    async def batch(db: Database, after: str, tenant: str | None, limit: int) -> list[Record]:
        return await db.read(
            "episode.speaker_batch", {"after": after, "tenant": tenant, "limit": limit}
        )

    @staticmethod
    async def apply(
        tx: Tx,
        rows: list[dict[str, Any]],
        mark: tuple[int, str],
        after: str,
        episodes: int,
        *,
        done: bool,
    ) -> None:
        """Store these speakers and the progress past them in one transaction."""
        if rows:
            await tx.run("episode.set_speakers", {"rows": rows})
        rule, of = mark
        await tx.run(
            "episode.speaker_backfill_set",
            {"rule": rule, "of": of, "done": done, "after": after, "episodes": episodes},
        )
