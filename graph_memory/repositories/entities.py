"""Entities: the things facts are about, one per (tenant, normalised name)."""

from __future__ import annotations

from graph_memory.db import Database
from graph_memory.repositories._scope import require_tenant
from graph_memory.versions import EntityRef

__all__ = ["EntityRepository"]


class EntityRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(
        self, tenant: str, ids: list[str], scopes: frozenset[str] | None = None
    ) -> dict[str, EntityRef]:
        """By id; ``scopes``: only entities a fact in them is about (a session token's)."""
        rows = await self.db.read(
            "entity.get", {"tenant": require_tenant(tenant), "ids": ids, "scopes": _list(scopes)}
        )
        return {r["entity"]["id"]: EntityRef.from_row(r["entity"]) for r in rows}

    async def by_key(
        self, tenant: str, key: str, scopes: frozenset[str] | None = None
    ) -> EntityRef | None:
        rows = await self.db.read(
            "entity.by_key",
            {"tenant": require_tenant(tenant), "key": key, "scopes": _list(scopes)},
        )
        return EntityRef.from_row(rows[0]["entity"]) if rows else None


def _list(scopes: frozenset[str] | None) -> list[str] | None:
    return sorted(scopes) if scopes is not None else None
