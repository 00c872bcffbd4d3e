"""Dependencies cascade over HTTP: a conclusion whose premise changed is flagged, with why;
a retracted fact stays answerable in history ("X was true and was removed at T by whom")."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact

SCOPES = ["user:alice"]


def _premise_and_conclusion(client: GraphMemoryClient) -> tuple[str, str]:
    e1 = client.record_episode(**episode("alice", "s1"))
    premise = client.assert_facts([fact("alice", "works_at", "ACME", [e1])])
    pid = str(premise["results"][0]["factId"])
    e2 = client.record_episode(**episode("alice", "s2"))
    conclusion = client.assert_facts(
        [fact("alice", "office_city", "Berlin", [e2], cardinality="ONE", dependsOn=[pid])]
    )
    cid = str(conclusion["results"][0]["factId"])
    assert client.fact(cid)["needsVerification"] is False  # type: ignore[index]
    return pid, cid


def _flagged(client: GraphMemoryClient) -> list[dict[str, Any]]:
    return [e["node"] for e in client.facts(SCOPES, needsVerification=True)["edges"]]


def test_superseding_a_premise_flags_its_conclusion_with_the_reason(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    pid, cid = _premise_and_conclusion(client)
    e3 = client.record_episode(**episode("alice", "s3"))
    new = client.assert_facts([fact("alice", "works_at", "Globex", [e3])])["results"][0]
    assert new["action"] == "superseded" and new["supersedes"] == pid
    conclusion = client.fact(cid)
    assert conclusion and conclusion["needsVerification"] is True
    reason = conclusion["verificationReason"]
    assert pid in reason and "superseded" in reason and new["factId"] in reason
    assert [f["id"] for f in _flagged(client)] == [cid]
    # The conclusion still knows its (now historical) premise.
    deps = client.execute(
        "query($id: ID!) { fact(id: $id) { dependsOn { id status } } }", {"id": cid}
    )["fact"]["dependsOn"]
    assert deps == [{"id": pid, "status": "SUPERSEDED"}]
    flags = analyst.audit_log(target=cid, action="flag_needs_verification")["edges"]
    assert len(flags) == 1 and pid in flags[0]["node"]["reason"]


def test_retracting_a_premise_flags_its_conclusion(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    pid, cid = _premise_and_conclusion(client)
    client.retract_fact(pid, "alice never worked at ACME")
    conclusion = client.fact(cid)
    assert conclusion and conclusion["needsVerification"] is True
    assert pid in conclusion["verificationReason"]
    assert "retracted" in conclusion["verificationReason"]
    assert [f["id"] for f in _flagged(client)] == [cid]
    assert analyst.audit_log(target=cid, action="flag_needs_verification")["edges"]


def test_a_conclusion_of_a_conclusion_is_flagged_when_the_first_premise_changes(
    client: GraphMemoryClient,
) -> None:
    pid, cid = _premise_and_conclusion(client)
    e = client.record_episode(**episode("alice", "s4"))
    grand = client.assert_facts(
        [fact("alice", "commute", "U-Bahn", [e], cardinality="ONE", dependsOn=[cid])]
    )["results"][0]["factId"]
    client.retract_fact(pid)
    # Doubt follows the chain: a conclusion drawn from a doubted conclusion is doubted too.
    flagged = client.fact(grand)
    assert flagged["needsVerification"] is True  # type: ignore[index]
    assert "(through 1 intermediate conclusion(s))" in flagged["verificationReason"]  # type: ignore[index]


def test_a_retracted_fact_stays_in_history_as_retracted(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    e = client.record_episode(**episode("alice"))
    fid = client.assert_facts([fact("alice", "timezone", "CET", [e])])["results"][0]["factId"]
    recorded = datetime.fromisoformat(client.fact(fid)["recordedAt"])  # type: ignore[index]
    retracted = admin.retract_fact(fid, "wrong timezone")
    at = datetime.fromisoformat(retracted["retractedAt"])
    assert retracted["status"] == "RETRACTED" and retracted["retractedBy"] == "admin:admin"
    assert retracted["retractReason"] == "wrong timezone"
    # Not served now...
    assert client.facts(SCOPES, subject="alice", predicate="timezone")["edges"] == []
    # ...but "what did we believe just before T" still answers CET...
    before = client.facts(SCOPES, subject="alice", as_of=at - timedelta(microseconds=1))
    assert [x["node"]["object"] for x in before["edges"]] == ["CET"]
    assert client.facts(SCOPES, subject="alice", as_of=at)["edges"] == []
    # ...and history says it was true and was removed at T, by whom and why.
    versions = client.history("alice", "timezone", SCOPES)["versions"]
    assert [(v["object"], v["status"], v["retractedAt"], v["retractedBy"]) for v in versions] == [
        ("CET", "RETRACTED", retracted["retractedAt"], "admin:admin")
    ]
    assert (
        client.history("alice", "timezone", SCOPES, as_of=recorded - timedelta(seconds=1))[
            "versions"
        ]
        == []
    )


def test_a_conclusion_drawn_from_a_doubted_premise_is_born_flagged(
    client: GraphMemoryClient,
) -> None:
    pid, cid = _premise_and_conclusion(client)
    client.retract_fact(pid)  # the office city is now in doubt
    e = client.record_episode(**episode("alice", "s5"))
    late = client.assert_facts(
        [fact("alice", "commute", "S5", [e], cardinality="ONE", dependsOn=[cid])]
    )["results"][0]
    born = client.fact(late["factId"])
    assert born["needsVerification"] is True  # type: ignore[index]
    assert born["verificationReason"] == (  # type: ignore[index]
        f"premise {cid} needs verification when this was derived from it"
    )
    gone = client.assert_facts(
        [fact("alice", "desk", "3rd floor", [e], cardinality="ONE", dependsOn=[pid])]
    )["results"][0]
    assert "was retracted" in client.fact(gone["factId"])["verificationReason"]  # type: ignore[index]


def test_a_conclusion_ends_when_its_premise_says_it_ends(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice", "s1"))
    trial = client.assert_facts(
        [
            fact(
                "alice",
                "plan",
                "premium trial",
                [e],
                cardinality="ONE",
                validTo="2030-03-01T00:00:00Z",
            )
        ]
    )["results"][0]["factId"]
    perk = client.assert_facts(
        [fact("alice", "support", "priority", [e], cardinality="ONE", dependsOn=[trial])]
    )["results"][0]["factId"]
    assert client.fact(perk)["validTo"].startswith("2030-03-01")  # type: ignore[index]
    explicit = client.assert_facts(
        [
            fact(
                "alice",
                "badge",
                "beta tester",
                [e],
                cardinality="ONE",
                dependsOn=[trial],
                validTo="2031-01-01T00:00:00Z",
            )
        ]
    )["results"][0]["factId"]
    assert client.fact(explicit)["validTo"].startswith("2031-01-01")  # type: ignore[index]


def test_an_end_alone_ends_the_claim_already_held(client: GraphMemoryClient) -> None:
    e1 = client.record_episode(**episode("alice", "s1"))
    rex = client.assert_facts([fact("alice", "has_dog", "Rex", [e1], cardinality="ONE")])
    first = rex["results"][0]["factId"]
    told_in_march = client.record_episode(
        **episode("alice", "s2", startedAt="2026-03-10T09:00:00Z", endedAt="2026-03-10T09:30:00Z")
    )
    ended = client.assert_facts(
        [fact("alice", "has_dog", "Rex", [told_in_march], validTo="2026-03-01T00:00:00Z")]
    )["results"][0]
    assert ended["ok"] and ended["supersedes"] == first, ended
    assert client.fact(ended["factId"])["validFrom"] == client.fact(first)["validFrom"]  # type: ignore[index]
    assert client.facts(SCOPES, subject="alice", predicate="has_dog")["edges"] == []


def test_forgetting_the_writer_of_a_change_clears_the_doubt_it_cast_down_the_chain(
    make_client: Any, tenant: str
) -> None:
    client, admin = make_client(tenant, "agent"), make_client(tenant, "admin")
    _, cid = _premise_and_conclusion(client)
    e = client.record_episode(**episode("alice", "s3"))
    grand = client.assert_facts(
        [fact("alice", "commute", "U-Bahn", [e], cardinality="ONE", dependsOn=[cid])]
    )["results"][0]["factId"]
    mallory = client.record_episode(**episode("mallory", "m1", scope="user:alice"))
    change = client.assert_facts([fact("alice", "works_at", "Initech", [mallory])])["results"][0]
    assert client.fact(grand)["needsVerification"] is True
    admin.forget_contributor("mallory")
    # As if Mallory's version had never been written: nothing in the chain is in doubt, and
    # no reason names the excised version.
    for fid in (cid, grand):
        got = client.fact(fid)
        assert got["needsVerification"] is False, got
        assert change["factId"] not in str(got)
