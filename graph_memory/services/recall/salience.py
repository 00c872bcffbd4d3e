"""Salience: how much recall should still bring a memory forward, from how it is used.

Kept apart from confidence (what the evidence says, which only evidence changes): a memory
nobody has retrieved for UNUSED_DAYS ranks lower, and one reported harmful more often than
helpful (reportOutcome: counted per contributor, services/trust/outcomes.py) is demoted further
for each net harmful contributor. Recall multiplies a memory's score by it
(services/recall/ranking.py) and reports it beside the other parts. Pure.
"""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Record

__all__ = ["HARM_FACTOR", "MIN_SALIENCE", "UNUSED_DAYS", "UNUSED_FACTOR", "salience"]

UNUSED_DAYS = 30.0
UNUSED_FACTOR = 0.8  # enough to order two equally relevant memories, not to hide a match
HARM_FACTOR = 0.5  # per net harmful report
MIN_SALIENCE = 0.1
_DAY_MS = 86_400_000.0


def salience(row: Record, now: datetime) -> float:
    """1.0 for a memory in use; lower for one unretrieved UNUSED_DAYS before ``now`` (never
    retrieved: counted from when it was recorded) or reported harmful. Rows lacking the usage
    fields (older callers) get 1.0."""
    factor = 1.0
    at = now.timestamp() * 1000.0
    last = row.get("last_retrieved_ms") or row.get("recorded_ms")
    # Judged at a past moment (a read as of then), a memory retrieved since was in use: only
    # its latest retrieval is kept, and one in use then is most likely the one still in use.
    if last is not None and float(last) <= at and at - float(last) > UNUSED_DAYS * _DAY_MS:
        factor *= UNUSED_FACTOR
    net = int(row.get("harmful") or 0) - int(row.get("helpful") or 0)
    if net > 0:
        factor *= HARM_FACTOR**net
    return round(max(MIN_SALIENCE, factor), 6)
