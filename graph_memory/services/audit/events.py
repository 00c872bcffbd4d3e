"""Audit events: who, when, what it was before, and the confidence delta."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from typing import Any

from graph_memory.domain import ACTED_FOR_FIELDS, Principal

__all__ = ["event", "flagged", "snapshot"]

# Fields that describe a fact/episode without its vectors; what `before`/`after` keep.
# Who wrote, retracted or closed a memory (and the user a session token did it for) is not
# copied into the state an event snapshots: the event's own actor says who acted, and a forget
# scrubs the actor fields it finds by `*_for` (forget/acted_for_marks), not copies of them in
# other actors' events.
_SNAPSHOT_SKIP = frozenset(
    {"embedding", "ft_scope"}
    | {f for fields in ACTED_FOR_FIELDS.values() for pair in fields for f in pair}
) - {"actor"}


def snapshot(node: dict[str, Any] | None) -> str | None:
    if node is None:
        return None
    return json.dumps(
        {k: v for k, v in node.items() if k not in _SNAPSHOT_SKIP}, default=str, sort_keys=True
    )


def event(
    principal: Principal | None,
    action: str,
    target_type: str,
    target_id: str,
    at: datetime,
    *,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    confidence_delta: float | None = None,
    reason: str | None = None,
    actor: str | None = None,
    actor_type: str | None = None,
) -> dict[str, Any]:
    return {
        "id": f"aud_{uuid.uuid4().hex}",
        # ISO text: written as datetime(ev.at) server-side (cheaper than the driver's encoding).
        "at": at.isoformat(),
        "actor": actor or (principal.actor if principal else "system"),
        # The user a session token acted for (its actor ends " for <user>"): a forget finds
        # the events by this range-indexed field (schema 110), not by the actor's suffix.
        "acted_for": principal.user_id if principal is not None and actor is None else None,
        "actor_type": actor_type or (_actor_type(principal) if principal else "system"),
        "action": action,
        "target_type": target_type,
        "target_id": target_id,
        "before": snapshot(before),
        "after": snapshot(after),
        "confidence_delta": confidence_delta,
        "reason": reason,
    }


def _actor_type(principal: Principal) -> str:
    # The spec's actor kinds: user | system | consolidation | admin.
    return "admin" if principal.role.value == "admin" else "user"


def flagged(
    principal: Principal | None,
    rows: list[dict[str, Any]],
    at: datetime,
    cause: str,
    *,
    name_premise: bool = True,
    actor: str | None = None,
    actor_type: str | None = None,
) -> list[dict[str, Any]]:
    """One ``flag_needs_verification`` event per dependent whose premise changed.

    The reason reads "premise <id> <cause>"; with ``name_premise=False`` just "premise <cause>",
    for premises that are being excised and must not be named again.
    """
    return [
        event(
            principal,
            "flag_needs_verification",
            "fact",
            r["id"],
            at,
            reason=f"premise {r['premise']} {cause}" if name_premise else f"premise {cause}",
            actor=actor,
            actor_type=actor_type,
        )
        for r in rows
    ]
