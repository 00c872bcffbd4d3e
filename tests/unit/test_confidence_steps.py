"""Each item's share of a batch's confidence change (services/facts/confidence_steps.py)."""

from __future__ import annotations

import pytest

from graph_memory.services.facts.confidence_steps import Touch, steps

SESSIONS = {"e1": "u\x00s1", "e2": "u\x00s2", "e3": "u\x00s3", "e1b": "u\x00s1"}


def cite(episode: str, weight: float) -> list[dict[str, object]]:
    return [{"episode_id": episode, "weight": weight}]


def test_a_candidate_created_and_corroborated_in_one_batch_is_promoted_once() -> None:
    touches = [
        Touch(0, "f", cite("e1", 0.6), created=True),
        Touch(1, "f", cite("e2", 0.5), created=False),
        Touch(2, "f", cite("e3", 0.5), created=False),
    ]
    created = {"f": {"status": "candidate", "tier_cap": 0.7}}
    out = steps(touches, {}, created, {"f": 0.7}, SESSIONS, promote_sessions=3)
    assert [out[i].delta for i in range(3)] == [0.6, pytest.approx(0.1), 0.0]  # capped at 0.7
    assert [out[i].promoted for i in range(3)] == [False, False, True]
    assert sum(s.delta for s in out.values()) == pytest.approx(0.7)


def test_corroborations_of_an_existing_fact_split_the_change() -> None:
    before = {
        "f": {
            "confidence": 0.6,
            "status": "active",
            "tier_cap": 0.95,
            "evidence": [{"episode_id": "e1", "session": "u\x00s1", "weight": 0.6}],
        }
    }
    touches = [
        Touch(3, "f", cite("e2", 0.5), created=False),
        Touch(5, "f", cite("e1b", 0.9), created=False),  # same session as e1: its strongest
        Touch(7, "f", cite("e1", 0.9), created=False),  # already linked: keeps its weight
    ]
    out = steps(touches, before, {}, {"f": 0.95}, SESSIONS, promote_sessions=3)
    assert out[3].delta == pytest.approx(0.2)  # 0.6 -> 0.8
    assert out[5].delta == pytest.approx(0.15)  # 0.8 -> 0.95 (1 - 0.1 * 0.5), at the cap
    assert out[7].delta == 0.0
    assert not any(s.promoted for s in out.values())
