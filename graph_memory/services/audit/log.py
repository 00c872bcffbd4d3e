"""Reading the audit trail: the log itself and the alerts raised from it.

Analysts and admins only; agents act, they do not audit. Time ranges are half-open
``[from, to)`` on the event's time; the log pages newest first with an opaque cursor.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph_memory.db import Record
from graph_memory.domain import Principal, Role, require_aware
from graph_memory.errors import Forbidden, ValidationError
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.trust import TrustRepository

__all__ = ["ALERT_ACTIONS", "AlertReport", "AuditFilter", "AuditLogService"]

MAX_PAGE = 500
# Lower-tier writes that tried to override a higher tier: rejected and raised as alerts.
ALERT_ACTIONS = ("tier_conflict",)
_READERS = (Role.ANALYST, Role.ADMIN)


@dataclass(frozen=True)
class AuditFilter:
    actor: str | None = None  # an actor id ("agent:bot") or an actor type ("system")
    target: str | None = None
    action: str | None = None
    start: datetime | None = None
    end: datetime | None = None


@dataclass(frozen=True)
class AlertReport:
    total: int
    counts: list[Record]
    events: list[Record]


def _require_reader(principal: Principal) -> None:
    if principal.role not in _READERS:
        raise Forbidden(
            f"role {principal.role.value} may not read the audit log (analyst or admin)"
        )


def _range(start: datetime | None, end: datetime | None) -> tuple[datetime | None, datetime | None]:
    start, end = require_aware(start, "from"), require_aware(end, "to")
    if start is not None and end is not None and start >= end:
        raise ValidationError("from must be before to (half-open range)", field="from")
    return start, end


class AuditLogService:
    def __init__(self, audit: AuditRepository, trust: TrustRepository) -> None:
        self.audit = audit
        self.trust = trust

    async def list(
        self,
        principal: Principal,
        flt: AuditFilter,
        first: int,
        after: tuple[datetime, str] | None,
    ) -> list[Record]:
        """Events matching ``flt``, newest first; returns first+1 rows so callers can page.
        Raises Forbidden for agents, ValidationError for a bad page size or range."""
        _require_reader(principal)
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first must be in 1..{MAX_PAGE}", field="first")
        start, end = _range(flt.start, flt.end)
        return await self.audit.list(
            principal.tenant,
            actor=flt.actor or None,
            target=flt.target or None,
            action=flt.action or None,
            start=start,
            end=end,
            after=after,
            limit=first + 1,
        )

    async def alerts(
        self, principal: Principal, start: datetime | None, end: datetime | None, first: int
    ) -> AlertReport:
        """Tier conflicts in ``[start, end)``: counts per (action, actor) and the latest
        ``first`` events. Raises Forbidden for agents."""
        _require_reader(principal)
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first must be in 1..{MAX_PAGE}", field="first")
        start, end = _range(start, end)
        actions = list(ALERT_ACTIONS)
        counts = await self.trust.alert_counts(principal.tenant, actions, start, end)
        events = await self.trust.alerts(principal.tenant, actions, start, end, first)
        return AlertReport(total=sum(int(c["count"]) for c in counts), counts=counts, events=events)
