"""The typed client's wire mapping: snake_case fields <-> camelCase GraphQL, without I/O."""

from __future__ import annotations

from datetime import UTC, datetime

from graph_memory.client_types import (
    AssertResult,
    Citation,
    EpisodeIn,
    Fact,
    FactIn,
    from_wire,
    to_wire,
)

JAN = datetime(2026, 1, 1, tzinfo=UTC)


def test_inputs_go_out_camel_case_with_defaults_left_to_the_server() -> None:
    fact = FactIn("alice", "lives_in", "Berlin", ("ep1", Citation("ep2", 0.5)), valid_from=JAN)
    assert to_wire(fact) == {
        "subject": "alice",
        "predicate": "lives_in",
        "object": "Berlin",
        "episodes": [{"episodeId": "ep1"}, {"episodeId": "ep2", "weight": 0.5}],
        "source": "user",
        "validFrom": "2026-01-01T00:00:00+00:00",
        "dependsOn": [],
    }
    ep = to_wire(EpisodeIn("alice", "s1", "a summary of the session", topics=("move",)))
    assert ep["userId"] == "alice" and ep["sessionId"] == "s1" and ep["topics"] == ["move"]
    assert "startedAt" not in ep and "scope" not in ep


def test_results_come_in_snake_case_typed_and_tolerate_new_fields() -> None:
    raw = {
        "accepted": 1,
        "rejected": 1,
        "results": [
            {"index": 0, "ok": True, "factId": "f1", "confidence": 0.7, "error": None},
            {
                "index": 1,
                "ok": False,
                "error": {"code": "VALIDATION", "message": "m", "field": "x"},
            },
        ],
        "somethingNew": 3,
    }
    out = from_wire(AssertResult, raw)
    assert out.results[0].fact_id == "f1" and out.results[1].error is not None
    assert out.results[1].error.code == "VALIDATION"
    fact = from_wire(
        Fact,
        {
            "id": "f1", "scope": "user:alice", "subject": "alice", "predicate": "lives_in",
            "object": "Berlin", "text": "alice lives in Berlin", "status": "ACTIVE",
            "tier": "USER", "confidence": 1, "version": 1,
            "recordedAt": "2026-03-01T10:00:00+00:00", "validFrom": None,
            "provenance": [{"episodeId": "e", "sessionId": "s", "userId": "alice", "weight": 1}],
        },
    )  # fmt: skip
    assert fact.recorded_at == datetime(2026, 3, 1, 10, tzinfo=UTC) and fact.valid_from is None
    assert isinstance(fact.confidence, float) and fact.provenance[0].user_id == "alice"
