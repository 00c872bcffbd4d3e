"""A slot's effective timeline: the rule resolved over validity time and belief time.

``effective`` resolves one belief state over validity: the winner only changes where some
version starts or ends, so the rule is evaluated once per stretch between those instants and
equal neighbours are merged. ``bitemporal`` does that at every belief moment a version's
lifecycle changed, giving segments (version, belief interval, validity interval) per view.
``settle_open`` is the write-time step: a change at ``now`` closes the open segments it ends
and opens the ones it starts, so the past (closed segments) never changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeVar

from graph_memory.temporal.model import Claim, Span, VersionLife, View
from graph_memory.temporal.rule import SlotRule

__all__ = [
    "OpenChange",
    "Segment",
    "answers_at",
    "bitemporal",
    "effective",
    "normalise",
    "settle_open",
]

_VIEWS = (View.ACTIVE, View.ALL)
_G = TypeVar("_G", Claim, VersionLife)


@dataclass(frozen=True)
class Segment:
    """``fact_id`` answers over validity [valid_from, valid_to) while belief time is in
    [sys_from, sys_to) (None: open ends), for the reads of ``view``."""

    fact_id: str
    view: View
    sys_from: datetime
    sys_to: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None

    @property
    def span(self) -> Span:
        return Span(self.fact_id, self.valid_from, self.valid_to)


def _groups(items: Iterable[_G]) -> list[list[_G]]:
    """Versions that compete: the whole slot, or for a many-valued predicate each object's
    versions apart (a "likes" slot can hold hundreds of objects that never compete)."""
    out: dict[str | None, list[_G]] = {}
    for it in items:
        out.setdefault(it.object_key if it.many else None, []).append(it)
    return list(out.values())


def effective(claims: Sequence[Claim]) -> list[Span]:
    """The validity stretches each version wins, given the versions believed at one moment."""
    out = [s for group in _groups(claims) for s in _effective(group)]
    return sorted(out, key=_span_order)


def _effective(claims: Sequence[Claim]) -> list[Span]:
    if len(claims) == 1:
        # A version with no rival answers wherever it is valid (the rule below, one stretch
        # per boundary, gives the same span): most slots a batch opens hold one version.
        (only,) = claims
        start, end = only.valid_from, only.valid_to
        if start is not None and end is not None and end <= start:
            return []
        return [Span(only.id, start, end)]
    cuts = sorted({t for c in claims for t in (c.valid_from, c.valid_to) if t is not None})
    # Stretches: (-inf, cuts[0]), [cuts[0], cuts[1]), ..., [cuts[-1], +inf).
    starts: list[datetime | None] = [None, *cuts]
    ends: list[datetime | None] = [*cuts, None]
    open_spans: dict[str, datetime | None] = {}
    out: list[Span] = []
    rule = SlotRule(claims)
    for start, end in zip(starts, ends, strict=True):
        won = rule.winners(start)
        for fid in [f for f in open_spans if f not in won]:
            out.append(Span(fid, open_spans.pop(fid), start))
        for fid in won:
            open_spans.setdefault(fid, start)
        del end
    out.extend(Span(fid, since, None) for fid, since in open_spans.items())
    return out


def _span_order(s: Span) -> tuple[bool, datetime | None, str]:
    return (s.valid_from is not None, s.valid_from, s.fact_id)


def spans_at(lives: Iterable[VersionLife], at: datetime, view: View) -> set[Span]:
    return set(effective([v.claim(at) for v in lives if v.believed(at, view)]))


def answers_at(
    lives: Iterable[VersionLife], as_of: datetime, valid_at: datetime, view: View
) -> set[str]:
    """The versions a read at (as_of, valid_at) answers with, resolved from the versions
    rather than from the stored segments (the same in-force test as
    cypher/timeline/_in_force, on the spans the rule gives at as_of)."""
    return {
        s.fact_id
        for s in spans_at(lives, as_of, view)
        if (s.valid_from is None or s.valid_from <= valid_at)
        and (s.valid_to is None or valid_at < s.valid_to)
    }


def bitemporal(lives: Sequence[VersionLife]) -> list[Segment]:
    """Every segment of the slot's history, per view (not merged across views)."""
    return [s for group in _groups(lives) for s in _bitemporal(group)]


def _bitemporal(lives: Sequence[VersionLife]) -> list[Segment]:
    moments = sorted({m for v in lives for m in v.moments()})
    out: list[Segment] = []
    for view in _VIEWS:
        opened: dict[Span, datetime] = {}
        for at in moments:
            now = spans_at(lives, at, view)
            for span in [s for s in opened if s not in now]:
                out.append(_segment(span, view, opened.pop(span), at))
            for span in now:
                opened.setdefault(span, at)
        out.extend(_segment(s, view, since, None) for s, since in opened.items())
    return out


def _segment(span: Span, view: View, since: datetime, until: datetime | None) -> Segment:
    return Segment(span.fact_id, view, since, until, span.valid_from, span.valid_to)


def normalise(segments: Iterable[Segment]) -> set[Segment]:
    """One canonical form for comparing timelines: ``BOTH`` split into its two views, and
    consecutive belief intervals of the same span joined."""
    split: list[Segment] = []
    for s in segments:
        if s.view is View.BOTH:
            split += [replace(s, view=View.ACTIVE), replace(s, view=View.ALL)]
        elif s.sys_to is None or s.sys_to > s.sys_from:
            split.append(s)
    by_key: dict[tuple[View, Span], list[Segment]] = {}
    for s in split:
        by_key.setdefault((s.view, s.span), []).append(s)
    out: set[Segment] = set()
    for group in by_key.values():
        group.sort(key=lambda s: s.sys_from)
        cur = group[0]
        for nxt in group[1:]:
            if cur.sys_to is not None and cur.sys_to >= nxt.sys_from:
                ends = [cur.sys_to, nxt.sys_to]
                cur = replace(cur, sys_to=None if None in ends else max(t for t in ends if t))
            else:
                out.add(cur)
                cur = nxt
        out.add(cur)
    return out


@dataclass(frozen=True)
class OpenChange:
    """What a change at ``now`` does to a slot's open segments (those with sys_to None)."""

    close: list[Segment]  # end at now
    delete: list[Segment]  # opened at now and already superseded: never believed
    create: list[Segment]  # open from now


def settle_open(
    lives: Sequence[VersionLife], open_segments: Sequence[Segment], now: datetime
) -> OpenChange:
    """The write-time step: the slot's timeline as believed at ``now`` against what is open.

    Every lifecycle change is stamped with the transaction's clock (``now``), read under the
    slot's lock, so nothing before ``now`` changes and closing/opening at ``now`` is exact."""
    want = {view: spans_at(lives, now, view) for view in _VIEWS}
    kept: list[Segment] = []
    close: list[Segment] = []
    delete: list[Segment] = []
    for s in open_segments:
        views = _VIEWS if s.view is View.BOTH else (s.view,)
        if all(s.span in want[v] for v in views):
            kept.append(s)
        elif s.sys_from >= now:
            delete.append(s)
        else:
            close.append(s)

    # What the kept segments already answer, per view: a set, since a slot re-told many times
    # keeps as many open segments as it wants (a scan per wanted span was quadratic).
    covered = {(k.span, v) for k in kept for v in (_VIEWS if k.view is View.BOTH else (k.view,))}

    create: list[Segment] = []
    for span in sorted(want[View.ACTIVE] | want[View.ALL], key=_span_order):
        need = [v for v in _VIEWS if span in want[v] and (span, v) not in covered]
        if not need:
            continue
        view = View.BOTH if len(need) == 2 else need[0]
        create.append(_segment(span, view, now, None))
    return OpenChange(close=close, delete=delete, create=create)
