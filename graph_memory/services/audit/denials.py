"""Every denial is audited, but a denial loop cannot flood the audit log.

A FORBIDDEN answer (a role calling what it may not) records an ``access_denied`` audit event
naming the caller, the field and the reason. Per (tenant, key, field) at most one event is
written per ``window`` seconds; the denials in between are counted and the next event says how
many there were, so an agent stuck retrying a forbidden call writes one event a minute, not
thousands, and nothing is lost from the count.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict

from graph_memory.domain import Principal, utcnow
from graph_memory.errors import StoreUnavailable
from graph_memory.repositories.audit import AuditRepository
from graph_memory.services.audit.events import event

__all__ = ["DenialAudit"]

log = logging.getLogger("graph_memory.denials")

ACTION = "access_denied"


class DenialAudit:
    def __init__(
        self, repo: AuditRepository, window: float = 60.0, max_tracked: int = 10_000
    ) -> None:
        self.repo = repo
        self.window = window
        self.max_tracked = max_tracked
        # (tenant, key id, field) -> (monotonic time of the last event, denials since)
        self._last: OrderedDict[tuple[str, str, str], tuple[float, int]] = OrderedDict()

    async def denied(self, principal: Principal, field: str, reason: str) -> bool:
        """Record the denial (True) or count it toward the next event (False). A store outage
        is logged, not raised: the caller has its answer already."""
        key = (principal.tenant, principal.key_id, field)
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last[0] < self.window:
            self._last[key] = (last[0], last[1] + 1)
            return False
        since = last[1] if last is not None else 0
        self._last[key] = (now, 0)
        self._last.move_to_end(key)
        while len(self._last) > self.max_tracked:
            self._last.popitem(last=False)
        note = f" ({since} more denied since the last event)" if since else ""
        try:
            await self.repo.record(
                principal.tenant,
                [event(principal, ACTION, "operation", field, utcnow(), reason=reason + note)],
            )
        except StoreUnavailable:
            log.warning("denial of %s to %s not audited: store unavailable", field, principal.actor)
            return False
        return True
