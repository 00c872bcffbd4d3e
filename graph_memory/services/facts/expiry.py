"""TTL expiry: facts whose ``expires_at`` has passed are demoted, not served as truth.

Reads already hide a fact once ``expires_at <= asOf``; the sweep makes it explicit and durable:
status 'expired', needs-verification with the reason, dependents flagged, each expiry audited
('expire'). It runs per tenant in batches (one transaction each, under the tenant's write
lock), so a sweep of a large backlog never holds one huge transaction; a crash between
batches leaves every fact either fully expired or untouched, and the next sweep resumes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.domain import Principal, require_aware, utcnow
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.audit import events as audit

__all__ = ["ExpiryReport", "ExpiryService"]

BATCH = 1_000
SWEEP_ACTOR = "system:expiry"


@dataclass(frozen=True)
class ExpiryReport:
    tenant: str
    expired: int
    dependents_flagged: int
    at: datetime


class ExpiryService:
    def __init__(self, repo: TrustRepository, batch: int = BATCH) -> None:
        self.repo = repo
        self.batch = batch

    async def sweep(
        self, tenant: str, principal: Principal | None = None, now: datetime | None = None
    ) -> ExpiryReport:
        """Expire the tenant's facts with ``expires_at <= now`` (default: the server clock).
        ``principal`` is the admin who asked; None means the scheduled/CLI sweep (system)."""
        due = require_aware(now, "now") or utcnow()
        expired = flagged = 0
        # The moment reported: when the expiries were stamped (the last batch's clock, which
        # its audit events carry), or the due moment when nothing was due.
        at = due
        while True:
            n, f, stamped = await self.repo.db.write_tx(
                lambda tx: self._batch(tx, tenant, principal, due)
            )
            expired += n
            flagged += f
            if n:
                at = stamped
            if n < self.batch:
                return ExpiryReport(
                    tenant=tenant, expired=expired, dependents_flagged=flagged, at=at
                )

    async def sweep_all(self, now: datetime | None = None) -> list[ExpiryReport]:
        """Every tenant with facts due (the CLI's scheduled sweep)."""
        at = require_aware(now, "now") or utcnow()
        return [await self.sweep(t, None, at) for t in await self.repo.tenants_due(at)]

    async def _batch(
        self, tx: Tx, tenant: str, principal: Principal | None, due: datetime
    ) -> tuple[int, int, datetime]:
        await WriteLocks.everything(tx, tenant)
        # Facts due by the sweep's moment, the changes stamped with the clock read under the
        # locks: after what the scopes' writers and readers already fixed (read_basis.py), as
        # every writer stamps. A sweep's one moment, reused batch after batch and tenant after
        # tenant, could land a change before a moment a read already answered.
        now = tx.clock(utcnow())
        rows = await TrustRepository.expire_due(tx, tenant, due, now, self.batch)
        if not rows:
            return 0, 0, now
        who: dict[str, Any] = (
            {} if principal is not None else {"actor": SWEEP_ACTOR, "actor_type": "system"}
        )
        events = [
            audit.event(
                principal,
                "expire",
                "fact",
                r["id"],
                now,
                before={"status": r["status_before"]},
                after={"status": "expired", "needs_verification": True},
                confidence_delta=0.0,
                reason=f"TTL of {r['ttl_days']} days elapsed at {r['expires_at']}",
                **who,
            )
            for r in rows
        ]
        flagged = await FactRepository.flag_dependents(
            tx,
            tenant,
            [
                {
                    "id": r["id"],
                    "reason": f"premise {r['id']} expired at {r['expires_at']} (TTL elapsed)",
                }
                for r in rows
            ],
            now,
        )
        events += audit.flagged(principal, flagged, now, "expired", **who)
        await AuditRepository.record_in_tx(tx, tenant, events)
        return len(rows), len(flagged), now
