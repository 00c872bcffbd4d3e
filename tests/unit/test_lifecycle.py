"""The change log of a version (temporal/lifecycle.py): its state at a moment is the log
folded up to then, so no later change alters an earlier answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from graph_memory.domain import Status
from graph_memory.temporal.lifecycle import Change, LifeState, life_at

T0 = datetime(2026, 1, 1, tzinfo=UTC)

logs = st.lists(
    st.tuples(st.integers(min_value=0, max_value=20), st.sampled_from(list(Change))),
    max_size=12,
).map(lambda xs: sorted(((T0 + timedelta(days=d), c) for d, c in xs), key=lambda x: x[0]))


@given(logs, st.integers(min_value=-1, max_value=21))
def test_a_later_change_never_alters_an_earlier_state(
    log: list[tuple[datetime, Change]], day: int
) -> None:
    at = T0 + timedelta(days=day)
    before = [(when, c) for when, c in log if when <= at]
    assert life_at(log, at) == life_at(before)
    assert life_at(log, at) == life_at(log[: len(before)], at)


@given(logs)
def test_flags_are_the_last_flag_or_verification(log: list[tuple[datetime, Change]]) -> None:
    marks = [c for _, c in log if c in (Change.FLAGGED, Change.VERIFIED)]
    state = life_at(log)
    assert state.flagged == bool(marks and marks[-1] is Change.FLAGGED)


def test_an_ending_wins_and_a_never_activated_version_is_a_candidate() -> None:
    day = [T0 + timedelta(days=d) for d in range(5)]
    log = [(day[0], Change.ACTIVATED), (day[1], Change.EXPIRED), (day[2], Change.SUPERSEDED)]
    assert life_at(log, day[0]).status is Status.ACTIVE
    assert life_at(log, day[1]).status is Status.EXPIRED
    assert life_at(log, day[2]).status is Status.SUPERSEDED
    assert life_at(log, day[0] - timedelta(seconds=1)) == LifeState()
    assert life_at([(day[1], Change.EXPIRED)]).status is Status.CANDIDATE
    assert life_at([(day[1], Change.REJECTED)]).status is Status.REJECTED
    retracted = [(day[0], Change.ACTIVATED), (day[3], Change.RETRACTED)]
    assert life_at(retracted).status is Status.RETRACTED
    assert life_at(retracted).activated_at == day[0]


def test_a_rewritten_entry_counts_at_its_moment_not_its_place_in_the_log() -> None:
    # An excision moves a supersession to the surviving successor's time, appended last.
    day = [T0 + timedelta(days=d) for d in range(4)]
    log = [(day[0], Change.ACTIVATED), (day[3], Change.FLAGGED), (day[1], Change.SUPERSEDED)]
    assert life_at(log, day[2]).status is Status.SUPERSEDED
    assert life_at(log, day[2]).flagged is False
