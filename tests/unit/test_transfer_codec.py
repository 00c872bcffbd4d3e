"""Export values: every Neo4j property type the store holds survives JSON and comes back as
the same type; what cannot cross is refused by name."""

from __future__ import annotations

import json
from datetime import UTC
from typing import Any

import pytest
from neo4j.time import Date, DateTime, Duration, Time

from graph_memory.repositories.transfer import decode_value, encode_value


@pytest.mark.parametrize(
    "value",
    [
        "text",
        7,
        0.25,
        True,
        None,
        [0.1, -0.2, 0.3],
        ["a", "b"],
        [],
        DateTime(2026, 3, 1, 9, 30, 15, 123456789, tzinfo=UTC),
        DateTime(2026, 3, 1, 9, 30, 15),  # local
        Date(2026, 3, 1),
        Time(9, 30, 15, 500_000_000),
        Duration(days=3, hours=4, minutes=5, seconds=6.5),
        Duration(months=14),
        [DateTime(2026, 1, 1, tzinfo=UTC), DateTime(2026, 2, 1, tzinfo=UTC)],
    ],
)
def test_round_trip(value: object) -> None:
    back = decode_value(json.loads(json.dumps(encode_value(value))))
    assert back == value
    assert type(back) is type(value)


def test_a_zoned_datetime_comes_back_with_a_plain_offset() -> None:
    back = decode_value({"$datetime": "2026-03-01T09:30:15.000000001+00:00"})
    assert back.tzinfo is UTC  # not a zone id, which Neo4j would print as Z[UTC]
    assert back.nanosecond == 1


def test_what_cannot_cross_is_refused() -> None:
    with pytest.raises(ValueError, match="bytes cannot be exported"):
        encode_value(b"\x00")
    with pytest.raises(ValueError, match="not an exported property value"):
        decode_value({"$datetime": "yesterday", "extra": 1})
    with pytest.raises(ValueError, match="not an exported property value"):
        decode_value({"nested": "map"})


def test_marks_of_an_export_made_before_acted_for_fields_get_them_on_import() -> None:
    """An export from before schema 110 carries a token's actor label but not the field a
    forget finds it by: the import derives it as the migration did, and nothing else."""
    from graph_memory.services.access.session_tokens import acted_for_of
    from graph_memory.services.store.transfer import _node

    assert acted_for_of("agent:bot for ops for bob") == "bob"
    assert acted_for_of("admin:boss for bob") is None
    assert acted_for_of("agent:k for [forgotten]") is None
    assert acted_for_of(None) is None
    event = _node(
        1,
        {"key": 1, "labels": ["AuditEvent"], "props": {"tenant": "t", "actor": "agent:k for bob"}},
        "t",
    )
    assert event["props"]["acted_for"] == "bob"
    fact = _node(
        2,
        {
            "key": 2,
            "labels": ["Fact"],
            "props": {"tenant": "t", "created_by": "agent:k for bob", "retracted_by": "admin:x"},
        },
        "t",
    )
    assert fact["props"]["created_for"] == "bob" and "retracted_for" not in fact["props"]
    kept = _node(
        3,
        {
            "key": 3,
            "labels": ["Memo"],
            "props": {"tenant": "t", "closed_by": "agent:k for bob", "closed_for": None},
        },
        "t",
    )
    assert kept["props"]["closed_for"] is None  # written by code that knew the field: as is
    proc = _node(
        4,
        {
            "key": 4,
            "labels": ["Procedure"],
            "props": {"tenant": "t", "created_by": "agent:k for bob"},
        },
        "t",
    )
    assert "created_for" not in proc["props"]


def test_episodes_of_an_export_made_before_speakers_get_theirs_on_import() -> None:
    """An export from before schema 130 has turns without a speaker: the import derives it
    by the same rule as the write path; a digest and a stored speaker are left as they are."""
    from graph_memory.services.store.transfer import _node

    def episode(n: int, **props: object) -> dict[str, Any]:
        record = {"key": n, "labels": ["Episode"], "props": {"tenant": "t", **props}}
        stored: dict[str, Any] = _node(n, record, "t")["props"]
        return stored

    assert episode(1, summary="Leo: I passed my lieutenant exam")["speaker"] == "leo"
    assert "speaker" not in episode(2, summary="a plain session summary")
    assert "speaker" not in episode(3, summary="Leo: Poor guy.\nSamira: Yes.", digest=True)
    assert episode(4, summary="Leo: hi there", speaker=None)["speaker"] is None
