"""Procedural memory over HTTP: versions by (intent, role), outcome evidence, intent gating."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode

TEAM = "team:support"
STEPS_V1 = ["Verify the customer's identity", "Send a reset link to the email on file"]
STEPS_V2 = [*STEPS_V1, "Confirm the reset worked before closing the ticket"]


def _upsert(c: GraphMemoryClient, steps: list[str], **kw: Any) -> dict[str, Any]:
    return c.upsert_procedure("reset password", "support_agent", steps, kw.pop("scope", TEAM), **kw)


def _outcomes(c: GraphMemoryClient, proc_id: str, results: list[bool]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ok in results:
        ep = c.record_episode(**episode("alice", scope=TEAM))
        out = c.record_procedure_outcome(proc_id, ok, ep)
    return out


def test_versions_supersede_and_stay_readable_as_of(client: GraphMemoryClient) -> None:
    v1 = _upsert(client, STEPS_V1)
    assert v1["action"] == "created"
    p1 = v1["procedure"]
    assert (p1["intent"], p1["role"], p1["version"], p1["status"]) == (
        "reset_password",
        "support_agent",
        1,
        "candidate",
    )
    assert _upsert(client, STEPS_V1)["action"] == "unchanged"
    between = datetime.now(UTC)
    time.sleep(0.05)
    v2 = _upsert(client, STEPS_V2)
    assert v2["action"] == "new_version"
    p2 = v2["procedure"]
    assert p2["version"] == 2 and p2["supersedes"] == p1["id"] and p2["steps"] == STEPS_V2
    now = client.procedures("Reset Password", [TEAM], include_candidates=True)
    assert [p["id"] for p in now] == [p2["id"]]
    past = client.procedures("reset_password", [TEAM], include_candidates=True, as_of=between)
    assert [p["id"] for p in past] == [p1["id"]] and past[0]["steps"] == STEPS_V1
    assert client.procedures("reset_password", [TEAM]) == []  # candidates wait for evidence


def test_a_past_read_shows_the_evidence_and_supersession_it_had_then(
    client: GraphMemoryClient,
) -> None:
    """Outcomes told and versions made after T do not show in a read as of T: its counts,
    order and supersession are what a read at T answered."""
    p1 = _upsert(client, STEPS_V1)["procedure"]
    _outcomes(client, p1["id"], [True, True])
    then = datetime.now(UTC)
    time.sleep(0.05)
    _outcomes(client, p1["id"], [True, False, False, False, False])
    p2 = _upsert(client, STEPS_V2)["procedure"]
    (past,) = client.procedures("reset_password", [TEAM], include_candidates=True, as_of=then)
    assert past["id"] == p1["id"]
    assert (past["successCount"], past["failureCount"]) == (2, 0)
    assert past["supersededAt"] is None and past["supersededBy"] is None
    (now,) = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert now["id"] == p2["id"] and (now["successCount"], now["failureCount"]) == (0, 0)


def test_three_successes_promote_and_repeated_failures_demote(
    client: GraphMemoryClient,
) -> None:
    proc = _upsert(client, STEPS_V1)["procedure"]
    r = _outcomes(client, proc["id"], [True, True])
    assert r["status"] == "candidate"
    r = _outcomes(client, proc["id"], [True])
    assert (r["statusBefore"], r["status"]) == ("candidate", "active")
    assert r["procedure"]["successCount"] == 3
    assert [p["id"] for p in client.procedures("reset_password", [TEAM])] == [proc["id"]]
    r = _outcomes(client, proc["id"], [False, True, False, False, True, False, False, True])
    assert r["status"] == "active"  # 6 successes, 5 failures, never three in a row: flaky
    r = _outcomes(client, proc["id"], [False, False])
    assert r["status"] == "active"
    r = _outcomes(client, proc["id"], [False])
    # 6 successes, 8 failures: not yet 3 more failures, but the latest three all failed.
    assert (r["statusBefore"], r["status"]) == ("active", "demoted")
    assert client.procedures("reset_password", [TEAM], include_candidates=True) == []
    r = _outcomes(client, proc["id"], [True, True, True])
    assert r["status"] == "active"  # it works again


def test_an_episode_is_one_piece_of_evidence(client: GraphMemoryClient) -> None:
    proc = _upsert(client, STEPS_V1)["procedure"]
    ep = client.record_episode(**episode("alice", scope=TEAM))
    for _ in range(3):
        r = client.record_procedure_outcome(proc["id"], True, ep)
    assert r["procedure"]["successCount"] == 1 and r["status"] == "candidate"
    r = client.record_procedure_outcome(proc["id"], False, ep)  # a corrected verdict
    assert (r["procedure"]["successCount"], r["procedure"]["failureCount"]) == (0, 1)


def test_admin_written_procedures_start_active(admin: GraphMemoryClient) -> None:
    proc = _upsert(admin, STEPS_V1, scope="tenant")["procedure"]
    assert proc["status"] == "active"
    assert [p["id"] for p in admin.procedures("reset_password", ["tenant"])] == [proc["id"]]


def test_recall_serves_procedures_only_for_a_matching_intent(admin: GraphMemoryClient) -> None:
    proc = _upsert(admin, STEPS_V1, scope="tenant", description="when a customer cannot log in")[
        "procedure"
    ]
    kw: dict[str, Any] = {"kinds": ["PROCEDURE"]}
    assert admin.recall("what is the weather in Lisbon", ["tenant"], **kw)["items"] == []
    res = admin.recall("the customer forgot their password and needs to reset it", ["tenant"], **kw)
    assert [i["id"] for i in res["items"]] == [proc["id"]]
    assert res["items"][0]["procedure"]["steps"] == STEPS_V1
    named = admin.recall("what should I do next", ["tenant"], intent="reset_password", **kw)
    assert [i["id"] for i in named["items"]] == [proc["id"]]
    other = admin.recall(
        "the customer forgot their password", ["tenant"], intent="cancel_subscription", **kw
    )
    assert other["items"] == []


def test_procedures_are_tenant_and_scope_isolated(make_client: Any, tenant: str) -> None:
    a, b = make_client(tenant), make_client(f"{tenant}-2")
    _upsert(a, STEPS_V1, scope="team:support")
    assert b.procedures("reset_password", ["team:support"], include_candidates=True) == []
    assert a.procedures("reset_password", ["team:sales"], include_candidates=True) == []


def test_bad_input_and_unknown_ids_are_typed_errors(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    for steps, scope in (([], TEAM), (["  "], TEAM), (STEPS_V1, "nowhere"), (["a\x00b"], TEAM)):
        with pytest.raises(GraphMemoryClientError) as err:
            _upsert(client, steps, scope=scope)
        assert err.value.code == "VALIDATION"
    proc = _upsert(client, STEPS_V1)["procedure"]
    with pytest.raises(GraphMemoryClientError) as err:
        client.record_procedure_outcome(proc["id"], True, "ep_missing")
    assert err.value.code == "NOT_FOUND"
    with pytest.raises(GraphMemoryClientError) as err:
        client.record_procedure_outcome("proc_missing", True, "ep_missing")
    assert err.value.code == "NOT_FOUND"
    with pytest.raises(GraphMemoryClientError) as err:
        _upsert(analyst, STEPS_V1)
    assert err.value.code == "FORBIDDEN"


def test_new_steps_an_agent_writes_replace_proven_ones_only_once_proven(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """A reviewed procedure stays served while an agent's new steps wait as a candidate;
    their third success promotes them and ends it. A second admin version ends whatever is
    current."""
    proven = _upsert(admin, STEPS_V1)["procedure"]
    assert proven["status"] == "active"
    new = _upsert(client, STEPS_V2)
    assert new["action"] == "new_version"
    candidate = new["procedure"]
    assert candidate["status"] == "candidate" and candidate["supersedes"] == proven["id"]
    assert [p["id"] for p in client.procedures("reset_password", [TEAM])] == [proven["id"]]
    both = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert [p["id"] for p in both] == [proven["id"], candidate["id"]]  # the proven first
    assert both[0]["supersededAt"] is None
    r = _outcomes(client, candidate["id"], [True, True, True])
    assert (r["statusBefore"], r["status"]) == ("candidate", "active")
    (served,) = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert served["id"] == candidate["id"] and served["steps"] == STEPS_V2
    # An admin's version ends the served one and a candidate waiting beside it alike.
    waiting = _upsert(client, [*STEPS_V2, "Close the ticket"])["procedure"]
    assert len(client.procedures("reset_password", [TEAM], include_candidates=True)) == 2
    final = _upsert(admin, STEPS_V1)["procedure"]
    assert final["status"] == "active" and final["version"] == 4
    (only,) = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert only["id"] == final["id"]
    assert waiting["id"] != final["id"]


def test_a_corrected_verdict_leaves_earlier_reads_as_they_were(client: GraphMemoryClient) -> None:
    """Reporting an episode's outcome again replaces its verdict from then on only: a read as
    of a moment between the two reports still counts the first (the past never changes)."""
    proc = _upsert(client, STEPS_V1)["procedure"]
    ep = client.record_episode(**episode("alice", scope=TEAM))
    client.record_procedure_outcome(proc["id"], True, ep)
    between = datetime.now(UTC)
    time.sleep(0.05)
    r = client.record_procedure_outcome(proc["id"], False, ep)
    assert (r["procedure"]["successCount"], r["procedure"]["failureCount"]) == (0, 1)
    (past,) = client.procedures("reset_password", [TEAM], include_candidates=True, as_of=between)
    assert (past["successCount"], past["failureCount"]) == (1, 0)
    (now,) = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert (now["successCount"], now["failureCount"]) == (0, 1)
    # Told back to success, and once more the same: one verdict, the latest.
    client.record_procedure_outcome(proc["id"], True, ep)
    r = client.record_procedure_outcome(proc["id"], True, ep)
    assert (r["procedure"]["successCount"], r["procedure"]["failureCount"]) == (1, 0)
    (past,) = client.procedures("reset_password", [TEAM], include_candidates=True, as_of=between)
    assert (past["successCount"], past["failureCount"]) == (1, 0)


def test_recall_as_of_a_moment_shows_the_procedure_as_it_stood_then(
    admin: GraphMemoryClient,
) -> None:
    """Recall ranks and returns a procedure with the evidence it had at asOf: a verdict told
    again later moves neither its counts nor the episode's verdict in the answer."""
    proc = _upsert(admin, STEPS_V1, description="when a customer cannot log in")["procedure"]
    ep = admin.record_episode(**episode("alice", scope=TEAM))
    admin.record_procedure_outcome(proc["id"], True, ep)
    between = datetime.now(UTC)
    time.sleep(0.05)
    admin.record_procedure_outcome(proc["id"], False, ep)
    kw: dict[str, Any] = {"kinds": ["PROCEDURE"], "intent": "reset_password"}

    def asked(**more: Any) -> tuple[int, int, list[bool]]:
        (item,) = admin.recall("the customer needs a password reset", [TEAM], **kw, **more)["items"]
        p = item["procedure"]
        told = [e["success"] for e in item["provenance"]["episodes"]]
        return p["successCount"], p["failureCount"], told

    assert asked(as_of=between.isoformat()) == (1, 0, [True])
    assert asked() == (0, 1, [False])
