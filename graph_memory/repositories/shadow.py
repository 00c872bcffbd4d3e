"""Slots a forget in flight touches, resolved at read time as the purge will leave them.

From a forget's commit on, its contributors' support is hidden from every read, but the
stored timeline of a slot they took part in still holds their versions until the purge's
batch reaches it: a value of theirs that superseded another user's answered the slot, a
version they said first was believed from their telling. The reads that meet such a slot
(forget/_touched_fact) hand it here; its versions are resolved by the time rule with the
forgotten evidence withdrawn (graph_memory/temporal/withdrawal.py), which is what the purge
then stores, so an answer does not change when the batch lands. The versions served from
such a slot are shown as the purge leaves them too: believed and valid from the others'
testimony, superseded by the next surviving version or by none (forget/relink).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record
from graph_memory.domain import TIER_CAP, Status, Tier, as_datetime, noisy_or, session_key
from graph_memory.repositories._scope import require_tenant
from graph_memory.repositories.timeline import SlotKey, life_of, link_of
from graph_memory.temporal import (
    VersionLife,
    View,
    answers_at,
    kept_telling,
    repromote,
    withdraw,
)
from graph_memory.temporal.lifecycle import Change
from graph_memory.versions import FactVersion

__all__ = ["Resolution", "Withdrawn", "in_flight_page", "resolve_touched", "touched_slot"]

# A listing page whose touched rows came to less asks for more rows this many times at most
# (each a page further on): enough for a purge of any size, since the rows of slots only
# the forgotten told are left out in the query (fact/_listed).
_MAX_ROUNDS = 8


def touched_slot(raw: dict[str, str] | None) -> SlotKey | None:
    # A version a purge batch deleted while the read ran names no slot (read committed).
    if raw is None or None in (raw["scope"], raw["subject"], raw["predicate"]):
        return None
    return SlotKey(raw["scope"], raw["subject"], raw["predicate"])


@dataclass(frozen=True)
class Withdrawn:
    """A surviving version of a touched slot as the purge leaves it: its life, and the
    surviving version that supersedes it (None: none does any more); ``rewired`` when that
    supersession changes (its successor was excised or is believed later). ``predecessor``:
    the surviving version it supersedes, when the one it named was excised (``repointed``)."""

    life: VersionLife
    successor: VersionLife | None
    rewired: bool
    predecessor: str | None = None
    repointed: bool = False
    # From the evidence left (None: unchanged); whether a promotion only their sessions
    # earned is withdrawn (forget/recandidate).
    confidence: float | None = None
    demoted: bool = False
    tier: Tier | None = None
    source: str | None = None
    # When the successor was first served as truth, before the purge (forget/relink reads it
    # before any promotion is withdrawn); None: never, or no successor.
    successor_served: datetime | None = None

    def apply(self, v: FactVersion) -> FactVersion:
        """``v`` shown as the purge leaves it (forget/rest_on, forget/relink)."""
        life: VersionLife = self.life
        out: dict[str, Any] = {}
        changes = v.changes
        if life.recorded_at != v.recorded_at:
            out["recorded_at"] = life.recorded_at
            changes = tuple((max(t, life.recorded_at), c) for t, c in changes)
        if life.activated_at != v.activated_at:
            # Moved with its first telling, or to when the sessions left promote it
            # (temporal/withdrawal.repromote); a withdrawn promotion is handled below.
            out["activated_at"] = life.activated_at
            if life.activated_at is not None:
                at = life.activated_at
                changes = tuple((max(t, at) if c is Change.ACTIVATED else t, c) for t, c in changes)
        if life.valid_from != v.valid_from:
            out["valid_from"] = life.valid_from
        if life.valid_to != v.valid_to:
            out["valid_to"] = life.valid_to
        if self.tier is not None:
            out["tier"] = self.tier
        if self.source is not None:
            out["source"] = self.source
        # A successor never served as truth (a candidate) only links: it ends nothing.
        nxt = self.successor
        # From when it was first served, moved with its first telling as forget/rest_on
        # moves it (max(activated, first)), a withdrawn promotion aside (forget/recandidate
        # runs after the chain is rewritten).
        ends_at = (
            None
            if nxt is None or self.successor_served is None
            else max(self.successor_served, nxt.recorded_at)
        )
        if not self.rewired:
            pass
        elif ends_at is None:
            if v.superseded_by is not None:
                changes = tuple((t, c) for t, c in changes if c is not Change.SUPERSEDED)
                out |= {"superseded_at": None, "superseded_by": None, "successor_valid_from": None}
                if v.status is Status.SUPERSEDED:
                    out["status"] = Status.ACTIVE if life.activated_at else Status.CANDIDATE
        else:
            assert nxt is not None
            changes = tuple((ends_at if c is Change.SUPERSEDED else t, c) for t, c in changes)
            out |= {
                "superseded_at": ends_at,
                "superseded_by": nxt.id,
                "successor_valid_from": nxt.valid_from,
            }
        if self.repointed:
            out["supersedes"] = self.predecessor
        if self.confidence is not None and self.confidence != v.confidence:
            out["confidence"] = self.confidence
        if self.demoted:
            changes = tuple((t, c) for t, c in changes if c is not Change.ACTIVATED)
            out["activated_at"] = None
            if v.status is Status.ACTIVE:
                out["status"] = Status.CANDIDATE
        if changes != v.changes:
            out["changes"] = changes
        return dataclasses.replace(v, **out) if out else v


@dataclass(frozen=True)
class Resolution:
    """What touched slots answer with at one (as_of, valid_at), and how each of their
    surviving versions reads once the purge has been there."""

    answers: set[str] = field(default_factory=set)
    views: dict[str, Withdrawn] = field(default_factory=dict)

    def show(self, v: FactVersion) -> FactVersion:
        view = self.views.get(v.id)
        return v if view is None else view.apply(v)


def _time(value: Any) -> datetime:
    out = as_datetime(value)
    if out is None:
        raise ValueError("a missing time in a touched slot")
    return out


@dataclass(frozen=True)
class _Left:
    """A version once the forgotten evidence is withdrawn: its life (None: it goes), and,
    when it lost some, the confidence the rest gives it and whether its promotion goes."""

    life: VersionLife | None
    confidence: float | None = None
    demoted: bool = False
    tier: Tier | None = None  # lowered to this (None: unchanged)
    source: str | None = None  # the source it now shows (None: unchanged)


def _withdrawn(v: Record, promote_sessions: int | None, superseded: datetime | None) -> _Left:
    """``superseded``: when its surviving successor was recorded (forget/relink), if any."""
    raw = list(v["links"])
    links = [link_of(x, bool(x["withdrawn"])) for x in raw]
    ends = [_time(t) for t in v["ends"]] + ([superseded] if superseded is not None else [])
    life = withdraw(life_of(v), links, ends)
    if life is None or not any(link.withdrawn for link in links):
        return _Left(life)
    by_session: dict[str, list[float]] = {}
    for x in raw:
        if not x["withdrawn"]:
            key = session_key(x["user_id"], x["session_id"])
            by_session.setdefault(key, []).append(float(x["weight"] or 0.0))
    # forget/rest_on's: the strongest tier the tellings left spoke with, and its source.
    told = kept_telling([link for link in links if not link.withdrawn])
    tier = told.tier if told is not None else Tier(v["tier"])
    source = told.source if told is not None and told.source != v["source"] else None
    cap = TIER_CAP[tier] if tier.value != v["tier"] else float(v["tier_cap"] or 1.0)
    # fact.recompute_confidence's rule (domain.noisy_or), over the evidence left.
    confidence = noisy_or(by_session, cap)
    # forget/recandidate's: an inference promoted by corroboration, not by a reviewer, that
    # the sessions left no longer promote.
    demoted = (
        tier is Tier.INFERRED
        and life.activated_at is not None
        and not v["approved"]
        and promote_sessions is not None
        and len(by_session) < promote_sessions
    )
    if demoted:
        life = dataclasses.replace(life, activated_at=None)
    elif tier is Tier.INFERRED and not v["approved"] and promote_sessions is not None:
        # forget/rest_on's: promoted from when the sessions left reach the threshold.
        kept = [link for link in links if not link.withdrawn]
        life = repromote(life, kept, ends, promote_sessions)
    return _Left(life, confidence, demoted, tier if tier.value != v["tier"] else None, source)


def _surviving(start: str | None, chain: dict[str, str | None], gone: set[str]) -> str | None:
    """Along a supersession chain (successors or predecessors), the first version that is
    not excised (forget/relink joins the survivors around the excised ones)."""
    at = start
    while at is not None and at in gone:
        at = chain.get(at)
    return at


def _resolve(rows: list[Record], as_of: datetime, valid_at: datetime, view: View) -> Resolution:
    out = Resolution()
    for r in rows:
        versions: list[dict[str, Any]] = list(r["versions"])
        recorded = {v["id"]: life_of(v).recorded_at for v in versions}
        # A successor ends a version from when it was first served as truth (a candidate
        # only links: fact/_close_linked).
        served = {v["id"]: life_of(v).activated_at for v in versions}
        succeeded_by = {v["id"]: v["superseded_by"] for v in versions}
        # Excised: every piece of its evidence withdrawn (forget/_hidden_fact).
        gone = {
            v["id"]
            for v in versions
            if v["links"] and all(bool(x["withdrawn"]) for x in v["links"])
        }

        left: dict[str, _Left] = {}
        for v in versions:
            after = _surviving(succeeded_by.get(v["id"]), succeeded_by, gone)
            when = None if after is None else served.get(after)
            left[v["id"]] = _withdrawn(v, r["promote_sessions"], when)
        lives = {vid: x.life for vid, x in left.items()}
        preceded_by = {v["id"]: v.get("supersedes") for v in versions}
        out.answers.update(
            answers_at([x for x in lives.values() if x is not None], as_of, valid_at, view)
        )
        for vid, life in lives.items():
            if life is None:
                continue
            # Past excised successors to the next surviving one (forget/relink); a successor
            # outside the slot (none is written so) is left as it is.
            direct = succeeded_by.get(vid)
            nxt = _surviving(direct, succeeded_by, gone)
            # A successor whose promotion is withdrawn never ended it: the served version that
            # ended that one ends it instead, or none does (forget/recandidate).
            unserved = nxt is not None and nxt in left and left[nxt].demoted
            if unserved:
                ender = _surviving(succeeded_by.get(nxt), succeeded_by, gone)
                if ender is not None and ender in left and not left[ender].demoted:
                    nxt, unserved = ender, served.get(ender) is None
            successor = None if nxt is None else lives.get(nxt)
            rewired = (nxt is None or nxt in lives) and (
                nxt != direct
                or unserved
                or (
                    successor is not None
                    and (
                        successor.recorded_at != recorded[nxt]
                        or successor.activated_at != served.get(nxt)
                    )
                )
            )
            # And back past excised predecessors to the surviving one it now supersedes.
            first = preceded_by.get(vid)
            before = _surviving(first, preceded_by, gone)
            out.views[vid] = Withdrawn(
                life,
                successor,
                rewired,
                before,
                before != first,
                left[vid].confidence,
                left[vid].demoted,
                left[vid].tier,
                left[vid].source,
                # When the successor is served once the purge has been there.
                None if nxt is None or unserved or successor is None else successor.activated_at,
            )
    return out


async def resolve_touched(
    db: Database,
    tenant: str,
    slots: Iterable[SlotKey],
    *,
    as_of: datetime,
    valid_at: datetime,
    include_candidates: bool,
) -> Resolution:
    """The versions that answer ``slots`` at (as_of, valid_at) once the forgotten
    contributors' evidence is withdrawn, and how each surviving version then reads."""
    keys = sorted(set(slots))
    if not keys:
        return Resolution()
    rows = await db.read(
        "forget.shadow_slots",
        {"tenant": require_tenant(tenant), "slots": [k.param() for k in keys]},
    )
    view = View.ALL if include_candidates else View.ACTIVE
    # Off the event loop, as a write-time settle is: a slot told hundreds of times is
    # milliseconds to seconds of pure Python.
    return await asyncio.to_thread(_resolve, rows, as_of, valid_at, view)


async def in_flight_page(
    db: Database,
    name: str,
    params: dict[str, Any],
    rows: list[Record],
    slots: list[dict[str, str]] | None = None,
) -> list[FactVersion]:
    """A fact listing page (``name``: a fact.in_force_* query; ``rows``: its first answer)
    with the slots a forget in flight touched resolved as the purge will leave them: their
    answers under the listing's filters, each version shown as it leaves it, newest recorded
    first, after the page cursor. When touched rows resolve to fewer versions than they
    took, the next rows are read, so a page is short only at the end of the listing.
    ``slots``: touched slots of the listing that no row names (forget.touched_slots)."""
    limit = int(params["limit"])
    after = params["after_recorded"], params["after_id"]
    out: dict[str, FactVersion] = {}
    extra = [{"fact": None, "touched": slot} for slot in slots or []]
    for _ in range(_MAX_ROUNDS):
        for f in await _resolve_page(db, params, [*rows, *extra]):
            if after[0] is None or (f.recorded_at, f.id) < after:
                out.setdefault(f.id, f)
        if len(rows) < limit:
            break
        last = rows[-1]
        # Not the end of the listing: a version resolved here that sorts past the last row
        # read would move the client's cursor over rows it has not seen; it is left out.
        edge = (_time(last["at"]), str(last["at_id"]))
        out = {k: f for k, f in out.items() if (f.recorded_at, f.id) >= edge}
        if len(out) >= limit:
            break
        extra = []
        more = {"after_recorded": last["at"], "after_id": last["at_id"]}
        rows = await db.read(name, params | more)
    page = sorted(out.values(), key=lambda f: (f.recorded_at, f.id), reverse=True)
    return page[:limit]


async def _resolve_page(
    db: Database, params: dict[str, Any], rows: list[Record]
) -> list[FactVersion]:
    page = [FactVersion.from_row(r["fact"]) for r in rows if r["fact"] is not None]
    touched = [s for s in (touched_slot(r["touched"]) for r in rows) if s is not None]
    if not touched:
        return page
    resolved = await resolve_touched(
        db,
        params["tenant"],
        touched,
        as_of=params["as_of"],
        valid_at=params["valid_at"],
        include_candidates=params["include_candidates"],
    )
    ids = resolved.answers - {f.id for f in page}
    if ids:
        extra = await db.read(
            "fact.listed_ids",
            {
                "tenant": params["tenant"],
                "ids": sorted(ids),
                "as_of": params["as_of"],
                "include_expired": params["include_expired"],
                "needs_verification": params["needs_verification"],
            },
        )
        page += [FactVersion.from_row(r["fact"]) for r in extra]
    return [resolved.show(f) for f in page]
