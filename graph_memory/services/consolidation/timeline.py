"""Timelines of slots whose versions a consolidation batch moved between slots (an entity
merge, or its rollback), rebuilt from the versions by writing only the difference.

``TimelineRepository.rebuild`` writes every segment of each slot whose timeline changed; for a merge
of a few thousand facts into a survivor that already has thousands, nearly all of that is
rewriting segments that end up identical (the survivor's own) or identical but in the other
slot (the moved facts'). Here the recomputed segments are matched against the stored ones:
equal ones stay, equal ones stored under the fact's old slot are relabelled in place, and
only the rest are deleted or created. The result is the same stored timeline a rebuild gives.

``reslot`` returns exactly what it wrote (``SlotWrites``): a run journals it with its batch, so
a rollback undoes a merge's timeline by inverting those writes (relabel back, delete what was
created, create again what was deleted, ids and all) instead of recomputing every slot.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from graph_memory.db import Tx
from graph_memory.repositories._scope import require_tenant
from graph_memory.repositories.consolidation import ConsolidationRepository
from graph_memory.repositories.timeline import Settled, SlotKey, life_of, merged_views
from graph_memory.repositories.timeline import _row as row_of
from graph_memory.repositories.timeline import _segment as segment_of
from graph_memory.temporal import Segment, bitemporal

__all__ = ["SlotWrites", "reslot"]


@dataclass
class SlotWrites:
    """What a batch wrote to the timeline, as its inverse needs it: each segment ``reslot``
    relabelled with the slot it left, the ids created, each deleted segment whole, and the
    open segments a write-time settle ended (``closed``: reopened by the inverse)."""

    moved: list[dict[str, Any]] = field(default_factory=list)  # id, scope, subject, predicate
    created: list[str] = field(default_factory=list)
    deleted: list[dict[str, Any]] = field(default_factory=list)  # a segments row + its slot
    closed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.moved or self.created or self.deleted or self.closed)

    def extend(self, other: SlotWrites) -> None:
        self.moved += other.moved
        self.created += other.created
        self.deleted += other.deleted
        self.closed += other.closed

    @classmethod
    def of(cls, settled: Settled) -> SlotWrites:
        return cls(created=list(settled.created), closed=list(settled.closed))


async def reslot(tx: Tx, tenant: str, slots: Iterable[SlotKey]) -> SlotWrites:
    """Make the stored timelines of ``slots`` what their versions give; returns what it
    wrote."""
    tenant = require_tenant(tenant)
    keys = sorted(set(slots))
    writes = SlotWrites()
    if not keys:
        return writes
    params = [k.param() for k in keys]
    state, stored = await ConsolidationRepository.slot_rows(tx, tenant, params)
    existing: dict[Segment, list[tuple[str, SlotKey]]] = {}
    rows: dict[str, dict[str, Any]] = {}
    for r in stored:
        slot = SlotKey(r["scope"], r["subject"], r["predicate"])
        for s in r["segments"]:
            existing.setdefault(segment_of(s), []).append((s["id"], slot))
            rows[s["id"]] = {**s, **slot.param()}
    create: list[dict[str, Any]] = []
    moves: list[dict[str, Any]] = []
    for r in state:
        slot = SlotKey(r["scope"], r["subject"], r["predicate"])
        for seg in merged_views(bitemporal([life_of(v) for v in r["versions"]])):
            found = existing.get(seg)
            if not found:
                create.append(row_of(seg))
                continue
            # The copy already in this slot if there is one, else one to relabel.
            at = next((i for i, (_, where) in enumerate(found) if where == slot), 0)
            seg_id, where = found.pop(at)
            if where != slot:
                moves.append({"id": seg_id, **slot.param()})
                writes.moved.append({"id": seg_id, **where.param()})
    delete = [seg_id for left in existing.values() for seg_id, _ in left]
    writes.created = [c["id"] for c in create]
    writes.deleted = [rows[i] for i in delete]
    await ConsolidationRepository.write_segments(tx, tenant, moves, delete, create)
    return writes
