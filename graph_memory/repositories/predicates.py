"""The predicate registry: which predicates a tenant declared single- or many-valued."""

from __future__ import annotations

from graph_memory.db import Database
from graph_memory.repositories._scope import require_tenant

__all__ = ["PredicateRepository"]


class PredicateRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def registered(self, tenant: str, scopes: frozenset[str] | None = None) -> dict[str, str]:
        """Predicate name -> cardinality ('one' | 'many') as registered by the tenant;
        ``scopes``: only those a fact in them uses (a session token's)."""
        rows = await self.db.read(
            "predicate.list",
            {
                "tenant": require_tenant(tenant),
                "scopes": sorted(scopes) if scopes is not None else None,
            },
        )
        return {str(r["name"]): str(r["cardinality"]) for r in rows}
