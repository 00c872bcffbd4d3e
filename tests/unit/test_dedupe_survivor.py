"""Which version of one claim told twice a dedupe keeps, and which it merges into it (pure)."""

from __future__ import annotations

from typing import Any

from graph_memory.services.consolidation.steps import _best, _covered


def _v(vid: str, tier: int, day: int, sessions: int = 1) -> dict[str, Any]:
    return {
        "id": vid,
        "tier_rank": tier,
        "starts": f"2026-11-{day:02d}T10:00:00Z",
        "sessions": sessions,
        "confidence": 0.7,
        "status": "active",
        "recorded_at": f"2026-11-{day:02d}T10:00:01Z",
    }


def test_the_survivor_holds_from_the_earliest_of_its_tier() -> None:
    early, later = _v("a", 1, 1), _v("b", 1, 20, sessions=2)
    keep = _best([later, early])
    assert keep is early  # better supported, but it would leave Nov 1-20 without an answer
    assert _covered(keep, [early, later]) == ["b"]


def test_a_lower_tier_that_holds_from_earlier_stays() -> None:
    inferred, user = _v("a", 0, 2), _v("b", 1, 3)
    keep = _best([inferred, user])
    assert keep is user  # a merge never lowers the tier
    assert _covered(keep, [inferred, user]) == []  # Nov 2 keeps its answer
    same_day = _v("c", 0, 3)
    assert _covered(keep, [inferred, user, same_day]) == ["c"]


def test_a_served_version_is_never_folded_into_a_candidate() -> None:
    candidate = {**_v("a", 0, 1, sessions=2), "status": "candidate"}
    approved = _v("b", 0, 20)
    keep = _best([candidate, approved])
    assert keep is approved  # the reviewer's approval stays
    assert _covered(keep, [candidate, approved]) == ["a"]  # the candidate answered no day
