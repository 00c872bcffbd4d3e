"""A version's lifecycle as it stood at a past moment.

Versions are immutable but for their lifecycle (activated, flagged, verified, superseded,
retracted, rejected, expired), whose every change is appended to the version's change log
(``temporal/lifecycle.py``). A read "as of T" shows each version as it was believed at T: a
version superseded last week is shown current in an answer as of last month. Evidence and
confidence as they stood come from the evidence edges' link times (``held_at``).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import as_datetime, noisy_or, session_key
from graph_memory.temporal.lifecycle import life_at
from graph_memory.versions import Evidence, FactVersion

__all__ = ["as_believed_at", "confidence_at", "held_at", "procedure_as_of"]

# Detail fields of each ending, cleared when the ending came after the moment asked about.
_DETAILS: dict[str, tuple[str, ...]] = {
    "superseded_at": ("superseded_at", "superseded_by", "successor_valid_from"),
    "retracted_at": (
        "retracted_at",
        "retracted_by",
        "retract_reason",
        "evicted_at",
        "merged_into",
    ),
    "rejected_at": ("rejected_at", "rejected_by", "reject_reason"),
    "expired_at": ("expired_at",),
}


def _after(value: datetime | None, at: datetime) -> bool:
    return value is not None and value > at


def as_believed_at(v: FactVersion, at: datetime) -> FactVersion:
    """``v`` with the lifecycle it had at ``at``: its change log folded up to then."""
    then, now = life_at(v.changes, at), life_at(v.changes)
    if then == now:
        return v
    out: dict[str, Any] = {
        "status": then.status,
        "activated_at": then.activated_at,
        "needs_verification": then.flagged,
        "flagged_at": then.flagged_at,
        "verified_at": then.verified_at,
    }
    for moment, fields in _DETAILS.items():
        if getattr(then, moment) is None:
            out.update(dict.fromkeys(fields))
    if not then.flagged or then.flagged_at != now.flagged_at:
        # The reason on record is the latest flag's: not the one raised then, if any.
        out["verification_reason"] = None
    return dataclasses.replace(v, **out)


def held_at(evidence: list[Evidence], at: datetime) -> list[Evidence]:
    """The evidence a fact had at ``at``: links made later (a corroboration after the moment
    asked about) were not yet part of why it was believed."""
    return [e for e in evidence if not _after(e.linked_at, at)]


def confidence_at(evidence: list[Evidence], at: datetime, cap: float, current: float) -> float:
    """A fact's confidence as it stood at ``at``: the same noisy-OR over the evidence it held
    then. Confidence is derived from the evidence edges, so no log is needed, and a forgotten
    contributor's share is gone from past reads too (their edges are gone)."""
    held = held_at(evidence, at)
    if len(held) == len(evidence):
        return current
    by_session: dict[str, list[float]] = {}
    for e in held:
        by_session.setdefault(session_key(e.user_id, e.session_id), []).append(e.weight)
    return noisy_or(by_session, cap)


def procedure_as_of(record: Record, at: datetime) -> Record:
    """A procedure version with the status it had at ``at`` (its status log)."""
    times, log = record.get("status_log_at") or [], record.get("status_log") or []
    then = [
        status
        for when, status in zip(times, log, strict=False)
        if not _after(as_datetime(when), at)
    ]
    if not then or then[-1] == record.get("status"):
        return record
    return {**record, "status": then[-1]}
