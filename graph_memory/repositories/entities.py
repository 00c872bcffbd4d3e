"""Entities: the things facts are about, one per (tenant, normalised name)."""

from __future__ import annotations

from graph_memory.db import Database
from graph_memory.repositories._scope import require_tenant
from graph_memory.versions import EntityRef

__all__ = ["EntityRepository"]


class EntityRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tenant: str, ids: list[str]) -> dict[str, EntityRef]:
        rows = await self.db.read("entity.get", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["entity"]["id"]: EntityRef.from_row(r["entity"]) for r in rows}

    async def by_key(self, tenant: str, key: str) -> EntityRef | None:
        rows = await self.db.read("entity.by_key", {"tenant": require_tenant(tenant), "key": key})
        return EntityRef.from_row(rows[0]["entity"]) if rows else None
