"""Audit events: written inside the transaction whose change they describe."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_tenant

__all__ = ["AuditRepository"]


class AuditRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    async def record_in_tx(tx: Tx, tenant: str, events: list[dict[str, Any]]) -> None:
        if events:
            await tx.run("audit.record", {"tenant": require_tenant(tenant), "events": events})

    async def record(self, tenant: str, events: list[dict[str, Any]]) -> None:
        if events:
            await self.db.write(
                "audit.record", {"tenant": require_tenant(tenant), "events": events}
            )

    async def list(
        self,
        tenant: str,
        *,
        actor: str | None,
        target: str | None,
        action: str | None,
        start: datetime | None,
        end: datetime | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[Record]:
        rows = await self.db.read(
            "audit.list",
            {
                "tenant": require_tenant(tenant),
                "actor": actor,
                "target": target,
                "action": action,
                "from": start,
                "to": end,
                "after_at": after[0] if after else None,
                "after_id": after[1] if after else None,
                "limit": limit,
            },
        )
        return [r["event"] for r in rows]
