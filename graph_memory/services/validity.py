"""Where a new version sits in its slot's valid time.

A slot (scope, subject, predicate) can hold several current versions when it was told its
history out of order: "Berlin since 2023" first, "Paris from 2018" later. Writes keep those
versions from overlapping, so every read can use one rule: at (asOf, validAt) a slot answers
with the most recently recorded version believed at asOf and valid at validAt.

For a new version N starting at ``valid_from``:

* ``prior``: the current version whose validity started last, at or before N's start (for a
  many-valued predicate: among versions of the same object). N supersedes it; the old
  version keeps answering for moments before N starts.
* ``valid_to``: if a current version starts after N, N is back-filled history and ends where
  that version begins (or earlier, if the caller said so). It supersedes nothing later.
* A start nobody stated (validFrom defaulted to when the episode began) is when we heard it,
  not a claim about the world: such a version never makes a new one back-filled history; the
  new one supersedes it whatever its start. "Alice lives in Paris" told today, then "she has
  lived in Berlin since 2024" makes Berlin current; "Berlin since 2023" stated as a date, then
  "Paris from 2018", keeps Berlin current and Paris as 2018-2023.
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

__all__ = ["Placement", "from_micros", "micros", "place"]

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_NEVER = -(2**62)  # a version without a start sorts before every real instant


def micros(value: datetime | None) -> int | None:
    """Exact microseconds since the epoch (floats would round at this magnitude)."""
    return None if value is None else (value - _EPOCH) // _US


def from_micros(value: int) -> datetime:
    return _EPOCH + value * _US


@dataclass(frozen=True)
class Placement:
    same: dict[str, Any] | None
    prior: dict[str, Any] | None
    valid_to: datetime | None


def _start(v: dict[str, Any]) -> int:
    start: int | None = v.get("valid_from_us")
    return _NEVER if start is None else start


def _newest(versions: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    return max(versions, key=lambda v: (_start(v), v["version"]), default=None)


def place(
    current: list[dict[str, Any]],
    object_key: str,
    card: Cardinality,
    valid_from: datetime,
    valid_to: datetime | None,
    *,
    explicit: bool,
) -> Placement:
    start = micros(valid_from)
    end = micros(valid_to)
    assert start is not None
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
    prior = _newest(v for v in rivals if _start(v) <= start or not v.get("valid_from_stated"))
    later = [_start(v) for v in rivals if _start(v) > start and v.get("valid_from_stated")]
    if later and (end is None or end > min(later)):
        valid_to = from_micros(min(later))
    return Placement(same=_newest(agreeing), prior=prior, valid_to=valid_to)
