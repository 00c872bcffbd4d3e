"""A version's lifecycle as it stood at a past moment.

Versions are immutable but for lifecycle fields (superseded, retracted, flagged, promoted,
rejected, expired), and those record when they changed. A read "as of T" must show each
version as it was believed at T: a version superseded last week is shown current in an answer
as of last month. Confidence is the one lifecycle value shown as it is now (its past values
are in the audit log's confidence deltas).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import Status, as_datetime, noisy_or, session_key
from graph_memory.versions import Evidence, FactVersion

__all__ = ["as_believed_at", "confidence_at", "held_at", "procedure_as_of"]

# Fields set by each later change, cleared when the change came after the moment asked about.
_CHANGES: dict[str, tuple[str, ...]] = {
    "superseded_at": ("superseded_at", "superseded_by", "successor_valid_from"),
    "retracted_at": ("retracted_at", "retracted_by", "retract_reason", "evicted_at"),
    "rejected_at": ("rejected_at", "rejected_by", "reject_reason"),
    "expired_at": ("expired_at",),
    "flagged_at": ("flagged_at", "verification_reason"),
}


def _after(value: datetime | None, at: datetime) -> bool:
    return value is not None and value > at


def as_believed_at(v: FactVersion, at: datetime) -> FactVersion:
    """``v`` with the lifecycle it had at ``at``."""
    later = [k for k in _CHANGES if _after(getattr(v, k), at)]
    unpromoted = v.activated_at is None or _after(v.activated_at, at)
    # Verified after the moment, flagged before it: it was still awaiting verification then.
    unverified = (
        _after(v.verified_at, at) and v.flagged_at is not None and "flagged_at" not in later
    )
    flag_then = _flag_at(v, at)
    flag_changed = flag_then is not None and flag_then != v.needs_verification
    if not later and not unpromoted and not unverified and not flag_changed:
        return v
    out: dict[str, Any] = {}
    if unverified:
        out["needs_verification"] = True
        out["verified_at"] = None
    for key in later:
        for name in _CHANGES[key]:
            out[name] = None
    if "flagged_at" in later:
        out["needs_verification"] = False
    if flag_then is not None:
        # The flag log knows every flag and verification; the single timestamps only the last.
        out["needs_verification"] = flag_then
        if _after(v.verified_at, at):
            out["verified_at"] = None
        if flag_then and v.flagged_at is not None and "flagged_at" in later:
            out["verification_reason"] = None  # flagged then, for a reason since overwritten
    then = dataclasses.replace(v, **out)
    return dataclasses.replace(then, status=_status(then, unpromoted))


def _status(v: FactVersion, unpromoted: bool) -> Status:
    if v.retracted_at is not None:
        return Status.RETRACTED
    if v.superseded_at is not None:
        return Status.SUPERSEDED
    if v.rejected_at is not None:
        return Status.REJECTED
    if unpromoted:
        return Status.CANDIDATE
    if v.expired_at is not None:
        return Status.EXPIRED
    return Status.ACTIVE


def _flag_at(v: FactVersion, at: datetime) -> bool | None:
    """Whether it awaited verification at ``at`` per its flag log; None without a log."""
    if not v.flag_log:
        return None
    then = [flag for when, flag in v.flag_log if not _after(when, at)]
    return then[-1] if then else False


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
