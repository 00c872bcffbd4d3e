"""Salience from usage (pure): unretrieved for 30 days ranks lower, harmful reports demote,
helpful ones cancel them, and a row without usage fields is left alone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph_memory.services.recall.salience import MIN_SALIENCE, salience

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def _ms(days_ago: float) -> float:
    return (NOW - timedelta(days=days_ago)).timestamp() * 1000.0


def test_unused_memories_rank_lower_from_their_last_retrieval_or_recording() -> None:
    assert salience({"last_retrieved_ms": _ms(5), "recorded_ms": _ms(400)}, NOW) == 1.0
    assert salience({"last_retrieved_ms": _ms(31), "recorded_ms": _ms(400)}, NOW) == 0.8
    assert salience({"last_retrieved_ms": None, "recorded_ms": _ms(31)}, NOW) == 0.8
    assert salience({"last_retrieved_ms": None, "recorded_ms": _ms(2)}, NOW) == 1.0
    assert salience({}, NOW) == 1.0


def test_net_harmful_reports_demote_and_helpful_ones_cancel_them() -> None:
    fresh = {"last_retrieved_ms": _ms(1)}
    assert salience({**fresh, "harmful": 1}, NOW) == 0.5
    assert salience({**fresh, "harmful": 2, "helpful": 1}, NOW) == 0.5
    assert salience({**fresh, "harmful": 1, "helpful": 3}, NOW) == 1.0
    assert salience({**fresh, "harmful": 20}, NOW) == MIN_SALIENCE
    assert salience({"last_retrieved_ms": _ms(60), "harmful": 1}, NOW) == 0.4
