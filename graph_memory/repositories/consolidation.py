"""Consolidation runs: leases, the run record with its diff, the snapshots a rollback restores,
and the reads each step plans from. Every method runs inside the caller's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["ConsolidationRepository"]


class ConsolidationRepository:
    # -- leases and the run record ----------------------------------------------------------
    @staticmethod
    async def abandon_stale(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[str]:
        rows = await tx.run(
            "consolidation.stale",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )
        return [r["id"] for r in rows]

    @staticmethod
    async def claim(
        tx: Tx, tenant: str, scopes: list[str], run: dict[str, Any], now: datetime, until: datetime
    ) -> list[Record]:
        """Leases for ``scopes`` and the run node; returns the scopes held by other runs
        (empty when the claim succeeded)."""
        rows = await tx.run(
            "consolidation.claim",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "run": run,
                "now": now,
                "until": until,
            },
        )
        return [r for r in rows if r["held"]]

    @staticmethod
    async def release(tx: Tx, tenant: str, run_id: str) -> None:
        await tx.run("consolidation.release", {"tenant": require_tenant(tenant), "run_id": run_id})

    @staticmethod
    async def finish(
        tx: Tx,
        tenant: str,
        run_id: str,
        status: str,
        props: dict[str, Any],
        changes: list[dict[str, Any]],
        now: datetime,
    ) -> None:
        await tx.run(
            "consolidation.finish",
            {
                "tenant": require_tenant(tenant),
                "run_id": run_id,
                "status": status,
                "props": props,
                "changes": changes,
                "now": now,
            },
        )

    @staticmethod
    async def runs(
        tx: Tx, tenant: str, ids: list[str] | None, scope: str | None, limit: int
    ) -> list[Record]:
        return await tx.run(
            "consolidation.runs",
            {"tenant": require_tenant(tenant), "ids": ids, "scope": scope, "limit": limit},
        )

    # -- snapshots and rollback -------------------------------------------------------------
    @staticmethod
    async def snapshot(tx: Tx, tenant: str, run_id: str, ids: list[str]) -> None:
        if ids:
            await tx.run(
                "consolidation.snapshot",
                {"tenant": require_tenant(tenant), "run_id": run_id, "ids": ids},
            )

    @staticmethod
    async def restore(tx: Tx, tenant: str, run_id: str) -> list[Record]:
        return await tx.run(
            "consolidation.restore", {"tenant": require_tenant(tenant), "run_id": run_id}
        )

    @staticmethod
    async def mark_rolled_back(tx: Tx, tenant: str, run_id: str, now: datetime, actor: str) -> None:
        await tx.run(
            "consolidation.mark_rolled_back",
            {"tenant": require_tenant(tenant), "run_id": run_id, "now": now, "actor": actor},
        )

    # -- what the steps plan from -----------------------------------------------------------
    @staticmethod
    async def due_expiry(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        return await tx.run(
            "consolidation.due_expiry",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )

    @staticmethod
    async def expire(tx: Tx, tenant: str, ids: list[str], now: datetime) -> list[Record]:
        if not ids:
            return []
        return await tx.run(
            "consolidation.expire", {"tenant": require_tenant(tenant), "ids": ids, "now": now}
        )

    @staticmethod
    async def promotable(
        tx: Tx, tenant: str, scopes: list[str], now: datetime, promote_sessions: int
    ) -> list[str]:
        rows = await tx.run(
            "consolidation.promotable",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "now": now,
                "promote_sessions": promote_sessions,
            },
        )
        return [r["id"] for r in rows]

    @staticmethod
    async def duplicates(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        return await tx.run(
            "consolidation.duplicates",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )

    @staticmethod
    async def move_evidence(
        tx: Tx, tenant: str, moves: list[dict[str, str]], now: datetime
    ) -> None:
        if moves:
            params = {"tenant": require_tenant(tenant), "moves": moves, "now": now}
            await tx.run("consolidation.move_evidence", params)
            await tx.run("consolidation.mark_merged", params)

    @staticmethod
    async def contradictions(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        return await tx.run(
            "consolidation.contradictions",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )
