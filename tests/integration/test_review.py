"""Promotion review over HTTP: inferred facts wait as candidates with their evidence until
three sessions corroborate them or a reviewer approves or rejects them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode, fact

TEAM = ["team:core"]


def _infer(client: GraphMemoryClient, obj: str, *sessions: tuple[str, str]) -> str:
    """An inferred (conversation) fact about the team, cited by one episode per session."""
    eps = [
        client.record_episode(**episode(user, session, scope="team:core", source="conversation"))
        for user, session in sessions
    ]
    out = client.assert_facts(
        [
            fact(
                "Core team",
                "uses",
                obj,
                eps,
                source="conversation",
                cardinality="MANY",
                scope="team:core",
            )
        ]
    )
    assert out["accepted"] == 1, out
    return str(out["results"][0]["factId"])


def _served(client: GraphMemoryClient) -> list[str]:
    return sorted(e["node"]["object"] for e in client.facts(TEAM, predicate="uses")["edges"])


def test_candidates_wait_in_the_queue_with_their_evidence(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    weak = _infer(client, "Jira", ("alice", "s1"))
    strong = _infer(client, "Linear", ("alice", "s2"), ("bob", "s3"))
    assert _served(client) == []  # candidates are not served as truth
    queue = analyst.review_queue(TEAM)
    assert [q["fact"]["id"] for q in queue] == [strong, weak]  # best supported first
    top = queue[0]
    assert top["sessions"] == 2 and top["neededSessions"] == 3
    assert sorted(top["contributors"]) == ["alice", "bob"]
    assert sorted(e["sessionId"] for e in top["evidence"]) == ["s2", "s3"]
    assert top["fact"]["status"] == "CANDIDATE" and top["fact"]["tier"] == "INFERRED"
    with pytest.raises(GraphMemoryClientError) as err:
        client.review_queue(TEAM)
    assert err.value.code == "FORBIDDEN"


def test_three_sessions_promote_without_review(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    fid = _infer(client, "Slack", ("alice", "s1"), ("bob", "s2"))
    ep = client.record_episode(**episode("carol", "s3", scope="team:core", source="conversation"))
    out = client.assert_facts(
        [fact("Core team", "uses", "Slack", [ep], source="conversation", scope="team:core")]
    )
    assert out["results"][0]["status"] == "ACTIVE"
    assert _served(client) == ["Slack"] and analyst.review_queue(TEAM) == []
    promoted = analyst.audit_log(target=fid, action="promote")["edges"]
    assert promoted and "3 sessions" in promoted[0]["node"]["reason"]


def test_approval_activates_a_candidate_audited(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    fid = _infer(client, "GitHub", ("alice", "s1"))
    with pytest.raises(GraphMemoryClientError) as err:
        client.approve_fact(fid)
    assert err.value.code == "FORBIDDEN"
    approved = analyst.approve_fact(fid)
    assert approved["status"] == "ACTIVE"
    assert _served(client) == ["GitHub"] and analyst.review_queue(TEAM) == []
    ev = analyst.audit_log(target=fid, action="approve")["edges"][0]["node"]
    assert ev["actor"] == "analyst:analyst"
    assert (json.loads(ev["before"]), json.loads(ev["after"])) == (
        {"status": "candidate"},
        {"status": "active"},
    )
    with pytest.raises(GraphMemoryClientError) as err:  # no longer a candidate
        analyst.approve_fact(fid)
    assert err.value.code == "CONFLICT"
    with pytest.raises(GraphMemoryClientError) as err:
        analyst.approve_fact("fact_does_not_exist")
    assert err.value.code == "NOT_FOUND"


def test_rejection_is_never_served_but_stays_in_history(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    fid = _infer(client, "Trello", ("alice", "s1"))
    ep = client.record_episode(**episode("alice", "s9", scope="team:core"))
    derived = client.assert_facts(
        [
            fact(
                "Core team",
                "board_url",
                "trello.com/core",
                [ep],
                scope="team:core",
                cardinality="ONE",
                dependsOn=[fid],
            )
        ]
    )["results"][0]["factId"]
    rejected = admin.reject_fact(fid, "the team never used Trello")
    assert rejected["status"] == "REJECTED"
    assert _served(client) == []
    # The rejected candidate left the queue; the conclusion drawn from it waits there now,
    # flagged, saying why.
    queued = analyst.review_queue(TEAM)
    assert [(i["fact"]["id"], i["fact"]["status"]) for i in queued] == [(derived, "ACTIVE")]
    assert fid in queued[0]["reason"] and "rejected" in queued[0]["reason"]
    hist = client.history("Core team", "uses", TEAM)["versions"]
    assert [(v["object"], v["status"]) for v in hist] == [("Trello", "REJECTED")]
    ev = analyst.audit_log(target=fid, action="reject")["edges"][0]["node"]
    assert ev["reason"] == "the team never used Trello" and ev["actorType"] == "admin"
    conclusion: dict[str, Any] | None = client.fact(derived)
    assert conclusion and conclusion["needsVerification"]
    assert (
        fid in conclusion["verificationReason"] and "rejected" in conclusion["verificationReason"]
    )
