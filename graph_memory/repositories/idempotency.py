"""Client-supplied idempotency keys: a replayed batch returns its first result."""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_tenant

__all__ = ["IdempotencyRepository"]


class IdempotencyRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tenant: str, key: str) -> Record | None:
        rows = await self.db.read("idempotency.get", {"tenant": require_tenant(tenant), "key": key})
        return rows[0] if rows else None

    @staticmethod
    async def put_in_tx(
        tx: Tx,
        tenant: str,
        key: str,
        request_hash: str,
        result: str,
        now: datetime,
        episode_ids: list[str] | None = None,
    ) -> None:
        """``episode_ids``: what the batch cited (the record goes when their contributor is
        forgotten)."""
        await tx.run(
            "idempotency.put",
            {
                "tenant": require_tenant(tenant),
                "key": key,
                "request_hash": request_hash,
                "result": result,
                "episode_ids": episode_ids or [],
                "now": now,
            },
        )

    @staticmethod
    async def get_in_tx(tx: Tx, tenant: str, key: str) -> Record | None:
        rows = await tx.run("idempotency.get", {"tenant": require_tenant(tenant), "key": key})
        return rows[0] if rows else None
