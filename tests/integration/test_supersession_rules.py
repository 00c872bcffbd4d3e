"""Review: supersession, tiers, candidates and version numbering, as a user sees them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact

NOW = datetime.now(UTC)


def _eps(client: GraphMemoryClient, n: int, user: str = "alice", **kw: Any) -> list[str]:
    return [
        client.record_episode(**episode(user, f"s-{uuid.uuid4().hex[:8]}", **kw)) for _ in range(n)
    ]


def _current(client: GraphMemoryClient, subject: str, predicate: str, **kw: Any) -> list[str]:
    page = client.facts(["user:alice"], subject=subject, predicate=predicate, **kw)
    return sorted(e["node"]["object"] for e in page["edges"])


def test_a_b_a_across_batches_versions_and_current(client: GraphMemoryClient) -> None:
    (e,) = _eps(client, 1)
    r1 = client.assert_facts([fact("alice", "lives_in", "Paris", [e], cardinality="ONE")])
    r2 = client.assert_facts([fact("alice", "lives_in", "Berlin", [e])])
    r3 = client.assert_facts([fact("alice", "lives_in", "Paris", [e])])
    assert [r["results"][0]["action"] for r in (r1, r2, r3)] == [
        "created",
        "superseded",
        "superseded",
    ]
    assert [r["results"][0]["version"] for r in (r1, r2, r3)] == [1, 2, 3]
    assert _current(client, "alice", "lives_in") == ["Paris"]
    versions = client.history("alice", "lives_in", ["user:alice"])["versions"]
    assert [v["object"] for v in versions] == ["Paris", "Berlin", "Paris"]
    assert [v["status"] for v in versions] == ["SUPERSEDED", "SUPERSEDED", "ACTIVE"]


def test_a_b_a_in_one_batch(client: GraphMemoryClient) -> None:
    (e,) = _eps(client, 1)
    r = client.assert_facts(
        [
            fact("alice", "lives_in", "Paris", [e], cardinality="ONE"),
            fact("alice", "lives_in", "Berlin", [e]),
            fact("alice", "lives_in", "Paris", [e]),
        ]
    )
    assert [x["version"] for x in r["results"]] == [1, 2, 3]
    assert _current(client, "alice", "lives_in") == ["Paris"]


def test_reassert_after_retract_continues_the_version_chain(client: GraphMemoryClient) -> None:
    """Retract v1 then assert a new object: history must not show two 'version 1's."""
    (e,) = _eps(client, 1)
    r1 = client.assert_facts([fact("alice", "lives_in", "Paris", [e], cardinality="ONE")])
    client.retract_fact(r1["results"][0]["factId"], "wrong city")
    r2 = client.assert_facts([fact("alice", "lives_in", "Berlin", [e])])
    versions = client.history("alice", "lives_in", ["user:alice"])["versions"]
    assert [(v["object"], v["status"]) for v in versions] == [
        ("Paris", "RETRACTED"),
        ("Berlin", "ACTIVE"),
    ]
    assert r2["results"][0]["version"] == 2, "version numbers restart after a retraction"


def test_retract_then_reassert_same_object_is_served_again(client: GraphMemoryClient) -> None:
    (e,) = _eps(client, 1)
    r1 = client.assert_facts([fact("alice", "lives_in", "Paris", [e], cardinality="ONE")])
    client.retract_fact(r1["results"][0]["factId"])
    assert _current(client, "alice", "lives_in") == []
    r2 = client.assert_facts([fact("alice", "lives_in", "Paris", [e])])
    assert r2["results"][0]["action"] in ("created", "superseded")
    assert _current(client, "alice", "lives_in") == ["Paris"]


def test_user_statement_of_a_candidate_object_makes_it_active(client: GraphMemoryClient) -> None:
    """The agent inferred 'blue' (candidate); the user then states 'blue' outright. A user-tier
    assertion is active at once, so the fact must now be served."""
    (e1, e2) = _eps(client, 2)
    c = client.assert_facts(
        [fact("alice", "favourite_colour", "blue", [e1], source="conversation", cardinality="ONE")]
    )
    assert c["results"][0]["status"] == "CANDIDATE"
    u = client.assert_facts([fact("alice", "favourite_colour", "blue", [e2], source="user")])
    assert u["results"][0]["ok"]
    assert u["results"][0]["status"] == "ACTIVE", u["results"][0]
    assert _current(client, "alice", "favourite_colour") == ["blue"]


def test_user_fact_supersedes_candidate_with_other_object(client: GraphMemoryClient) -> None:
    (e1, e2) = _eps(client, 2)
    client.assert_facts(
        [fact("alice", "favourite_colour", "blue", [e1], source="conversation", cardinality="ONE")]
    )
    u = client.assert_facts([fact("alice", "favourite_colour", "green", [e2], source="user")])
    assert u["results"][0]["action"] == "superseded"
    assert u["results"][0]["status"] == "ACTIVE"
    assert _current(client, "alice", "favourite_colour", includeCandidates=True) == ["green"]


def test_superseded_candidate_is_not_served_as_past_belief(client: GraphMemoryClient) -> None:
    """A candidate was never believed; once superseded it must not appear in an asOf read
    (without includeCandidates) of the time when it was pending."""
    (e1, e2) = _eps(client, 2)
    client.assert_facts(
        [fact("alice", "favourite_colour", "blue", [e1], source="conversation", cardinality="ONE")]
    )
    between = datetime.now(UTC)
    assert _current(client, "alice", "favourite_colour", as_of=between) == []
    client.assert_facts([fact("alice", "favourite_colour", "green", [e2], source="user")])
    assert _current(client, "alice", "favourite_colour", as_of=between) == [], (
        "a superseded candidate leaks into past-belief reads"
    )


def test_admin_corroboration_raises_the_tier(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """User said X, admin confirms X (admin tier). A later user-tier write of Y must not
    silently override what the admin asserted."""
    (e1, e2, e3) = _eps(client, 3)
    client.assert_facts(
        [fact("acme", "plan_tier", "gold", [e1], cardinality="ONE", scope="tenant")]
    )
    a = admin.assert_facts(
        [fact("acme", "plan_tier", "gold", [e2], source="admin", scope="tenant")]
    )
    assert a["results"][0]["ok"]
    u = client.assert_facts([fact("acme", "plan_tier", "bronze", [e3], scope="tenant")])
    assert u["results"][0]["error"] and u["results"][0]["error"]["code"] == "TIER_CONFLICT", u


def test_inferred_three_sessions_in_one_batch_reports_db_status(client: GraphMemoryClient) -> None:
    """Three conversation items (3 sessions) in ONE batch: the stored fact is promoted; the
    per-item results must agree with what was stored."""
    eps = _eps(client, 3)
    r = client.assert_facts(
        [fact("alice", "likes", "tea", [e], source="conversation", cardinality="MANY") for e in eps]
    )
    fid = r["results"][0]["factId"]
    assert {x["factId"] for x in r["results"]} == {fid}
    stored = client.fact(fid)
    assert stored is not None
    reported = [(x["status"], x["confidence"]) for x in r["results"]]
    assert reported[-1] == (stored["status"], stored["confidence"]), (reported, stored["status"])


def test_future_valid_from_then_change_of_mind(client: GraphMemoryClient) -> None:
    """A (valid now), B scheduled from next month, then C replaces the plan from now on.
    Now only C holds; A must not resurface through its stale successor_valid_from."""
    (e,) = _eps(client, 1, startedAt=NOW - timedelta(days=2), endedAt=NOW - timedelta(days=2))
    client.assert_facts([fact("alice", "works_at", "ACME", [e], cardinality="ONE")])
    client.assert_facts(
        [fact("alice", "works_at", "Globex", [e], validFrom=NOW + timedelta(days=30))]
    )
    assert _current(client, "alice", "works_at") == ["ACME"]
    client.assert_facts(
        [fact("alice", "works_at", "Initech", [e], validFrom=NOW - timedelta(days=1))]
    )
    assert _current(client, "alice", "works_at") == ["Initech"]


def test_past_valid_from_answers_valid_at(client: GraphMemoryClient) -> None:
    (e,) = _eps(client, 1, startedAt=NOW - timedelta(days=1), endedAt=NOW - timedelta(days=1))
    client.assert_facts(
        [
            fact(
                "alice",
                "lives_in",
                "Paris",
                [e],
                cardinality="ONE",
                validFrom=NOW - timedelta(days=1000),
            )
        ]
    )
    client.assert_facts(
        [fact("alice", "lives_in", "Berlin", [e], validFrom=NOW - timedelta(days=100))]
    )
    assert _current(client, "alice", "lives_in") == ["Berlin"]
    assert _current(client, "alice", "lives_in", valid_at=NOW - timedelta(days=500)) == ["Paris"]
    assert _current(client, "alice", "lives_in", valid_at=NOW - timedelta(days=2000)) == []


def test_many_predicate_accumulates_and_corroborates(client: GraphMemoryClient) -> None:
    (e1, e2) = _eps(client, 2)
    r = client.assert_facts(
        [
            fact("alice", "speaks", "French", [e1], cardinality="MANY"),
            fact("alice", "speaks", "German", [e1]),
            fact("alice", "speaks", "french", [e2]),
        ]
    )
    assert [x["action"] for x in r["results"]] == ["created", "created", "corroborated"]
    assert _current(client, "alice", "speaks") == ["French", "German"]
    fid = r["results"][0]["factId"]
    client.retract_fact(fid)
    assert _current(client, "alice", "speaks") == ["German"]


def test_predicate_filter_normalised_like_writes(client: GraphMemoryClient) -> None:
    (e,) = _eps(client, 1)
    client.assert_facts([fact("alice", "Lives In", "Paris", [e], cardinality="ONE")])
    assert _current(client, "alice", "lives_in") == ["Paris"]
    assert _current(client, "alice", "Lives In") == ["Paris"]
    assert client.history("alice", "Lives In", ["user:alice"])["versions"]
