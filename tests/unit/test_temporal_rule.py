"""graph_memory/temporal against the reference model of the README's rule, by hypothesis.

Random slots (single- and many-valued) told in and out of order, dated and undated, ended,
interrupted, retold in later sessions, retracted, some kept as candidates: at every belief
moment and every validity boundary (at it and just before), the rule answers what the model
answers, a single-valued slot never has two answers (and has one whenever an open version is
valid), the resolved timeline agrees with the rule point by point, and the segments written
change by change equal the timeline recomputed from the versions.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_memory.temporal import (
    Segment,
    Telling,
    VersionLife,
    View,
    bitemporal,
    effective,
    normalise,
    settle_open,
    winners_at,
)
from graph_memory.temporal.timeline import spans_at
from tests.unit.time_reference import Model, V

US = timedelta(microseconds=1)
T0 = datetime(2030, 1, 1, tzinfo=UTC)  # belief moments: T0 + op seconds
STARTS = [datetime(y, m, 1, tzinfo=UTC) for y, m in ((2024, 2), (2024, 8), (2025, 3), (2025, 9))]
VFROM = [datetime(y, 1, 1, tzinfo=UTC) for y in (2019, 2021, 2023, 2025)]
VTO = [datetime(y, 6, 1, tzinfo=UTC) for y in (2020, 2022, 2024, 2026)]
OBJECTS = ["paris", "berlin", "rome"]


def at_op(op: int) -> datetime:
    return T0 + timedelta(seconds=op)


@dataclass(frozen=True)
class Op:
    obj: int
    said: int
    vf: int | None  # None: undated (starts when said)
    vt: int | None
    retell: int | None  # a later session that says it again (op offset, start)
    retract_after: int | None
    activate_after: int | None  # None: active at once; -1: stays a candidate


ops = st.builds(
    Op,
    obj=st.integers(0, 2),
    said=st.integers(0, 3),
    vf=st.one_of(st.none(), st.integers(0, 3)),
    vt=st.one_of(st.none(), st.integers(0, 3)),
    retell=st.one_of(st.none(), st.integers(0, 3)),
    retract_after=st.one_of(st.none(), st.integers(1, 6)),
    activate_after=st.one_of(st.none(), st.none(), st.integers(-1, 4)),
)


@dataclass
class Slot:
    many: bool
    versions: list[V]
    lives: list[VersionLife]
    n_ops: int


def build(many: bool, items: list[Op]) -> Slot:
    versions: list[V] = []
    lives: list[VersionLife] = []
    op = 0
    for i, it in enumerate(items):
        said = STARTS[it.said]
        vf = VFROM[it.vf] if it.vf is not None else said
        vt = VTO[it.vt] if it.vt is not None else None
        if vt is not None and vt <= vf:
            vt = None
        v = V(
            id=f"f{i}",
            op=op,
            subject="alice",
            predicate="likes" if many else "lives_in",
            obj=OBJECTS[it.obj],
            vf=vf,
            stated=it.vf is not None,
            vt=vt,
            version=i + 1,
        )
        v.links["e0"] = (op, said)
        tellings = [Telling(at_op(op), said)]
        if it.retell is not None and STARTS[it.retell] > said:
            v.links["e1"] = (op + 2, STARTS[it.retell])
            tellings.append(Telling(at_op(op + 2), STARTS[it.retell]))
        if it.retract_after is not None:
            v.ret_op = op + it.retract_after
        activated: datetime | None = at_op(op)
        if it.activate_after is not None:
            activated = None if it.activate_after < 0 else at_op(op + it.activate_after)
        versions.append(v)
        lives.append(
            VersionLife(
                id=v.id,
                version=v.version,
                object_key=v.obj,
                valid_from=vf,
                valid_to=vt,
                stated=v.stated,
                recorded_at=at_op(op),
                activated_at=activated,
                ended_at=at_op(v.ret_op) if v.ret_op is not None else None,
                tellings=tuple(tellings),
                many=many,
            )
        )
        op += 1
    return Slot(many, versions, lives, op + 8)


def probes(slot: Slot) -> list[datetime | None]:
    cuts = {t for life in slot.lives for t in (life.valid_from, life.valid_to) if t is not None}
    return [None, *sorted(cuts), *sorted(t - US for t in cuts)]


def model_answer(slot: Slot, j: int, at: datetime, view: View) -> set[str]:
    active = {
        life.id for life in slot.lives if view is View.ALL or life.believed(at_op(j), View.ACTIVE)
    }
    return Model([v for v in slot.versions if v.id in active]).in_force(j, at)


slots = st.tuples(st.booleans(), st.lists(ops, min_size=1, max_size=6))


@settings(max_examples=300, deadline=None)
@given(slots)
def test_the_rule_answers_what_the_reference_model_answers(case: tuple[bool, list[Op]]) -> None:
    slot = build(*case)
    for j in range(slot.n_ops):
        for view in (View.ACTIVE, View.ALL):
            claims = [life.claim(at_op(j)) for life in slot.lives if life.believed(at_op(j), view)]
            for at in probes(slot):
                got = winners_at(claims, at)
                if at is not None:
                    assert got == model_answer(slot, j, at, view), (j, at, view)
                if not slot.many:
                    assert len(got) <= 1
                    if any(c.valid_at(at) for c in claims) and all(
                        c.valid_to is None for c in claims
                    ):
                        assert len(got) == 1


@settings(max_examples=300, deadline=None)
@given(slots)
def test_the_resolved_timeline_agrees_with_the_rule_everywhere(
    case: tuple[bool, list[Op]],
) -> None:
    slot = build(*case)
    for j in range(slot.n_ops):
        claims = [life.claim(at_op(j)) for life in slot.lives if life.believed(at_op(j), View.ALL)]
        spans = effective(claims)
        for at in probes(slot):
            covering = {
                s.fact_id
                for s in spans
                if (s.valid_from is None or (at is not None and s.valid_from <= at))
                and (s.valid_to is None or at is None or at < s.valid_to)
            }
            assert covering == winners_at(claims, at), (j, at)
        if not slot.many:  # one answer per moment: spans never overlap
            ordered = sorted(spans, key=lambda s: (s.valid_from is not None, s.valid_from))
            for a, b in itertools.pairwise(ordered):
                assert a.valid_to is not None and b.valid_from is not None
                assert a.valid_to <= b.valid_from


@settings(max_examples=300, deadline=None)
@given(slots)
def test_segments_written_change_by_change_equal_the_recomputed_timeline(
    case: tuple[bool, list[Op]],
) -> None:
    slot = build(*case)
    stored: list[Segment] = []
    for j in range(slot.n_ops):
        now = at_op(j)
        known = [life for life in slot.lives if life.recorded_at <= now]
        change = settle_open(known, [s for s in stored if s.sys_to is None], now)
        gone = set(change.close) | set(change.delete)
        stored = [s for s in stored if s not in gone]
        stored += [
            Segment(s.fact_id, s.view, s.sys_from, now, s.valid_from, s.valid_to)
            for s in change.close
        ]
        stored += change.create
    assert normalise(stored) == normalise(bitemporal(slot.lives))
    for j in range(slot.n_ops):
        for view in (View.ACTIVE, View.ALL):
            live = {
                s.span
                for s in normalise(stored)
                if s.view is view
                and s.sys_from <= at_op(j)
                and (s.sys_to is None or at_op(j) < s.sys_to)
            }
            assert live == spans_at(slot.lives, at_op(j), view)


def test_retelling_any_number_of_times_never_changes_an_earlier_answer() -> None:
    """Told "Paris" undated, then "Berlin", then Paris retold in three later sessions: each
    answer recorded at its moment reads the same afterwards."""
    paris = VersionLife(
        id="paris",
        version=1,
        object_key="paris",
        valid_from=STARTS[0],
        valid_to=None,
        stated=False,
        recorded_at=at_op(0),
        activated_at=at_op(0),
        ended_at=None,
        tellings=(
            Telling(at_op(0), STARTS[0]),
            Telling(at_op(2), STARTS[2]),
            Telling(at_op(3), STARTS[3]),
        ),
    )
    berlin = VersionLife(
        id="berlin",
        version=2,
        object_key="berlin",
        valid_from=STARTS[1],
        valid_to=None,
        stated=False,
        recorded_at=at_op(1),
        activated_at=at_op(1),
        ended_at=None,
        tellings=(Telling(at_op(1), STARTS[1]),),
    )
    lives = [paris, berlin]
    now = STARTS[3] + timedelta(days=1)
    seen = [
        winners_at([v.claim(at_op(j)) for v in lives if v.believed(at_op(j), View.ACTIVE)], now)
        for j in range(4)
    ]
    assert seen == [{"paris"}, {"berlin"}, {"paris"}, {"paris"}]
    segs = normalise(bitemporal(lives))
    for j, want in enumerate(seen):
        got = {
            s.fact_id
            for s in segs
            if s.view is View.ACTIVE
            and s.sys_from <= at_op(j)
            and (s.sys_to is None or at_op(j) < s.sys_to)
            and (s.valid_from is None or s.valid_from <= now)
            and (s.valid_to is None or now < s.valid_to)
        }
        assert got == want
