"""What a new version supersedes, and whether it only corroborates, in valid time.

A slot (scope, subject, predicate) can be told its history out of order: "Berlin since 2023"
first, "Paris from 2018" later. Who answers at (asOf, validAt) is one rule
(graph_memory/temporal, stored as each slot's timeline): among the versions believed at asOf
and valid at validAt,

* a version whose start nobody stated (validFrom defaulted to when it was first said) is not a
  claim about the world, only about when we heard it: it yields to any version said no
  earlier (``told_at``: the latest start of the episodes it cites; on the same moment, the one
  recorded last). "Alice lives in Paris" told today, then "she has lived in Berlin since 2024",
  makes Berlin current; a March session replayed after a September one does not undo
  September, whatever was recorded first;
* otherwise the one whose validity started last wins, on the same start the one recorded last;
* across dated and undated versions only the best of each kind compete (pairwise, mixed claims
  could beat each other in a circle and leave a slot with no answer);
* a claim said later overrides an undated one only if it still held when that one was said:
  "Paris from 2018 to 2020", told today, is earlier history, not a correction of "Berlin"
  told last year;
* a later version of the same object cuts an earlier one from its start even once it has
  ended ("had Rex until March" ends "has Rex"); a version of another object wins only while
  it holds ("in Berlin for 2024" interrupts "in Paris since 2018", it does not end it).

Stored validity is always what the caller said (or the default), never trimmed: retracting or
forgetting a later version therefore leaves the earlier ones exactly as they were told.

For a new version N, ``place`` applies that rule (``temporal.beats``) at N's start:

* ``prior``: the newest current version N beats there (for a many-valued predicate: among
  versions of the same object), unless N only interrupts it (another object, and N ends
  before it does). N supersedes it: belief in it ends, its dependents are flagged, history
  links them. A lower tier may end none of the higher-tier versions N beats there
  (``ended``), not only ``prior``.
* ``same``: the current version of the same object that already says what N says (it is
  valid at N's start and, when the caller gave an end, ends there too; without any explicit
  validity an open-ended version starting later also agrees: N is older evidence for it).
  Re-asserting it adds evidence instead of a version, subject to the tier/TTL rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.domain import Cardinality
from graph_memory.temporal import Claim, beats

__all__ = ["Placement", "from_micros", "held_claim", "micros", "place"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_NEVER = -(2**62)  # a version without a start sorts before every real instant
_LATEST = datetime(9999, 12, 31, tzinfo=UTC)
_FIRST = datetime(1, 1, 1, tzinfo=UTC)


def micros(value: datetime | None) -> int | None:
    """Exact microseconds since the epoch (floats would round at this magnitude)."""
    return None if value is None else (value - _EPOCH) // _US


def from_micros(value: int) -> datetime:
    return _EPOCH + value * _US


@dataclass(frozen=True)
class Placement:
    same: dict[str, Any] | None
    prior: dict[str, Any] | None
    # Every current version N ends where it starts (``prior`` is the newest): a lower tier
    # may end none of a higher tier's, not only the newest one's.
    ended: tuple[dict[str, Any], ...] = ()

    def supersedes(self, active: bool) -> dict[str, Any] | None:
        """The version a new one supersedes: the newest it ends that was ever served as truth
        (a candidate it ends waits for review on its own); for a version served at once, with
        none such, the newest candidate it ends. A new candidate only links to it: it ends
        it when promoted (cypher/fact/_close_linked), so one session's inference neither
        hides the fact it would replace nor leaves it ended when a reviewer rejects it."""
        served = _newest(v for v in self.ended if v["status"] != "candidate")
        if served is not None or not active:
            return served
        return self.prior


def _start(v: dict[str, Any]) -> int:
    start: int | None = v.get("valid_from_us")
    return _NEVER if start is None else start


def _told(v: dict[str, Any]) -> int:
    told: int | None = v.get("told_us")
    return _start(v) if told is None else told


def _claim(v: dict[str, Any]) -> Claim:
    start, end, told = v.get("valid_from_us"), v.get("valid_to_us"), v.get("told_us")
    said: int | None = told if told is not None else start
    return Claim(
        id=str(v.get("id") or ""),
        version=int(v["version"]),
        object_key=str(v["object_key"]),
        valid_from=None if start is None else from_micros(start),
        valid_to=None if end is None else from_micros(end),
        stated=bool(v.get("valid_from_stated")),
        recorded_at=_FIRST,  # before N: only N's own ties with it are ever compared
        said_at=_FIRST if said is None else from_micros(said),
    )


def _newest(versions: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    return max(versions, key=lambda v: (_start(v), v["version"]), default=None)


def held_claim(
    current: list[dict[str, Any]], object_key: str, end: datetime
) -> dict[str, Any] | None:
    """The current version of this object that an end-only claim ends: the newest one that
    starts before that end."""
    until = micros(end)
    assert until is not None
    return _newest(v for v in current if v["object_key"] == object_key and _start(v) < until)


def place(
    current: list[dict[str, Any]],
    object_key: str,
    card: Cardinality,
    valid_from: datetime,
    valid_to: datetime | None,
    *,
    told: datetime,
    stated: bool,
    explicit: bool,
) -> Placement:
    """``told``: when N was said; ``stated``: whether N's start was given (not defaulted);
    ``explicit``: whether any validity was given."""
    start = micros(valid_from)
    end = micros(valid_to)
    heard = micros(told)
    assert start is not None and heard is not None
    same_object = [v for v in current if v["object_key"] == object_key]
    rivals = current if card is Cardinality.ONE else same_object

    def valid_at_start(v: dict[str, Any]) -> bool:
        v_end = v.get("valid_to_us")
        return _start(v) <= start and (v_end is None or start < v_end)

    agreeing = [
        v for v in same_object if valid_at_start(v) and (end is None or v.get("valid_to_us") == end)
    ]
    if not agreeing and not explicit:
        agreeing = [v for v in same_object if v.get("valid_to_us") is None]

    # N, said now: recorded after every version it meets, so it wins their ties.
    n_claim = Claim(
        id="",
        version=2**62,
        object_key=object_key,
        valid_from=valid_from,
        valid_to=valid_to,
        stated=stated,
        recorded_at=_LATEST,
        said_at=told,
    )

    def beaten(v: dict[str, Any]) -> bool:
        """N beats v at N's start: the read rule itself (graph_memory/temporal)."""
        return beats(n_claim, _claim(v))

    def interrupted(v: dict[str, Any]) -> bool:
        # Another object that outlasts N: N is a stay inside it, not its end.
        v_end = v.get("valid_to_us")
        return v["object_key"] != object_key and end is not None and (v_end is None or v_end > end)

    ended = tuple(v for v in rivals if beaten(v) and not interrupted(v))
    return Placement(same=_newest(agreeing), prior=_newest(ended), ended=ended)
