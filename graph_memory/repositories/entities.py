"""Entities: the things facts are about, one per (tenant, normalised name)."""

from __future__ import annotations

from graph_memory.db import Database, Record
from graph_memory.repositories._scope import require_tenant

__all__ = ["EntityRepository"]


class EntityRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tenant: str, ids: list[str]) -> dict[str, Record]:
        rows = await self.db.read("entity.get", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["entity"]["id"]: r["entity"] for r in rows}

    async def by_key(self, tenant: str, key: str) -> Record | None:
        rows = await self.db.read("entity.by_key", {"tenant": require_tenant(tenant), "key": key})
        return rows[0]["entity"] if rows else None
