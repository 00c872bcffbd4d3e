"""An entity merge's copy of a version (VersionLife.entered_at): believed only from the merge
on, and from then on competing exactly as the version it copies, by hypothesis over the same
random slots as the rule's own property test. So a merge changes no answer before it, and
the survivor's slot after it ranks the carried-over versions as they were told."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_memory.temporal import VersionLife, View, bitemporal
from graph_memory.temporal.timeline import spans_at
from tests.unit.test_temporal_rule import Op, at_op, build, slots


def _copies(lives: list[VersionLife], entered: int) -> list[VersionLife]:
    return [dataclasses.replace(v, entered_at=at_op(entered)) for v in lives]


@settings(max_examples=300, deadline=None)
@given(slots, st.integers(0, 12))
def test_a_copy_is_believed_from_its_entry_and_competes_as_its_version(
    slot_ops: tuple[bool, list[Op]], entered: int
) -> None:
    slot = build(*slot_ops)
    copies = _copies(slot.lives, entered)
    for j in range(slot.n_ops):
        at = at_op(j)
        for view in (View.ACTIVE, View.ALL):
            got = spans_at(copies, at, view)
            if at < at_op(entered):
                assert got == set(), (j, view)
            else:
                assert got == spans_at(slot.lives, at, view), (j, view)


@settings(max_examples=200, deadline=None)
@given(slots, st.integers(0, 12))
def test_no_segment_of_a_copy_starts_before_its_entry(
    slot_ops: tuple[bool, list[Op]], entered: int
) -> None:
    for seg in bitemporal(_copies(build(*slot_ops).lives, entered)):
        assert seg.sys_from >= at_op(entered)
        assert seg.sys_to is None or seg.sys_to > seg.sys_from


def test_an_entry_before_the_recording_changes_nothing() -> None:
    op = Op(obj=0, said=0, vf=None, vt=None, retell=None, retract_after=None, activate_after=None)
    life = build(False, [op]).lives[0]
    early = dataclasses.replace(life, entered_at=life.recorded_at.replace(year=2000))
    assert early.believed_from == life.recorded_at
    assert bitemporal([early]) == bitemporal([life])
