"""The predicate registry: which predicates a tenant declared single- or many-valued."""

from __future__ import annotations

from graph_memory.db import Database
from graph_memory.repositories._scope import require_tenant

__all__ = ["PredicateRepository"]


class PredicateRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def registered(self, tenant: str) -> dict[str, str]:
        """Predicate name -> cardinality ('one' | 'many') as registered by the tenant."""
        rows = await self.db.read("predicate.list", {"tenant": require_tenant(tenant)})
        return {str(r["name"]): str(r["cardinality"]) for r in rows}
