"""The timeline of the slots a batch only added versions to, decided in memory.

The batch read each slot's versions and open segments under its lock (fact.write_state). When
the batch's only changes to a slot are new versions (and the supersession they cause, which
the time rule derives from the versions themselves), the slot's state after the batch is that
read plus the new rows: the rule (graph_memory/temporal) settles it without reading the slot
back. The new versions' segments are written by fact.create with the versions; what changes
for versions already stored (closing their open segments, a segment for the part of an
interrupted version's validity that it still wins) by one timeline.apply.

A slot where an item only corroborated a stored version (a re-telling moves when it was said
and may promote it) is settled from the store after the write (TimelineRepository.settle), as
are the slots of versions evicted by capacity: nothing here models those changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.repositories.timeline import segment_row
from graph_memory.repositories.write_state import SlotState
from graph_memory.temporal import Telling, VersionLife, settle_open

__all__ = ["InlineChange", "life_of_row", "settle_inline"]

SlotKey = tuple[str, str, str]


@dataclass
class InlineChange:
    """What the stored versions' segments need (timeline.apply); the new versions' segments
    are on their rows (``row["segments"]``)."""

    close: list[str] = field(default_factory=list)
    delete: list[str] = field(default_factory=list)
    create: list[dict[str, Any]] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.close or self.delete or self.create)


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


def settle_inline(
    creates: list[dict[str, Any]],
    states: Mapping[SlotKey, SlotState],
    keys: Iterable[SlotKey],
    now: datetime,
) -> InlineChange:
    """Settle the slots ``keys`` (as read under the lock, in ``states``) with the batch's new
    rows; puts each new version's segments on its row and returns the rest of the change."""
    wanted = set(keys)
    by_slot: dict[SlotKey, list[dict[str, Any]]] = {}
    for row in creates:
        key = (row["scope"], row["subject"], row["props"]["predicate"])
        if key in wanted:
            by_slot.setdefault(key, []).append(row)
    out = InlineChange()
    for key, rows in by_slot.items():
        state = states[key]
        lives = [*state.lives, *(life_of_row(r, now) for r in rows)]
        change = settle_open(lives, list(state.open), now)
        out.close += [state.open[s] for s in change.close]
        out.delete += [state.open[s] for s in change.delete]
        new = {r["id"]: r for r in rows}
        for segment in change.create:
            if segment.fact_id in new:
                new[segment.fact_id].setdefault("segments", []).append(segment_row(segment))
            else:
                out.create.append(segment_row(segment))
    return out
