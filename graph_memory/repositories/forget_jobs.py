"""Forget jobs: the marker of phase 1 and the leased, resumable purge of phase 2."""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import Principal
from graph_memory.repositories._scope import require_tenant

__all__ = ["ForgetJobRepository"]


class ForgetJobRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- inside a write transaction -------------------------------------------------------
    @staticmethod
    async def user_key(tx: Tx, tenant: str, user_id: str) -> tuple[str | None, str]:
        """The contributor key ``user_id`` names now (None: none) and the tenant's receipt
        salt; under the tenant lock."""
        rows = await tx.run(
            "forget.user_key", {"tenant": require_tenant(tenant), "user_id": user_id}
        )
        key = rows[0]["key"]
        return (str(key) if key else None), str(rows[0]["salt"])

    @staticmethod
    async def mark(tx: Tx, tenant: str, key: str, now: datetime, promote_sessions: int) -> None:
        await tx.run(
            "forget.mark",
            {
                "tenant": require_tenant(tenant),
                "key": key,
                "now": now,
                "promote_sessions": promote_sessions,
            },
        )

    @staticmethod
    async def stop_ingest(tx: Tx, tenant: str, user_id: str, now: datetime) -> None:
        await tx.run(
            "forget.stop_ingest",
            {"tenant": require_tenant(tenant), "user_id": user_id, "now": now},
        )

    @staticmethod
    async def open_job(tx: Tx, tenant: str, receipt: str) -> str | None:
        rows = await tx.run(
            "forget.job_open", {"tenant": require_tenant(tenant), "receipt": receipt}
        )
        return str(rows[0]["id"]) if rows else None

    @staticmethod
    async def create(
        tx: Tx,
        tenant: str,
        job_id: str,
        receipt: str,
        user_id: str,
        contributors: list[str],
        actor: Principal,
        now: datetime,
    ) -> None:
        await tx.run(
            "forget.job_create",
            {
                "actor_role": actor.role.value,
                "actor_key": actor.key_id,
                "actor_name": actor.name,
                "tenant": require_tenant(tenant),
                "id": job_id,
                "receipt": receipt,
                "user_id": user_id,
                "contributors": contributors,
                "now": now,
            },
        )

    @staticmethod
    async def join(
        tx: Tx, tenant: str, job_id: str, contributors: list[str], now: datetime
    ) -> None:
        await tx.run(
            "forget.job_join",
            {
                "tenant": require_tenant(tenant),
                "id": job_id,
                "contributors": contributors,
                "now": now,
            },
        )

    @staticmethod
    async def claim(
        tx: Tx, tenant: str, job_id: str, owner: str, now: datetime, until: datetime
    ) -> bool:
        rows = await tx.run(
            "forget.job_claim",
            {
                "tenant": require_tenant(tenant),
                "id": job_id,
                "owner": owner,
                "now": now,
                "until": until,
            },
        )
        return bool(rows)

    @staticmethod
    async def get_in_tx(tx: Tx, tenant: str, job_id: str) -> Record | None:
        rows = await tx.run("forget.job_get", {"tenant": require_tenant(tenant), "id": job_id})
        return rows[0]["job"] if rows else None

    @staticmethod
    async def progress(
        tx: Tx,
        tenant: str,
        job_id: str,
        owner: str,
        phase: str,
        counts: str,
        now: datetime,
        until: datetime,
        predicates: list[str] | None = None,
    ) -> bool:
        rows = await tx.run(
            "forget.job_progress",
            {
                "predicates": predicates or [],
                "tenant": require_tenant(tenant),
                "id": job_id,
                "owner": owner,
                "phase": phase,
                "counts": counts,
                "now": now,
                "until": until,
            },
        )
        return bool(rows)

    @staticmethod
    async def done(
        tx: Tx, tenant: str, job_id: str, owner: str, counts: str, now: datetime
    ) -> bool:
        rows = await tx.run(
            "forget.job_done",
            {
                "tenant": require_tenant(tenant),
                "id": job_id,
                "owner": owner,
                "counts": counts,
                "now": now,
            },
        )
        return bool(rows)

    # -- reads ------------------------------------------------------------------------------
    async def get(self, tenant: str, job_id: str) -> Record | None:
        rows = await self.db.read(
            "forget.job_get", {"tenant": require_tenant(tenant), "id": job_id}
        )
        return rows[0]["job"] if rows else None

    async def due(self, now: datetime) -> list[tuple[str, str]]:
        """(tenant, job id) of purges no runner holds, across tenants (the resumer's scan)."""
        rows = await self.db.read("forget.jobs_due", {"now": now})
        return [(str(r["tenant"]), str(r["id"])) for r in rows]
