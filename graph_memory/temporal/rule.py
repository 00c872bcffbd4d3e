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

from collections.abc import Iterable, Sequence
from datetime import datetime
from itertools import chain

from graph_memory.temporal.model import Claim

__all__ = ["SlotRule", "beats", "winners_at"]


# The id breaks a full tie: two versions of one slot said, recorded and numbered alike (an
# entity merge carries two names' versions into one slot, each numbered in its own) would
# otherwise both answer a single-valued slot.
def _said(c: Claim) -> tuple[datetime, datetime, int, str]:
    return (c.said_at, c.recorded_at, c.version, c.id)


def _started(c: Claim) -> tuple[datetime, datetime, int, str]:
    return (c.start, c.recorded_at, c.version, c.id)


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


class SlotRule:
    """The rule over one set of claims (one slot's versions believed at one moment), asked
    at many validity moments (timeline.effective asks once per stretch).

    Two things make that cheap without changing an answer. The claims are kept latest start
    first: a version is beaten by any one rival, and the rival that beats it is almost always
    one that started later, so looking there first ends most scans at once (in version order,
    a slot told hundreds of times cost O(n^3) per settle: seconds to minutes under the scope
    lock). And whether one version outranks another does not depend on the moment, so a
    version beaten by a rival of its own kind stays beaten wherever that rival is valid, and
    one that is not the best of its kind stays so wherever its better is valid: both are
    remembered across moments and settled by one lookup instead of a scan."""

    def __init__(self, claims: Sequence[Claim]) -> None:
        self.claims = sorted(claims, key=_started, reverse=True)
        self._beaten_by: dict[str, Claim] = {}
        self._outranked_by: dict[str, Claim] = {}

    def winners(self, moment: datetime | None) -> set[str]:
        """Ids of the versions that answer at validity ``moment`` (None: before every
        instant)."""
        valid = [c for c in self.claims if c.valid_at(moment)]
        if not valid:
            return set()
        # Who may beat a version then: the valid ones and, of its own object, those that
        # ended by then (they still cut it). Gathered once per moment: scanning every claim
        # for every valid one made a slot of hundreds of overlapping versions cost seconds.
        cutting: dict[str, list[Claim]] = {}
        for g in self.claims:
            if not g.valid_at(moment) and g.ended_by(moment) and g.started_by(moment):
                cutting.setdefault(g.object_key, []).append(g)
        best: dict[str, bool] = {}

        def best_of_kind(g: Claim) -> bool:
            # No version of g's kind, competing with g's group and valid then, outranks g.
            # (Asked only for a g of the other kind than the f it beats, so f itself is never
            # among them, and for a many-valued slot f's group is g's: g's answer alone.)
            if g.id not in best:
                known = self._outranked_by.get(g.id)
                if known is not None and known.valid_at(moment):
                    best[g.id] = False
                    return False
                better = next(
                    (
                        h
                        for h in _rivals_before(valid, g)
                        if _rivals(g, h) and h.stated == g.stated and beats(h, g)
                    ),
                    None,
                )
                if better is not None:
                    self._outranked_by[g.id] = better
                best[g.id] = better is None
            return best[g.id]

        def beaten(f: Claim) -> bool:
            known = self._beaten_by.get(f.id)
            if known is not None and known.valid_at(moment):
                return True
            for g in chain(_rivals_before(valid, f), cutting.get(f.object_key, ())):
                if not _rivals(f, g):
                    continue
                # An ended version still cuts a version of its own object.
                cuts = g.object_key == f.object_key and g.ended_by(moment)
                if not g.valid_at(moment) and not (cuts and g.started_by(moment)):
                    continue
                if not beats(g, f):
                    continue
                if g.stated == f.stated:
                    if g.valid_at(moment):
                        self._beaten_by[f.id] = g
                    return True
                if g.ended_by(moment) or best_of_kind(g):
                    return True
            return False

        return {f.id for f in valid if not beaten(f)}


def _rivals_before(valid: Sequence[Claim], f: Claim) -> Iterable[Claim]:
    """The valid claims that may beat ``f``, from ``valid`` (latest start first). A dated
    version is beaten only by a later start (``beats``: the said-time clauses either need
    ``f`` undated or decide against ``g``), so for one the scan ends where starts stop being
    later; an undated one may be beaten by any that was said later."""
    if not f.stated:
        yield from valid
        return
    mine = _started(f)
    for g in valid:
        if _started(g) <= mine:
            return
        yield g


def winners_at(claims: Sequence[Claim], moment: datetime | None) -> set[str]:
    """Ids of the versions that answer at validity ``moment`` (None: before every instant).

    ``claims``: every version of one slot believed at the moment asked about."""
    return SlotRule(claims).winners(moment)
