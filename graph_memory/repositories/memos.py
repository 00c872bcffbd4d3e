"""Events and todos (Memo nodes) extracted from sessions, with their episode provenance."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["MemoRepository"]


class MemoRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    async def create_in_tx(
        tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime
    ) -> list[Record]:
        if not rows:
            return []
        return await tx.run(
            "memo.create", {"tenant": require_tenant(tenant), "rows": rows, "now": now}
        )

    async def get(self, tenant: str, ids: list[str]) -> list[Record]:
        return await self.db.read("memo.get", {"tenant": require_tenant(tenant), "ids": ids})

    async def page(
        self,
        tenant: str,
        scopes: list[str],
        *,
        kinds: list[str],
        statuses: list[str],
        now: datetime,
        limit: int,
    ) -> list[Record]:
        return await self.db.read(
            "memo.list",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "kinds": kinds,
                "statuses": statuses,
                "now": now,
                "limit": limit,
            },
        )

    async def search(
        self,
        tenant: str,
        scopes: list[str],
        *,
        vector: list[float],
        lucene: str | None,
        k: int,
        kinds: list[str],
        statuses: list[str],
        now: datetime,
    ) -> list[Record]:
        return await self.db.read(
            "memo.search",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "vector": vector,
                "lucene": lucene,
                "k": k,
                "kinds": kinds,
                "statuses": statuses,
                "now": now,
            },
        )

    @staticmethod
    async def close_in_tx(
        tx: Tx,
        tenant: str,
        memo_id: str,
        now: datetime,
        actor: str,
        acted_for: str | None,
        reason: str | None,
    ) -> Record | None:
        rows = await tx.run(
            "memo.close",
            {
                "tenant": require_tenant(tenant),
                "id": memo_id,
                "now": now,
                "actor": actor,
                "acted_for": acted_for,
                "reason": reason,
            },
        )
        return rows[0] if rows else None
