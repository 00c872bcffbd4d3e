"""Review findings for commits d558da8..c07363c: each test drives the service through GraphQL,
asserts what a demanding user expects, and is marked xfail(strict) while the bug stands."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact

ALICE = ["user:alice"]
TEAM = ["team:core"]

Q_FACT = """query($id: ID!) { fact(id: $id) { id status needsVerification
  verificationReason supersededBy } }"""
Q_NV = """query($f: FactFilterInput!, $asOf: DateTime) {
  facts(filter: $f, asOf: $asOf, first: 50) { nodes { id object needsVerification } } }"""
FORGET = """mutation($u: String!) { forgetContributor(userId: $u) { receipt
  factVersionsDeleted factsReinstated } }"""


def day(y: int, m: int = 1, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def ep(c: GraphMemoryClient, user: str = "alice", when: datetime | None = None, **kw: Any) -> str:
    if when is not None:
        kw.update(startedAt=when, endedAt=when + timedelta(minutes=30))
    return c.record_episode(**episode(user, **kw))


def put(c: GraphMemoryClient, eps: list[str], s: str, p: str, o: str, **kw: Any) -> str:
    kw.setdefault("cardinality", "ONE")
    r = c.assert_facts([fact(s, p, o, eps, **kw)])["results"][0]
    assert r["ok"], r["error"]
    return str(r["factId"])


def current(c: GraphMemoryClient, scopes: list[str], subject: str, predicate: str) -> list[str]:
    edges = c.facts(scopes, subject=subject, predicate=predicate)["edges"]
    return sorted(e["node"]["object"] for e in edges)


def moment() -> datetime:
    at = datetime.now(UTC)
    time.sleep(0.02)
    return at


def flagged(c: GraphMemoryClient, scopes: list[str], as_of: datetime | None = None) -> list[str]:
    v = {"f": {"scopes": scopes, "needsVerification": True}, "asOf": as_of and as_of.isoformat()}
    return sorted(n["object"] for n in c.execute(Q_NV, v)["facts"]["nodes"])


# -- time: what was told last wins, whatever the ingestion order -------------------------------


def test_a_dated_claim_told_last_stays_current_when_an_older_session_is_replayed_after_it(
    client: GraphMemoryClient,
) -> None:
    # January: "I live in Paris" (undated). February: "I have lived in Berlin since 2024".
    jan, feb = ep(client, when=day(2026, 1)), ep(client, when=day(2026, 2))
    # Told in order, Berlin answers (the commit's rule: the latest told wins).
    put(client, [jan], "Ann", "lives_in", "Paris")
    put(client, [feb], "Ann", "lives_in", "Berlin", validFrom=day(2024).isoformat())
    assert current(client, ALICE, "ann", "lives_in") == ["Berlin"]
    # The same two sessions replayed out of order (February first) must answer the same.
    feb2, jan2 = ep(client, when=day(2026, 2)), ep(client, when=day(2026, 1))
    put(client, [feb2], "Bea", "lives_in", "Berlin", validFrom=day(2024).isoformat())
    put(client, [jan2], "Bea", "lives_in", "Paris")
    assert current(client, ALICE, "bea", "lives_in") == ["Berlin"]


# -- needsVerification as of a past moment -----------------------------------------------------


def test_needs_verification_as_of_survives_a_later_reflag(client: GraphMemoryClient) -> None:
    e = ep(client)
    paris = put(client, [e], "Alice", "lives_in", "Paris")
    acme = put(client, [e], "Alice", "works_at", "Acme")
    put(client, [e], "Alice", "commute", "metro", dependsOn=[paris, acme])
    put(client, [e], "Alice", "lives_in", "Tokyo")  # premise 1 changes: commute flagged
    while_flagged = moment()
    assert flagged(client, ALICE) == ["metro"]
    put(client, [ep(client)], "Alice", "commute", "metro")  # confirmed again: verified
    assert flagged(client, ALICE) == []
    put(client, [e], "Alice", "works_at", "Initech")  # premise 2 changes: flagged again
    assert flagged(client, ALICE) == ["metro"]
    # At while_flagged the conclusion awaited verification (flagged, not yet confirmed).
    assert flagged(client, ALICE, while_flagged) == ["metro"]


# -- recall: the name-free relevance gate drops correct answers -------------------------------


@pytest.mark.parametrize(
    ("subject", "predicate", "obj", "text", "question"),
    [
        ("Alice", "reports_to", "Bob", "Alice reports to Bob", "who is Alice's manager"),
        (
            "VPN",
            "requires",
            "hardware token",
            "VPN access requires a hardware token",
            "how do I connect to the VPN",
        ),
        (
            "Project Apollo",
            "launch",
            "March",
            "Project Apollo launch slipped to March",
            "status of Project Apollo",
        ),
        pytest.param(
            "Alice",
            "lives_in",
            "Berlin",
            "Alice lives in Berlin",
            "¿Dónde vive Alice?",
            marks=pytest.mark.xfail(
                strict=True,
                reason="limitation: the offline embedder is English; a non-English question "
                "that says something beyond the name is judged on words it cannot compare "
                "(minRelevance: 0 turns the check off; a multilingual embedder handles it)",
            ),
        ),
    ],
)
def test_recall_keeps_the_answer_to_a_question_that_names_its_entity(
    client: GraphMemoryClient, subject: str, predicate: str, obj: str, text: str, question: str
) -> None:
    fid = put(client, [ep(client)], subject, predicate, obj, text=text)
    # It clears every other bar: relevance 0.3 (its cosine), minScore 0.3, top of the list.
    open_gate = client.recall(question, ALICE, kinds=["FACT"], min_relevance=0.0)["items"]
    assert [i["id"] for i in open_gate] == [fid]
    assert open_gate[0]["score"]["vector"] >= 0.3 and open_gate[0]["score"]["total"] >= 0.3
    items = client.recall(question, ALICE, kinds=["FACT"])["items"]
    assert fid in [i["id"] for i in items]


# -- forget: lifting a flag the excised version raised ----------------------------------------


def test_forget_keeps_the_flag_another_premise_raised(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    bob = ep(client, "bob", scope="team:core")
    home = put(client, [bob], "Core team", "office", "Paris")
    lead = put(client, [bob], "Core team", "lead", "Dana")
    put(client, [bob], "Core team", "standup", "9:00 CET", dependsOn=[home, lead])
    put(client, [ep(client, "bob", scope="team:core")], "Core team", "lead", "Erin")
    assert flagged(client, TEAM) == ["9:00 CET"]  # its lead changed
    alice = ep(client, "alice", scope="team:core")
    put(client, [alice], "Core team", "office", "Lisbon")  # flags it again (reason replaced)
    admin.execute(FORGET, {"u": "alice"})
    assert current(client, TEAM, "core team", "office") == ["Paris"]
    # Dana -> Erin still happened: the conclusion must still await verification.
    assert flagged(client, TEAM) == ["9:00 CET"]


def test_forget_leaves_no_flag_reason_naming_an_excised_version(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    bob = ep(client, "bob", scope="team:core")
    home = put(client, [bob], "Core team", "office", "Paris")
    rule = put(client, [bob], "Core team", "standup", "9:00 CET", dependsOn=[home])
    lisbon = put(client, [ep(client, "alice", scope="team:core")], "Core team", "office", "Lisbon")
    put(client, [ep(client, "bob", scope="team:core")], "Core team", "office", "Rome")
    admin.execute(FORGET, {"u": "alice"})
    assert current(client, TEAM, "core team", "office") == ["Rome"]
    node = client.execute(Q_FACT, {"id": rule})["fact"]
    assert node["needsVerification"] is True
    assert lisbon not in (node["verificationReason"] or "")


def test_someone_elses_entity_named_like_a_common_word_does_not_hide_my_answer(
    client: GraphMemoryClient,
) -> None:
    q = "what happens in May"
    offsite = put(client, [ep(client)], "Team offsite", "date", "May 12",
                  text="The team offsite is on May 12")  # fmt: skip
    assert [i["id"] for i in client.recall(q, ALICE, kinds=["FACT"])["items"]] == [offsite]
    # Bob's memory mentions a colleague called May: nothing in Alice's scope changed.
    put(client, [ep(client, "bob")], "May", "works_at", "Initech", text="May works at Initech")
    assert [i["id"] for i in client.recall(q, ALICE, kinds=["FACT"])["items"]] == [offsite]


def test_forget_keeps_what_a_surviving_version_said_in_its_audit_trail(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    put(client, [ep(client, "bob", scope="team:core")], "Core team", "office", "Paris")
    lisbon = put(client, [ep(client, "alice", scope="team:core")], "Core team", "office", "Lisbon")
    rome = put(client, [ep(client, "bob", scope="team:core")], "Core team", "office", "Rome")
    admin.execute(FORGET, {"u": "alice"})
    q = """query($t: String!) { auditLog(filter: {target: $t}, first: 50) {
      edges { node { action before after reason redacted } } } }"""
    events = [e["node"] for e in analyst.execute(q, {"t": rome})["auditLog"]["edges"]]
    writes = [e for e in events if e["action"] not in ("flag_needs_verification", "unflag")]
    assert writes, events
    # Bob's own write of Rome is not the forgotten user's content: it stays, without Lisbon.
    assert any("Rome" in (e["after"] or "") for e in writes), writes
    assert all(lisbon not in str(e) for e in events)


def test_episodes_filter_finds_an_episode_by_the_ids_it_was_recorded_with(
    client: GraphMemoryClient,
) -> None:
    eid = ep(client, " alice ", session=" s-1 ")
    q = """query($u: String, $s: String) { episodes(scopes: ["user:alice"], userId: $u,
      sessionId: $s, first: 10) { id } }"""
    assert [e["id"] for e in client.execute(q, {"u": "alice", "s": "s-1"})["episodes"]] == [eid]
    got = client.execute(q, {"u": " alice ", "s": " s-1 "})["episodes"]
    assert [e["id"] for e in got] == [eid]


def test_a_claim_repeated_in_the_latest_session_replaces_what_was_said_in_between(
    client: GraphMemoryClient,
) -> None:
    jan, mar, sep = (ep(client, when=day(2025, m)) for m in (1, 3, 9))
    put(client, [mar], "Alice", "lives_in", "Paris")
    # September: "I'm back in Berlin" (she also said Berlin in January); both sessions cited.
    put(client, [jan, sep], "Alice", "lives_in", "Berlin")
    assert current(client, ALICE, "alice", "lives_in") == ["Berlin"]
