"""Entity resolution's writes and reads: name vectors, merges within a scope, proposals."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["ResolutionRepository"]


class ResolutionRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def unembedded(self, tenant: str, scopes: list[str], limit: int) -> list[Record]:
        return await self.db.read(
            "resolution.unembedded",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "limit": limit},
        )

    async def set_embeddings(self, tenant: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            await self.db.write(
                "resolution.set_embeddings", {"tenant": require_tenant(tenant), "rows": rows}
            )

    async def scope_names(self, tenant: str, scope: str) -> list[Record]:
        """(key, name, facts) of the entities facts of ``scope`` are about (committed)."""
        return await self.db.read(
            "resolution.scope_names", {"tenant": require_tenant(tenant), "scope": scope}
        )

    async def proposals(self, tenant: str, scopes: list[str], limit: int) -> list[Record]:
        rows = await self.db.read(
            "resolution.proposals",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "limit": limit},
        )
        return [r["proposal"] for r in rows]

    @staticmethod
    async def facts_about(tx: Tx, tenant: str, merges: list[dict[str, Any]]) -> list[Record]:
        """(id, gone): the versions each merge of ``merges`` (scope, gone, keep, score) moves."""
        if not merges:
            return []
        return await tx.run(
            "resolution.facts_about_many", {"tenant": require_tenant(tenant), "merges": merges}
        )

    @staticmethod
    async def merge_facts(
        tx: Tx, tenant: str, merges: list[dict[str, Any]], run_id: str, now: datetime
    ) -> list[Record]:
        if not merges:
            return []
        return await tx.run(
            "resolution.merge_many",
            {"tenant": require_tenant(tenant), "merges": merges, "run_id": run_id, "now": now},
        )

    @staticmethod
    async def link_copies(tx: Tx, tenant: str, pairs: list[dict[str, str]]) -> list[Record]:
        """Chains and dependencies among versions carried over together, remade between
        their copies; returns the copies whose supersedes / superseded_by changed."""
        if not pairs:
            return []
        return await tx.run(
            "resolution.link_copies",
            {
                "tenant": require_tenant(tenant),
                "pairs": pairs,
                "copy_of": {p["id"]: p["copy"] for p in pairs},
            },
        )

    @staticmethod
    async def propose(
        tx: Tx, tenant: str, rows: list[dict[str, Any]], run_id: str, now: datetime
    ) -> list[Record]:
        if not rows:
            return []
        return await tx.run(
            "resolution.propose",
            {"tenant": require_tenant(tenant), "rows": rows, "run_id": run_id, "now": now},
        )

    @staticmethod
    async def undo(tx: Tx, tenant: str, run_id: str) -> None:
        await tx.run("resolution.undo", {"tenant": require_tenant(tenant), "run_id": run_id})
