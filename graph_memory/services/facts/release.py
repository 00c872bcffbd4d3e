"""A candidate a higher tier held back is judged again when that tier's version stops being
served.

Corroboration never promotes a candidate over a higher tier's served version of another value
(fact/_outranked): a user said Rome, the agent inferred Berlin in three sessions, Berlin
waits. When a decision ends the Rome version (a retraction, a reviewer's rejection), nothing
holds Berlin back any more: its evidence already spans the threshold, so it is promoted in the
same transaction, from that moment, as its next corroboration or consolidation's `PROMOTION`
would have done later. A candidate another version still holds, or of the ended value
(never held back by it), stays waiting.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.domain import Principal
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.services.audit import events as audit
from graph_memory.services.facts.rows import premise_superseded

__all__ = ["Released", "release_held"]


@dataclass(frozen=True)
class Released:
    """The audit events of what the release changed, and the versions whose slot timeline
    changed with it (the promoted candidates and what their promotion ended)."""

    events: list[dict[str, Any]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)


async def release_held(
    tx: Tx,
    principal: Principal,
    policy: TenantPolicy,
    ended: str,
    waiting: dict[str, str],
    now: datetime,
) -> Released:
    """The candidates ``waiting`` that the version ``ended`` held back (FactRepository.held_back,
    asked before it ended), promoted when their evidence spans the tenant's threshold and no
    other version still holds them; call it under the slot's lock, once the version ended."""
    tenant = principal.tenant
    if not waiting:
        return Released()
    # A tenant-scope fact holds inferences of narrower scopes too: their writers are held off
    # while they are judged (the caller holds the ended version's scope).
    await WriteLocks.scopes(tx, tenant, set(waiting.values()))
    # The one promotion rule (fact/recompute_confidence): the threshold, and no other higher
    # tier still holding the slot.
    rows = await FactRepository.recompute_confidence(
        tx, tenant, sorted(waiting), policy.promote_sessions, now
    )
    promoted = [r for r in rows if r["status_before"] == "candidate" and r["status"] == "active"]
    events = [
        audit.event(
            principal,
            "promote",
            "fact",
            str(r["id"]),
            now,
            before={"status": "candidate"},
            after={"status": "active"},
            reason=f"corroborated by {r['sessions']} sessions (threshold "
            f"{policy.promote_sessions}); fact {ended} of a higher tier, which held it back, "
            "is no longer served",
        )
        for r in promoted
    ]
    # A promoted candidate ends the version it was written to supersede, if still open.
    closed = [
        premise_superseded(str(r["closed"]), str(r["id"]), now) for r in promoted if r["closed"]
    ]
    flagged = await FactRepository.flag_dependents(tx, tenant, closed, now)
    events += audit.flagged(principal, flagged, now, "superseded")
    return Released(
        events,
        [*(str(r["id"]) for r in promoted), *(str(r["closed"]) for r in promoted if r["closed"])],
    )
