"""The reference model of the README's time rule ("Time", "Facts"), kept apart from the
code it checks: graph_memory/temporal is property-tested against it (tests/unit/
test_temporal_rule.py) and the GraphQL consistency suite replays stories through it
(tests/integration/test_scenarios_consistency.py). Belief times are operation indices."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

MANY = {"lives_in": False, "likes": True}  # built-in cardinalities: ONE and MANY


@dataclass
class V:
    """One fact version as the model knows it; belief times are operation indices."""

    id: str
    op: int
    subject: str
    predicate: str
    obj: str
    vf: datetime
    stated: bool
    vt: datetime | None
    version: int
    sup_op: int | None = None
    ret_op: int | None = None
    links: dict[str, tuple[int, datetime]] = field(default_factory=dict)  # ep -> (op, start)

    def group(self) -> tuple[str, ...]:
        # Versions compete per slot; for a many-valued predicate only the same object's do.
        base = (self.subject.lower(), self.predicate)
        return (*base, self.obj.lower()) if MANY[self.predicate] else base

    def said(self, j: int) -> datetime:
        """README: when it was said is the latest start of the episodes it cites (at j)."""
        return max(start for op, start in self.links.values() if op <= j)

    def status(self, j: int) -> str:
        if self.ret_op is not None and self.ret_op <= j:
            return "RETRACTED"
        return "SUPERSEDED" if self.sup_op is not None and self.sup_op <= j else "ACTIVE"


def holds(v: V, at: datetime) -> bool:
    return v.vt is None or v.vt > at


def beats(g: V, f: V, j: int) -> bool:
    """README "Time": a version whose start nobody stated yields to any version said no
    earlier that still held when it was said (same moment: recorded last); otherwise the
    later start wins (then: recorded last)."""
    if (
        not f.stated
        and holds(g, f.said(j))
        and (g.said(j), g.op, g.version) > (f.said(j), f.op, f.version)
    ):
        return True
    if (
        not g.stated
        and holds(f, g.said(j))
        and (f.said(j), f.op, f.version) > (g.said(j), g.op, g.version)
    ):
        return False
    return (g.vf, g.op, g.version) > (f.vf, f.op, f.version)


@dataclass
class Model:
    versions: list[V] = field(default_factory=list)

    def place(self, n: V, told: datetime, explicit: bool, j: int) -> tuple[V | None, V | None]:
        """(same, prior) per services/facts/validity.py: what a write corroborates or supersedes."""
        cur = [
            v
            for v in self.versions
            if (v.subject.lower(), v.predicate) == (n.subject.lower(), n.predicate)
            and v.sup_op is None
            and v.ret_op is None
        ]
        same_obj = [v for v in cur if v.obj.lower() == n.obj.lower()]
        rivals = same_obj if MANY[n.predicate] else cur

        def newest(vs: list[V]) -> V | None:
            return max(vs, key=lambda v: (v.vf, v.version), default=None)

        agreeing = [
            v
            for v in same_obj
            if v.vf <= n.vf and (v.vt is None or n.vf < v.vt) and (n.vt is None or v.vt == n.vt)
        ]
        if not agreeing and not explicit:
            agreeing = [v for v in same_obj if v.vt is None]

        def beaten(v: V) -> bool:  # N beats v at N's start (the read rule, mirrored)
            if not v.stated and v.said(j) <= told and holds(n, v.said(j)):
                return True
            if not n.stated and v.said(j) > told and holds(v, told):
                return False
            return v.vf <= n.vf

        def interrupted(v: V) -> bool:  # another object that outlasts N: N is a stay in it
            return v.obj.lower() != n.obj.lower() and n.vt is not None and holds(v, n.vt)

        return newest(agreeing), newest([v for v in rivals if beaten(v) and not interrupted(v)])

    def candidates(self, j: int, at: datetime) -> list[V]:
        """Believed at moment j (recorded, not yet retracted) and valid at `at` (half-open)."""
        return [
            v
            for v in self.versions
            if v.op <= j
            and (v.ret_op is None or v.ret_op > j)
            and v.vf <= at
            and (v.vt is None or at < v.vt)
        ]

    def in_force(self, j: int, at: datetime) -> set[str]:
        """Across dated and undated versions only each kind's best competes (README "Time")."""
        cands = self.candidates(j, at)

        def best_of_kind(g: V) -> bool:
            return not any(
                h is not g and h.group() == g.group() and h.stated == g.stated and beats(h, g, j)
                for h in cands
            )

        # A later version of the same object cuts f even once it has ended ("had Rex until
        # March"); another object only while it holds.
        ended = [
            v
            for v in self.versions
            if v.op <= j and (v.ret_op is None or v.ret_op > j) and v.vf <= at and not holds(v, at)
        ]
        return {
            f.id
            for f in cands
            if not any(
                g is not f
                and g.group() == f.group()
                and beats(g, f, j)
                and (g.stated == f.stated or best_of_kind(g))
                for g in cands
            )
            and not any(
                g.group() == f.group() and g.obj.lower() == f.obj.lower() and beats(g, f, j)
                for g in ended
            )
        }
