"""A version's lifecycle as it stood at a past moment.

Versions are immutable but for lifecycle fields (superseded, retracted, flagged, promoted,
rejected, expired), and those record when they changed. A read "as of T" must show each
version as it was believed at T: a version superseded last week is shown current in an answer
as of last month. Confidence is the one lifecycle value shown as it is now (its past values
are in the audit log's confidence deltas).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import as_datetime, noisy_or, session_key

__all__ = ["as_believed_at", "confidence_at", "held_at", "procedure_as_of"]

# Fields set by each later change, cleared when the change came after the moment asked about.
_CHANGES: dict[str, tuple[str, ...]] = {
    "superseded_at": ("superseded_at", "superseded_by", "successor_valid_from"),
    "retracted_at": ("retracted_at", "retracted_by", "retract_reason", "evicted_at"),
    "rejected_at": ("rejected_at", "rejected_by", "reject_reason"),
    "expired_at": ("expired_at",),
    "flagged_at": ("flagged_at", "verification_reason"),
}


def _after(value: Any, at: datetime) -> bool:
    when = as_datetime(value)
    return when is not None and when > at


def as_believed_at(record: Record, at: datetime) -> Record:
    """``record`` (a fact version) with the lifecycle it had at ``at``."""
    later = [k for k in _CHANGES if _after(record.get(k), at)]
    unpromoted = _after(record.get("activated_at"), at) or record.get("activated_at") is None
    # Verified after the moment, flagged before it: it was still awaiting verification then.
    unverified = (
        _after(record.get("verified_at"), at)
        and record.get("flagged_at") is not None
        and "flagged_at" not in later
    )
    flag_then = _flag_at(record, at)
    flag_changed = flag_then is not None and flag_then != bool(record.get("needs_verification"))
    if not later and not unpromoted and not unverified and not flag_changed:
        return record
    out = dict(record)
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
        if _after(record.get("verified_at"), at):
            out["verified_at"] = None
        if flag_then and record.get("flagged_at") is not None and out.get("flagged_at") is None:
            out["verification_reason"] = None  # flagged then, for a reason since overwritten
    if out.get("retracted_at") is not None:
        out["status"] = "retracted"
    elif out.get("superseded_at") is not None:
        out["status"] = "superseded"
    elif out.get("rejected_at") is not None:
        out["status"] = "rejected"
    elif unpromoted:
        out["status"] = "candidate"
    elif out.get("expired_at") is not None:
        out["status"] = "expired"
    else:
        out["status"] = "active"
    return out


def _flag_at(record: Record, at: datetime) -> bool | None:
    """Whether it awaited verification at ``at`` per its flag log; None without a log."""
    times, log = record.get("flag_log_at") or [], record.get("flag_log") or []
    if not times:
        return None
    then = [flag for when, flag in zip(times, log, strict=False) if not _after(when, at)]
    return bool(then[-1]) if then else False


def held_at(evidence: list[Record], at: datetime) -> list[Record]:
    """The evidence a fact had at ``at``: links made later (a corroboration after the moment
    asked about) were not yet part of why it was believed."""
    return [e for e in evidence if not _after(e.get("linked_at"), at)]


def confidence_at(evidence: list[Record], at: datetime, cap: float, current: float) -> float:
    """A fact's confidence as it stood at ``at``: the same noisy-OR over the evidence it held
    then. Confidence is derived from the evidence edges, so no log is needed, and a forgotten
    contributor's share is gone from past reads too (their edges are gone)."""
    held = held_at(evidence, at)
    if len(held) == len(evidence):
        return current
    by_session: dict[str, list[float]] = {}
    for e in held:
        by_session.setdefault(session_key(e.get("user_id"), e.get("session_id")), []).append(
            float(e.get("weight") or 0.0)
        )
    return noisy_or(by_session, cap)


def procedure_as_of(record: Record, at: datetime) -> Record:
    """A procedure version with the status it had at ``at`` (its status log)."""
    times, log = record.get("status_log_at") or [], record.get("status_log") or []
    then = [status for when, status in zip(times, log, strict=False) if not _after(when, at)]
    if not then or then[-1] == record.get("status"):
        return record
    return {**record, "status": then[-1]}
