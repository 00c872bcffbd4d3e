"""Procedure versions keyed by (scope, intent, role) and their outcome evidence."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant
from graph_memory.repositories.locks import WriteLocks

__all__ = ["ProcedureRepository"]


class ProcedureRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- inside a write transaction -------------------------------------------------------
    @staticmethod
    async def lock_tenant(tx: Tx, tenant: str) -> None:
        await WriteLocks.tenant(tx, tenant)

    @staticmethod
    async def current(tx: Tx, tenant: str, scope: str, intent: str, role: str) -> Record | None:
        rows = await tx.run(
            "procedure.current",
            {"tenant": require_tenant(tenant), "scope": scope, "intent": intent, "role": role},
        )
        return rows[0]["procedure"] if rows else None

    @staticmethod
    async def create(tx: Tx, tenant: str, row: dict[str, Any], now: datetime) -> Record:
        rows = await tx.run(
            "procedure.create", {"tenant": require_tenant(tenant), "row": row, "now": now}
        )
        procedure: Record = rows[0]["procedure"]
        return procedure

    @staticmethod
    async def mark_learned(tx: Tx, tenant: str, procedure_id: str) -> None:
        await tx.run("procedure.mark_learned", {"tenant": tenant, "id": procedure_id})

    @staticmethod
    async def get_in_tx(tx: Tx, tenant: str, ids: list[str]) -> dict[str, Record]:
        rows = await tx.run("procedure.get", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["procedure"]["id"]: r["procedure"] for r in rows}

    @staticmethod
    async def add_evidence(
        tx: Tx, tenant: str, procedure_id: str, episode_id: str, success: bool, now: datetime
    ) -> bool:
        rows = await tx.run(
            "procedure.add_evidence",
            {
                "tenant": require_tenant(tenant),
                "id": procedure_id,
                "episode_id": episode_id,
                "success": success,
                "now": now,
            },
        )
        return bool(rows)

    @staticmethod
    async def recompute(
        tx: Tx,
        tenant: str,
        ids: list[str],
        *,
        promote_successes: int,
        demote_margin: int,
        demote_streak: int,
        now: datetime,
    ) -> list[Record]:
        if not ids:
            return []
        return await tx.run(
            "procedure.recompute",
            {
                "tenant": require_tenant(tenant),
                "ids": ids,
                "promote_successes": promote_successes,
                "demote_margin": demote_margin,
                "demote_streak": demote_streak,
                "now": now,
                # Every verdict told counts (procedure/_verdicts), whatever the clocks say.
                "as_of": None,
            },
        )

    # -- reads ------------------------------------------------------------------------------
    async def get(self, tenant: str, ids: list[str]) -> dict[str, Record]:
        rows = await self.db.read("procedure.get", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["procedure"]["id"]: r["procedure"] for r in rows}

    async def list(
        self,
        tenant: str,
        scopes: list[str],
        *,
        intent: str,
        role: str | None,
        statuses: list[str],
        as_of: datetime,
        limit: int,
    ) -> list[Record]:
        rows = await self.db.read(
            "procedure.list",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "intent": intent,
                "role": role,
                "statuses": statuses,
                "as_of": as_of,
                "limit": limit,
            },
        )
        return [r["procedure"] for r in rows]
