from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from graph_memory.domain import (
    INDEX_KEY_BYTES,
    MAX_FACT_FIELD,
    MAX_ID_BYTES,
    MAX_SPEAKER_KEY_BYTES,
    MAX_SUBJECT_KEY_BYTES,
    as_datetime,
    check_fact_sizes,
    entity_id,
    entity_key,
    ft_token,
    noisy_or,
    parse_scope,
    parse_scopes,
    require_aware,
)
from graph_memory.errors import ValidationError


def test_noisy_or_counts_one_session_once_and_caps_by_tier() -> None:
    assert noisy_or({"s1": [0.5, 0.5, 0.5]}, cap=1.0) == 0.5
    assert noisy_or({"s1": [0.5], "s2": [0.5]}, cap=1.0) == 0.75
    assert noisy_or({"s1": [0.9], "s2": [0.9], "s3": [0.9]}, cap=0.8) == 0.8
    assert noisy_or({}, cap=1.0) == 0.0


def test_naive_datetimes_are_refused_and_aware_ones_become_utc() -> None:
    with pytest.raises(ValidationError):
        require_aware(datetime(2026, 1, 1), "asOf")
    cet = timezone(timedelta(hours=1))
    assert require_aware(datetime(2026, 1, 1, 1, tzinfo=cet), "asOf") == datetime(
        2026, 1, 1, tzinfo=UTC
    )
    assert require_aware(None, "asOf") is None


def test_scopes() -> None:
    assert parse_scope("user:alice") == "user:alice"
    assert parse_scope("team:support-1") == "team:support-1"
    assert parse_scope("tenant") == "tenant"
    # A caller's missing scope is their mistake (VALIDATION), not an internal fault.
    for missing in (None, ""):
        with pytest.raises(ValidationError):
            parse_scope(missing)
    with pytest.raises(ValidationError):
        parse_scope("group:x")
    assert parse_scopes(["tenant", "user:a", "tenant"]) == ["tenant", "user:a"]
    with pytest.raises(ValidationError):
        parse_scopes([])


def test_entity_keys_normalise_case_and_space() -> None:
    assert entity_key("  Alice   Smith ") == "alice smith"
    assert entity_id("t", "Alice Smith") == entity_id("t", "alice  smith")
    assert entity_id("t", "Alice") != entity_id("t2", "Alice")


def test_fulltext_tokens_do_not_collide_on_dashes() -> None:
    a = ft_token("acme", "tenant")
    b = ft_token("acme-2", "tenant")
    assert a != b and a.isalnum() and b.isalnum()


def test_a_stored_time_with_a_named_zone_reads_as_its_instant() -> None:
    assert as_datetime("2026-10-18T03:09:06.621709Z[UTC]") == datetime(
        2026, 10, 18, 3, 9, 6, 621709, tzinfo=UTC
    )
    paris = as_datetime("2026-10-18T05:09:06+02:00[Europe/Paris]")
    assert paris == datetime(2026, 10, 18, 5, 9, 6, tzinfo=timezone(timedelta(hours=2)))
    assert as_datetime("2026-10-18T03:09:06Z") == datetime(2026, 10, 18, 3, 9, 6, tzinfo=UTC)


def test_the_widest_index_key_fits_neo4js_limit() -> None:
    # schema 009 fact_object_slot: (tenant, scope, subject, predicate, object_key). A tenant
    # is at most 64 ASCII characters (services/access/keys.py), a scope "team:" and 128.
    overhead = 4 * 5  # a few bytes a value, measured against the test Neo4j
    widest = 64 + 5 + 128 + MAX_SUBJECT_KEY_BYTES + MAX_ID_BYTES + MAX_FACT_FIELD + overhead
    assert widest < INDEX_KEY_BYTES
    assert 64 + MAX_SPEAKER_KEY_BYTES + overhead < INDEX_KEY_BYTES


@pytest.mark.parametrize(
    ("subject", "obj", "field"),
    [
        ("\U0001d400" * 512, "tea", "subject"),  # 512 characters, 2048 bytes
        ("Alice", "\u0130" * 2000, "object"),  # 4000 bytes, 6000 once lower-cased
        ("Alice", "\u6f22" * 1500, "object"),  # 4500 bytes
        ("a" * 513, "tea", "subject"),
    ],
)
def test_fact_sizes_are_bounded_in_bytes_as_stored(subject: str, obj: str, field: str) -> None:
    with pytest.raises(ValidationError) as ei:
        check_fact_sizes(subject, obj)
    assert ei.value.field == field


def test_fact_sizes_at_their_bounds_pass() -> None:
    check_fact_sizes("\u6f22" * 341, "x" * MAX_FACT_FIELD)
    check_fact_sizes("Alice", "\u0130" * (MAX_FACT_FIELD // 3))
