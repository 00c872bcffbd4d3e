"""What the purge's batches do not reach: what was done *for* the forgotten user.

The batches follow the user's episodes. A session token serving the user acts under a label
naming them (``<role>:<key> for <user>``, services/access/session_tokens.py), and what it did
is theirs without citing an episode: procedures it wrote (an upsert in their own scope, the
practice of their sessions), and audit events whose reasons and snapshots quote them (a denied
request naming their scopes, a todo's close reason, a memo's caption). When the purge finishes:

* the user's own procedures go (their scope's, those the token wrote that no one else's
  episode evidences, and those learned from practice that the purge left with no evidence:
  their steps are tool calls of forgotten sessions), with their audit content;
* the token's audit events keep who (the key, the user a stand-in), when and which action,
  no content: the same redaction as events about what was deleted (audit.redact);
* what it did to others' memories that survive (a fact it wrote that others support, a fact
  or todo it retracted or closed) names the stand-in and keeps no reason of theirs.
"""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Tx
from graph_memory.repositories.forget import ForgetRepository as Repo
from graph_memory.services.access.session_tokens import acting_for
from graph_memory.services.forget.purge import REASON

__all__ = ["STAND_IN", "scrub_acted_for"]

# Who a redacted event's token served, once they are forgotten.
STAND_IN = " for [forgotten]"


async def scrub_acted_for(
    tx: Tx, tenant: str, user_id: str, before: datetime, now: datetime
) -> tuple[int, int]:
    """Returns (procedures deleted, audit events redacted)."""
    label = acting_for(user_id)
    procedures = await Repo.user_procedures(tx, tenant, user_id, label, before, REASON)
    redacted = await Repo.redact_audit(tx, tenant, procedures, now)
    redacted += await Repo.redact_acted_for(tx, tenant, user_id, label, STAND_IN, before, now)
    await Repo.scrub_acted_for_marks(tx, tenant, user_id, label, STAND_IN)
    return len(procedures), redacted
