"""The clock a write stamps its changes with: never before a moment already in its slots.

Times follow commit order within a slot because the clock is read under the slot's lock. Two
service processes' clocks differ, though: a process whose clock runs behind would stamp a
change before one the other process already stored (a version retracted before it was told,
a segment closed before it opened). So the moment used is the later of the local clock and
just after the slot's latest stamp.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

__all__ = ["clock_after"]

TICK = timedelta(microseconds=1)  # Neo4j's DateTime keeps nanoseconds; Python microseconds


def clock_after(now: datetime, stamps: Iterable[datetime | None]) -> datetime:
    """``now``, or one tick after the latest of ``stamps`` when that is not before it."""
    latest = max((t for t in stamps if t is not None), default=None)
    if latest is None or latest < now:
        return now
    return latest + TICK
