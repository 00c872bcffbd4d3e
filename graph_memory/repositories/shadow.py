"""Slots a forget in flight touches, resolved at read time as the purge will leave them.

From a forget's commit on, its contributors' support is hidden from every read, but the
stored timeline of a slot they took part in still holds their versions until the purge's
batch reaches it: a value of theirs that superseded another user's answered the slot, a
version they said first was believed from their telling. The reads that meet such a slot
(forget/_touched_fact) hand it here; its versions are resolved by the time rule with the
forgotten evidence withdrawn (graph_memory/temporal/withdrawal.py), which is what the purge
then stores, so an answer does not change when the batch lands.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from datetime import datetime

from graph_memory.db import Database, Record
from graph_memory.domain import as_datetime
from graph_memory.repositories._scope import require_tenant
from graph_memory.repositories.timeline import SlotKey, life_of
from graph_memory.temporal import Link, VersionLife, View, answers_at, withdraw

__all__ = ["resolve_touched", "touched_slot"]


def touched_slot(raw: dict[str, str] | None) -> SlotKey | None:
    return None if raw is None else SlotKey(raw["scope"], raw["subject"], raw["predicate"])


def _withdrawn(v: Record) -> VersionLife | None:
    links = [
        Link(as_datetime(x["at"]), _time(x["started"]), bool(x["withdrawn"])) for x in v["links"]
    ]
    ends = [_time(t) for t in v["ends"]]
    return withdraw(life_of(v), links, ends)


def _time(value: str) -> datetime:
    out = as_datetime(value)
    if out is None:
        raise ValueError("a missing time in a touched slot")
    return out


def _answers(rows: list[Record], as_of: datetime, valid_at: datetime, view: View) -> set[str]:
    out: set[str] = set()
    for r in rows:
        lives = [life for life in (_withdrawn(v) for v in r["versions"]) if life is not None]
        out |= answers_at(lives, as_of, valid_at, view)
    return out


async def resolve_touched(
    db: Database,
    tenant: str,
    slots: Iterable[SlotKey],
    *,
    as_of: datetime,
    valid_at: datetime,
    include_candidates: bool,
) -> set[str]:
    """Ids of the versions that answer ``slots`` at (as_of, valid_at) once the forgotten
    contributors' evidence is withdrawn."""
    keys = sorted(set(slots))
    if not keys:
        return set()
    rows = await db.read(
        "forget.shadow_slots",
        {"tenant": require_tenant(tenant), "slots": [k.param() for k in keys]},
    )
    view = View.ALL if include_candidates else View.ACTIVE
    # Off the event loop, as a write-time settle is: a slot told hundreds of times is
    # milliseconds to seconds of pure Python.
    return await asyncio.to_thread(_answers, rows, as_of, valid_at, view)
