"""Who may end a fact: a role's tier cap against the fact's tier, one rule for every way a
fact is ended by a person (retractFact, rejectFact of a flagged active fact).

A refusal is audited ('tier_conflict', so it shows in alerts) in the caller's transaction,
and returned rather than raised: raising would roll the audit event back with the rest, and a
refused override must stay on record.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.domain import TIER_RANK, Principal, Tier
from graph_memory.errors import TierConflict
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.services.audit import events as audit

__all__ = ["refuse_override"]


async def refuse_override(
    tx: Tx,
    principal: Principal,
    policy: TenantPolicy,
    before: dict[str, Any],
    now: datetime,
    verb: str,
) -> TierConflict | None:
    """None when ``principal``'s role may ``verb`` (retract, reject) the fact as it is
    (``before``); else the refusal, already audited."""
    cap = policy.role_caps[principal.role]
    if TIER_RANK[cap] >= TIER_RANK[Tier(before["tier"])]:
        return None
    await AuditRepository.record_in_tx(
        tx,
        principal.tenant,
        [
            audit.event(
                principal,
                "tier_conflict",
                "fact",
                str(before["id"]),
                now,
                reason=f"{cap.value} cannot {verb} a {before['tier']}-tier fact",
            )
        ],
    )
    return TierConflict(f"{cap.value} tier cannot {verb} a {before['tier']}-tier fact")
