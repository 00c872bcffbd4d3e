"""Tenant policy, capacity eviction, alerts, the review queue and the TTL sweep."""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["TrustRepository"]


class TrustRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- tenant policy ----------------------------------------------------------------------
    async def get_policy(self, tenant: str) -> Record | None:
        rows = await self.db.read("tenant.policy_get", {"tenant": require_tenant(tenant)})
        return rows[0] if rows else None

    @staticmethod
    async def get_policy_in_tx(tx: Tx, tenant: str) -> Record | None:
        rows = await tx.run("tenant.policy_get", {"tenant": require_tenant(tenant)})
        return rows[0] if rows else None

    @staticmethod
    async def set_policy_in_tx(
        tx: Tx, tenant: str, policy: str, now: datetime, actor: str
    ) -> Record:
        rows = await tx.run(
            "tenant.policy_set",
            {"tenant": require_tenant(tenant), "policy": policy, "now": now, "actor": actor},
        )
        return rows[0]

    @staticmethod
    async def evict_over_capacity(
        tx: Tx,
        tenant: str,
        scopes: list[str],
        capacity: int,
        protect: list[str],
        now: datetime,
        actor: str,
        recency_days: float,
    ) -> list[Record]:
        return await tx.run(
            "tenant.policy_evict",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "capacity": capacity,
                "protect": protect,
                "now": now,
                "actor": actor,
                "recency_days": recency_days,
            },
        )

    # -- alerts -----------------------------------------------------------------------------
    async def alerts(
        self,
        tenant: str,
        actions: list[str],
        start: datetime | None,
        end: datetime | None,
        limit: int,
    ) -> list[Record]:
        rows = await self.db.read(
            "audit.alerts",
            {
                "tenant": require_tenant(tenant),
                "actions": actions,
                "from": start,
                "to": end,
                "limit": limit,
            },
        )
        return [r["event"] for r in rows]

    async def alert_counts(
        self, tenant: str, actions: list[str], start: datetime | None, end: datetime | None
    ) -> list[Record]:
        return await self.db.read(
            "audit.alert_counts",
            {"tenant": require_tenant(tenant), "actions": actions, "from": start, "to": end},
        )

    # -- review -----------------------------------------------------------------------------
    async def review_queue(
        self, tenant: str, scopes: list[str], now: datetime, limit: int
    ) -> list[Record]:
        return await self.db.read(
            "review.queue",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "now": now,
                "limit": limit,
            },
        )

    @staticmethod
    async def rival(tx: Tx, tenant: str, fact_id: str) -> Record | None:
        """The served version approving the flagged ``fact_id`` ends (review.rival), or None."""
        rows = await tx.run("review.rival", {"tenant": require_tenant(tenant), "id": fact_id})
        return rows[0]["rival"] if rows else None

    @staticmethod
    async def approve(
        tx: Tx,
        tenant: str,
        fact_id: str,
        now: datetime,
        actor: str,
        rival: str | None = None,
        reason: str | None = None,
    ) -> Record | None:
        """``rival``: the served version the approval turns down, with ``reason``
        (review.rival)."""
        rows = await tx.run(
            "review.approve",
            {
                "tenant": require_tenant(tenant),
                "id": fact_id,
                "now": now,
                "actor": actor,
                "rival": rival,
                "reason": reason,
            },
        )
        if not rows:
            return None
        # The version an approved candidate ended, and the one an approved flagged claim was
        # kept over (review.approve), read by the caller.
        return {
            **rows[0]["fact"],
            "closed": rows[0]["closed"],
            "turned_down": rows[0]["turned_down"],
        }

    @staticmethod
    async def reject(
        tx: Tx, tenant: str, fact_id: str, now: datetime, actor: str, reason: str | None
    ) -> Record | None:
        rows = await tx.run(
            "review.reject",
            {
                "tenant": require_tenant(tenant),
                "id": fact_id,
                "now": now,
                "actor": actor,
                "reason": reason,
            },
        )
        return rows[0]["fact"] if rows else None

    # -- TTL expiry -------------------------------------------------------------------------
    @staticmethod
    async def expire_due(
        tx: Tx, tenant: str, due: datetime, now: datetime, limit: int
    ) -> list[Record]:
        """Expire facts due by ``due``, the change stamped ``now``."""
        return await tx.run(
            "expiry.sweep",
            {"tenant": require_tenant(tenant), "due": due, "now": now, "limit": limit},
        )

    async def tenants_due(self, now: datetime) -> list[str]:
        """Operations only: tenant ids with facts due, for the all-tenant CLI sweep."""
        rows = await self.db.read("expiry.tenants", {"now": now})
        return [str(r["tenant"]) for r in rows]
