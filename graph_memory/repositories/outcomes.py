"""Outcome reports: what a retrieved memory led to, on the memory (counts) and as an edge
from the episode it happened in."""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Record, Tx
from graph_memory.repositories._scope import require_tenant

__all__ = ["OutcomeRepository"]


class OutcomeRepository:
    @staticmethod
    async def report(
        tx: Tx,
        tenant: str,
        ids: list[str],
        outcome: str,
        episode_id: str,
        now: datetime,
        actor: str,
        outranking: list[str],
    ) -> list[Record]:
        """One row per id (``recorded`` false for an unknown one; ``counted`` false for a
        memory whose tier is among ``outranking``); none for an unknown episode."""
        return await tx.run(
            "outcome.report",
            {
                "tenant": require_tenant(tenant),
                "ids": ids,
                "outcome": outcome,
                "episode_id": episode_id,
                "now": now,
                "actor": actor,
                "outranking": outranking,
            },
        )
