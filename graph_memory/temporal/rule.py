"""Who answers a slot at one validity moment, among the versions believed then.

The README's rule ("Time"), for versions believed at asOf and valid at validAt:

* a version whose start nobody stated (it defaulted to when it was said) is a claim about
  when we heard it, not about the world: it yields to any version said no earlier that still
  held when it was said (said at the same moment: the one recorded last). Likewise an
  undated version never beats one said after it that held when it was said;
* otherwise the later start wins; on the same start, the one recorded last;
* across dated and undated versions only each kind's best competes: compared pairwise, mixed
  claims could beat each other in a circle and leave a slot with no answer;
* a later version of the same object ends an earlier one from its own start even once it has
  ended ("had Rex until March" ends "has Rex"); another object wins only while it holds ("in
  Berlin for 2024" interrupts "in Paris since 2018").

For a many-valued predicate only versions of the same object compete.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from itertools import chain

from graph_memory.temporal.model import Claim

__all__ = ["beats", "winners_at"]


def _said(c: Claim) -> tuple[datetime, datetime, int]:
    return (c.said_at, c.recorded_at, c.version)


def _started(c: Claim) -> tuple[datetime, datetime, int]:
    return (c.start, c.recorded_at, c.version)


def beats(g: Claim, f: Claim) -> bool:
    """Whether ``g`` outranks ``f`` (the order of the rule, before kinds and ends)."""
    if not f.stated and g.holds(f.said_at) and _said(g) > _said(f):
        return True
    if not g.stated and f.holds(g.said_at) and _said(f) > _said(g):
        return False
    return _started(g) > _started(f)


def _rivals(f: Claim, g: Claim) -> bool:
    if g.id == f.id:
        return False
    return not f.many or g.object_key == f.object_key


def winners_at(claims: Sequence[Claim], moment: datetime | None) -> set[str]:
    """Ids of the versions that answer at validity ``moment`` (None: before every instant).

    ``claims``: every version of one slot believed at the moment asked about."""
    # Latest start first: a version is beaten by any one rival, and the rival that beats it
    # is almost always one that started later, so looking there first ends most scans at
    # once (in version order, a slot told hundreds of times cost O(n^3) per settle: seconds
    # to minutes under the scope lock). The order changes no answer: every test is "any".
    valid = sorted((c for c in claims if c.valid_at(moment)), key=_started, reverse=True)
    if not valid:
        return set()
    # Who may beat a version then: the valid ones and, of its own object, those that ended by
    # then (they still cut it). Gathered once per moment: scanning every claim for every
    # valid one made a slot of hundreds of overlapping versions cost seconds.
    cutting: dict[str, list[Claim]] = {}
    for g in claims:
        if not g.valid_at(moment) and g.ended_by(moment) and g.started_by(moment):
            cutting.setdefault(g.object_key, []).append(g)
    best: dict[str, bool] = {}

    def best_of_kind(g: Claim) -> bool:
        # No version of g's kind, competing with g's group and valid then, outranks g. (Asked
        # only for a g of the other kind than the f it beats, so f itself is never among
        # them, and for a many-valued slot f's group is g's: the answer is g's alone, kept.)
        if g.id not in best:
            best[g.id] = not any(
                _rivals(g, h) and h.stated == g.stated and beats(h, g) for h in valid
            )
        return best[g.id]

    def beaten(f: Claim) -> bool:
        for g in chain(valid, cutting.get(f.object_key, ())):
            if not _rivals(f, g):
                continue
            # An ended version still cuts a version of its own object.
            cuts = g.object_key == f.object_key and g.ended_by(moment)
            if not g.valid_at(moment) and not (cuts and g.started_by(moment)):
                continue
            if not beats(g, f):
                continue
            if g.stated == f.stated or g.ended_by(moment) or best_of_kind(g):
                return True
        return False

    return {f.id for f in valid if not beaten(f)}
