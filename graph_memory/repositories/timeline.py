"""The stored timeline of each slot: read its versions, write the segments the rule gives.

Every write path that changes a version's part in the rule (a new version, a re-telling, a
promotion, a retraction, a rejection, an excision) calls ``settle`` for the slots it touched,
in its own transaction: the change and the timeline it implies commit together.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.domain import Tier, as_datetime, session_key
from graph_memory.repositories._scope import require_tenant
from graph_memory.temporal import (
    Link,
    Said,
    Segment,
    Telling,
    VersionLife,
    View,
    bitemporal,
    settle_open,
)

__all__ = [
    "Settled",
    "SlotKey",
    "SlotTimeline",
    "TimelineRepository",
    "life_of",
    "link_of",
    "segment_row",
]


@dataclass(frozen=True, order=True)
class SlotKey:
    scope: str
    subject: str
    predicate: str

    def param(self) -> dict[str, str]:
        return {"scope": self.scope, "subject": self.subject, "predicate": self.predicate}


@dataclass(frozen=True)
class SlotTimeline:
    slot: SlotKey
    versions: tuple[VersionLife, ...]
    segments: tuple[Segment, ...]  # open ones only, from slot_state; all, from stored()


def _time(value: Any) -> datetime:
    out = as_datetime(value)
    if out is None:
        raise ValueError("a version without a recorded time")
    return out


def life_of(r: Record) -> VersionLife:
    ends = [t for t in (as_datetime(r["retracted_at"]), as_datetime(r["rejected_at"])) if t]
    tellings = tuple(
        Telling(_time(at), _time(told))
        for at, told in zip(r["told_log_at"], r["told_log"], strict=True)
    )
    return VersionLife(
        id=r["id"],
        version=int(r["version"]),
        object_key=r["object_key"],
        valid_from=as_datetime(r["valid_from"]),
        valid_to=as_datetime(r["valid_to"]),
        stated=bool(r["stated"]),
        recorded_at=_time(r["recorded_at"]),
        activated_at=as_datetime(r["activated_at"]),
        ended_at=min(ends) if ends else None,
        tellings=tellings,
        many=bool(r["many"]),
        entered_at=as_datetime(r.get("entered_at")),
    )


def link_of(r: Record, withdrawn: bool) -> Link:
    """An evidence link as forget/evidence_left and forget/shadow_slots read it (its claim:
    forget/_link_claim; None when the link kept none)."""
    started = as_datetime(r["started"])
    if started is None:
        raise ValueError("an evidence link to an episode without a start")
    claim_from, tier = as_datetime(r.get("claim_from")), r.get("tier")
    claim = (
        Said(
            claim_from,
            as_datetime(r.get("claim_to")),
            bool(r.get("claim_stated")),
            Tier(tier),
            r.get("claim_source"),
        )
        if claim_from is not None and tier in _TIERS
        else None
    )
    # The session, where the query read it (forget/evidence_left, forget/shadow_slots), keyed
    # as fact.recompute_confidence counts sessions (a missing user is a key part too).
    session = session_key(r["user_id"], r["session_id"]) if "session_id" in r else None
    return Link(as_datetime(r["at"]), started, withdrawn, claim, session)


_TIERS = frozenset(t.value for t in Tier)


def _segment(r: Record) -> Segment:
    return Segment(
        fact_id=r["fact_id"],
        view=View(r["view"]),
        sys_from=_time(r["sys_from"]),
        sys_to=as_datetime(r.get("sys_to")),
        valid_from=as_datetime(r["valid_from"]),
        valid_to=as_datetime(r["valid_to"]),
    )


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def segment_row(s: Segment) -> dict[str, Any]:
    return {
        "id": uuid.uuid4().hex,
        "fact_id": s.fact_id,
        "view": s.view.value,
        "sys_from": _iso(s.sys_from),
        "sys_to": _iso(s.sys_to),
        "valid_from": _iso(s.valid_from),
        "valid_to": _iso(s.valid_to),
    }


_row = segment_row  # the name services/consolidation/timeline.py imports


def merged_views(segments: Iterable[Segment]) -> list[Segment]:
    """A segment the same in both views is stored once, as ``BOTH``."""
    pending = list(segments)
    keys = {
        (s.fact_id, s.sys_from, s.sys_to, s.valid_from, s.valid_to)
        for s in pending
        if s.view is View.ACTIVE
    }
    both = {
        (s.fact_id, s.sys_from, s.sys_to, s.valid_from, s.valid_to)
        for s in pending
        if s.view is View.ALL
    } & keys
    out: list[Segment] = []
    for s in pending:
        key = (s.fact_id, s.sys_from, s.sys_to, s.valid_from, s.valid_to)
        if key not in both:
            out.append(s)
        elif s.view is View.ACTIVE:
            out.append(
                Segment(s.fact_id, View.BOTH, s.sys_from, s.sys_to, s.valid_from, s.valid_to)
            )
    return out


@dataclass(frozen=True)
class Settled:
    """What a write-time settle wrote: the open segments it ended at its moment and the ids
    of those it opened (it also deletes segments opened and ended by the same transaction,
    which nothing outside it ever saw). Its exact inverse reopens the one and deletes the
    other."""

    closed: list[str] = field(default_factory=list)
    created: list[str] = field(default_factory=list)


class TimelineRepository:
    @staticmethod
    async def settle(
        tx: Tx,
        tenant: str,
        slots: Iterable[SlotKey],
        now: datetime,
        fact_ids: Iterable[str] = (),
    ) -> Settled:
        """Close and open the segments that changes made at ``now`` imply, in ``slots`` and
        in the slots of ``fact_ids`` (``now`` is the transaction's clock, read under the
        lock, so nothing before it changes); returns what it wrote."""
        tenant = require_tenant(tenant)
        keys = sorted(set(slots))
        ids = sorted(set(fact_ids))
        if not keys and not ids:
            return Settled()
        rows = await tx.run(
            "timeline.slot_state",
            {"tenant": tenant, "slots": [k.param() for k in keys], "ids": ids},
        )
        close: list[str] = []
        delete: list[str] = []
        create: list[dict[str, Any]] = []
        for r in rows:
            lives = [life_of(v) for v in r["versions"]]
            by_segment = {_segment({**s, "sys_to": None}): s["id"] for s in r["open"]}
            # Off the event loop: the rule over a slot of hundreds of overlapping versions
            # is seconds of pure Python, and every other request of every tenant would wait.
            change = await asyncio.to_thread(settle_open, lives, list(by_segment), now)
            close += [by_segment[s] for s in change.close]
            delete += [by_segment[s] for s in change.delete]
            create += [segment_row(s) for s in change.create]
        if close or delete or create:
            await tx.run(
                "timeline.apply",
                {"tenant": tenant, "close": close, "delete": delete, "create": create, "now": now},
            )
        return Settled(closed=close, created=[c["id"] for c in create])

    @staticmethod
    async def apply(
        tx: Tx,
        tenant: str,
        close: list[str],
        delete: list[str],
        create: list[dict[str, Any]],
        now: datetime,
    ) -> None:
        """A change decided elsewhere (services/facts/inline_timeline.py): end the open
        segments ``close`` at ``now``, delete ``delete``, add ``create`` (segment_row rows)."""
        if close or delete or create:
            await tx.run(
                "timeline.apply",
                {
                    "tenant": require_tenant(tenant),
                    "close": close,
                    "delete": delete,
                    "create": create,
                    "now": now,
                },
            )

    @staticmethod
    async def slots_of(tx: Tx, tenant: str, ids: Iterable[str]) -> list[SlotKey]:
        wanted = sorted(set(ids))
        if not wanted:
            return []
        rows = await tx.run("timeline.slots_of", {"tenant": require_tenant(tenant), "ids": wanted})
        return [SlotKey(r["scope"], r["subject"], r["predicate"]) for r in rows]

    @staticmethod
    async def clock(tx: Tx, tenant: str, fact_ids: Iterable[str], now: datetime) -> datetime:
        """The clock for a change to these versions, read after their locks: ``now``, or just
        after the latest moment stamped in their slots (temporal/clock.py)."""
        ids = sorted(set(fact_ids))
        if not ids:
            return tx.clock(now)
        rows = await tx.run(
            "timeline.slot_state", {"tenant": require_tenant(tenant), "slots": [], "ids": ids}
        )
        stamps = [life_of(v).last_stamp for r in rows for v in r["versions"]]
        stamps += [_time(s["sys_from"]) for r in rows for s in r["open"]]
        return tx.clock(now, stamps)

    @classmethod
    async def settle_facts(cls, tx: Tx, tenant: str, ids: Iterable[str], now: datetime) -> Settled:
        """``settle`` for the slots of these versions."""
        return await cls.settle(tx, tenant, (), now, ids)

    @staticmethod
    async def rebuild(
        tx: Tx, tenant: str, slots: Iterable[SlotKey], without: Collection[str] = ()
    ) -> int:
        """Recompute these slots' whole timeline from their versions (a backfill, or an
        excision that rewrites the past on purpose), as if the versions ``without`` were
        already gone; returns the segments the slots hold. Only slots whose stored segments
        differ are rewritten (an excision retells thousands of versions whose timeline stays
        the same: a clear and an apply each would cost their index updates for nothing). An
        excision rebuilds before it deletes: a seek after a delete of thousands of nodes
        pays for merging it in."""
        tenant = require_tenant(tenant)
        keys = sorted(set(slots))
        if not keys:
            return 0
        params = [k.param() for k in keys]
        rows = await tx.run("timeline.slot_state", {"tenant": tenant, "slots": params, "ids": []})
        stored = {
            (r["scope"], r["subject"], r["predicate"]): Counter(map(_segment, r["segments"]))
            for r in await tx.run("timeline.segments", {"tenant": tenant, "slots": params})
        }
        gone = set(without)
        changed: list[dict[str, str]] = []
        create: list[dict[str, Any]] = []
        held = 0
        for r in rows:
            segments = merged_views(
                bitemporal([life_of(v) for v in r["versions"] if v["id"] not in gone])
            )
            held += len(segments)
            key = (r["scope"], r["subject"], r["predicate"])
            if Counter(segments) == stored.get(key, Counter()):
                continue
            changed.append(SlotKey(*key).param())
            create += [segment_row(s) for s in segments]
        if changed:
            await tx.run("timeline.clear", {"tenant": tenant, "slots": changed})
        if create:
            await tx.run(
                "timeline.apply",
                {"tenant": tenant, "close": [], "delete": [], "create": create, "now": None},
            )
        return held

    @staticmethod
    async def stored(tx: Tx, tenant: str, slots: Iterable[SlotKey]) -> list[SlotTimeline]:
        """Each slot's versions and every stored segment (to check one against the other)."""
        tenant = require_tenant(tenant)
        keys = sorted(set(slots))
        if not keys:
            return []
        params = [k.param() for k in keys]
        state = await tx.run("timeline.slot_state", {"tenant": tenant, "slots": params, "ids": []})
        segs = await tx.run("timeline.segments", {"tenant": tenant, "slots": params})
        by_slot = {(r["scope"], r["subject"], r["predicate"]): r["segments"] for r in segs}
        return [
            SlotTimeline(
                SlotKey(r["scope"], r["subject"], r["predicate"]),
                tuple(life_of(v) for v in r["versions"]),
                tuple(_segment(s) for s in by_slot[(r["scope"], r["subject"], r["predicate"])]),
            )
            for r in state
        ]

    @staticmethod
    async def slots(tx: Tx, tenant: str) -> list[SlotKey]:
        """Every slot of the tenant, in key order."""
        rows = await tx.run("timeline.slots", {"tenant": require_tenant(tenant)})
        return [SlotKey(r["scope"], r["subject"], r["predicate"]) for r in rows]

    @staticmethod
    async def tenants(tx: Tx, after: str, limit: int) -> list[str]:
        rows = await tx.run("timeline.tenants", {"after": after, "limit": limit})
        return [r["tenant"] for r in rows]
