"""The timeline of a slot a batch opened, decided in memory.

A slot that held no version before the batch (``fact.current_slots`` found none) has no
segments either, and its whole state after the batch is the new versions the batch builds:
the rule (graph_memory/temporal) can settle it from those rows without reading the slot back,
and fact.create writes the segments with the versions. A slot whose stored versions the batch
changed in place (a corroboration re-tells one, and may promote it) is settled from the store
as every other slot (TimelineRepository.settle), so nothing here models those changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graph_memory.repositories.timeline import segment_row
from graph_memory.temporal import Telling, VersionLife, settle_open

__all__ = ["attach_segments", "life_of_row"]

SlotKey = tuple[str, str, str]


def life_of_row(row: dict[str, Any], now: datetime) -> VersionLife:
    """A version as fact.create will store it (recorded and, when active, activated at the
    transaction's clock; told once, at ``told_at``)."""
    props = row["props"]
    told: datetime = props["told_at"] or now
    return VersionLife(
        id=row["id"],
        version=int(row["version"]),
        object_key=row["object_key"],
        valid_from=props["valid_from"],
        valid_to=props["valid_to"],
        stated=bool(props["valid_from_stated"]),
        recorded_at=now,
        activated_at=now if props["activated_at"] is not None else None,
        ended_at=None,
        tellings=(Telling(now, told),),
        many=props["cardinality"] == "many",
    )


def attach_segments(
    creates: list[dict[str, Any]], fresh: Iterable[SlotKey], now: datetime
) -> set[SlotKey]:
    """Put on each new row of a ``fresh`` slot the segments it opens (``row["segments"]``);
    returns the slots settled so, all of ``fresh`` (one whose items all failed changed
    nothing); the caller settles the rest from the store."""
    wanted = set(fresh)
    by_slot: dict[SlotKey, list[dict[str, Any]]] = {}
    for row in creates:
        key = (row["scope"], row["subject"], row["props"]["predicate"])
        if key in wanted:
            by_slot.setdefault(key, []).append(row)
    for rows in by_slot.values():
        change = settle_open([life_of_row(r, now) for r in rows], [], now)
        by_id = {r["id"]: r for r in rows}
        for segment in change.create:
            by_id[segment.fact_id].setdefault("segments", []).append(segment_row(segment))
    return wanted
