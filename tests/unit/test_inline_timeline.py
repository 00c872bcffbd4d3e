"""services/facts/inline_timeline.py: a slot settled in memory from the state read under the
lock plus the batch's new rows ends up with the timeline recomputed from all its versions.

Random slots (single- and many-valued, dated and undated, ended, candidates) are first written
change by change as the store would hold them (closed and open segments), then a batch adds
versions at ``now``: the segments put on the new rows, plus the closes, deletes and creates
returned for the stored ones, applied to the stored segments, equal the whole history
recomputed (graph_memory/temporal.bitemporal).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graph_memory.domain import as_datetime
from graph_memory.repositories.write_state import SlotState
from graph_memory.services.facts.inline_timeline import life_of_row, settle_inline
from graph_memory.temporal import Segment, Telling, VersionLife, View, bitemporal, normalise
from graph_memory.temporal import settle_open as settle

T0 = datetime(2030, 1, 1, tzinfo=UTC)
VFROM = [datetime(y, 1, 1, tzinfo=UTC) for y in (2019, 2021, 2023, 2025)]
VTO = [datetime(y, 6, 1, tzinfo=UTC) for y in (2020, 2022, 2024, 2026)]
KEY = ("user:alice", "alice", "lives_in")

version = st.tuples(
    st.integers(0, 2),  # object
    st.one_of(st.none(), st.integers(0, 3)),  # validFrom (None: undated)
    st.one_of(st.none(), st.integers(0, 3)),  # validTo
    st.booleans(),  # active (else a candidate)
)


def _valid(vf: int | None, vt: int | None) -> tuple[datetime | None, datetime | None]:
    start = VFROM[vf] if vf is not None else None
    end = VTO[vt] if vt is not None else None
    if start is not None and end is not None and end <= start:
        end = None
    return start, end


def _row(n: int, spec: tuple[int, int | None, int | None, bool], many: bool, at: datetime) -> Any:
    obj, vf, vt, active = spec
    start, end = _valid(vf, vt)
    return {
        "id": f"f{n}",
        "version": n,
        "object_key": f"o{obj}",
        "scope": KEY[0],
        "subject": KEY[1],
        "props": {
            "predicate": KEY[2],
            # An undated claim starts when it was said (rows.default_valid_from).
            "valid_from": start or at,
            "valid_from_stated": start is not None,
            "valid_to": end,
            "told_at": at,
            "activated_at": at if active else None,
            "cardinality": "many" if many else "one",
        },
    }


def _parsed(row: dict[str, Any]) -> Segment:
    return Segment(
        fact_id=row["fact_id"],
        view=View(row["view"]),
        sys_from=as_datetime(row["sys_from"]) or T0,
        sys_to=as_datetime(row["sys_to"]),
        valid_from=as_datetime(row["valid_from"]),
        valid_to=as_datetime(row["valid_to"]),
    )


@settings(max_examples=300, deadline=None)
@given(
    stored=st.lists(version, max_size=5),
    ended=st.sets(st.integers(0, 4)),
    new=st.lists(version, min_size=1, max_size=3),
    many=st.booleans(),
)
def test_inline_settle_equals_the_recomputed_timeline(
    stored: list[tuple[int, int | None, int | None, bool]],
    ended: set[int],
    new: list[tuple[int, int | None, int | None, bool]],
    many: bool,
) -> None:
    # The store, change by change: version k told at T0 + k s, some retracted a bit later.
    lives: list[VersionLife] = []
    segments: dict[str, Segment] = {}
    moments: list[tuple[datetime, int, str]] = []
    for k in range(len(stored)):
        moments.append((T0 + timedelta(seconds=k), k, "tell"))
        if k in ended:
            moments.append((T0 + timedelta(seconds=k, milliseconds=500), k, "end"))
    for at, k, what in sorted(moments):
        if what == "tell":
            lives.append(life_of_row(_row(k + 1, stored[k], many, at), at))
        else:
            lives[k] = replace(lives[k], ended_at=at)
        open_ = {s: i for i, s in segments.items() if s.sys_to is None}
        change = settle(lives, list(open_), at)
        for s in change.close:
            segments[open_[s]] = replace(s, sys_to=at)
        for s in change.delete:
            del segments[open_[s]]
        for j, s in enumerate(change.create):
            segments[f"{at.isoformat()}-{j}"] = s
    state = SlotState(
        lives=list(lives),
        open={s: i for i, s in segments.items() if s.sys_to is None},
    )

    now = T0 + timedelta(minutes=5)
    rows = [_row(len(stored) + 1 + j, spec, many, now) for j, spec in enumerate(new)]
    inline = settle_inline(rows, {KEY: state}, [KEY], now)

    for i in inline.close:
        segments[i] = replace(segments[i], sys_to=now)
    for i in inline.delete:
        del segments[i]
    written = [_parsed(r) for r in inline.create]
    written += [_parsed(g) for r in rows for g in r.get("segments", [])]
    assert all(g["fact_id"] == r["id"] for r in rows for g in r.get("segments", []))
    assert all(r["fact_id"] not in {n["id"] for n in rows} for r in inline.create)
    every = [*lives, *(life_of_row(r, now) for r in rows)]
    assert normalise([*segments.values(), *written]) == normalise(bitemporal(every))


def test_a_new_version_that_interrupts_a_stored_one_reopens_its_other_parts() -> None:
    """ "In Berlin for 2024" told after "in Paris since 2019": Paris's open segment closes, and
    Paris answers again before and after 2024 (segments of the stored version, for
    timeline.apply); Berlin's is on its own row (written by fact.create)."""
    paris_at = T0
    paris = life_of_row(_row(1, (0, 0, None, True), False, paris_at), paris_at)
    (opened,) = settle([paris], [], paris_at).create
    state = SlotState(lives=[paris], open={opened: "seg-paris"})
    now = T0 + timedelta(days=1)
    berlin = _row(2, (1, None, None, True), False, now)
    berlin["props"] |= {
        "valid_from": datetime(2024, 1, 1, tzinfo=UTC),
        "valid_from_stated": True,
        "valid_to": datetime(2025, 1, 1, tzinfo=UTC),
    }
    change = settle_inline([berlin], {KEY: state}, [KEY], now)
    assert change.close == ["seg-paris"] and change.delete == []
    assert sorted((r["fact_id"], r["valid_from"], r["valid_to"]) for r in change.create) == [
        ("f1", "2019-01-01T00:00:00+00:00", "2024-01-01T00:00:00+00:00"),
        ("f1", "2025-01-01T00:00:00+00:00", None),
    ]
    assert [(g["fact_id"], g["view"]) for g in berlin["segments"]] == [("f2", "both")]
    assert settle_inline([], {KEY: state}, [KEY], now).close == []
    assert not settle_inline([berlin], {KEY: state}, [], now)
    assert paris.tellings == (Telling(paris_at, paris_at),)
