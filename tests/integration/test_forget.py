"""Right to be forgotten over HTTP: after forgetContributor(bob), nothing bob alone said can be
read back by any query at any asOf (facts, history, fact, episodes, recall, auditLog), facts
others also support survive with the confidence their own evidence gives, chains read as if
bob's versions were never written, and the forget itself is one content-free audit event."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact

SECRET = "Nightingale"
SCOPES = ["team:core", "user:bob", "user:alice"]
TEAM = "Core team"


def _bolt(settings: Settings, text: str, **params: Any) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        db = Database.connect(settings.neo4j())
        try:
            return await db.run_raw(text, params)
        finally:
            await db.close()

    return asyncio.run(go())


def _ep(client: GraphMemoryClient, user: str, session: str, summary: str) -> str:
    return client.record_episode(
        **episode(user, session, scope="team:core", summary=summary, confidence=0.6)
    )


def _one(client: GraphMemoryClient, *items: dict[str, Any]) -> list[str]:
    out = client.assert_facts(list(items))
    assert out["accepted"] == len(items), out
    return [str(r["factId"]) for r in out["results"]]


def _at(client: GraphMemoryClient, fact_id: str) -> datetime:
    return datetime.fromisoformat(client.fact(fact_id)["recordedAt"])  # type: ignore[index]


def _world(
    client: GraphMemoryClient, analyst: GraphMemoryClient, settings: Settings, tenant: str
) -> dict[str, Any]:
    a1 = _ep(client, "alice", "s-a1", "Alice set up the team's tools and the Paris office.")
    a2 = _ep(client, "alice", "s-a2", "Alice announced the move of the office to Rome.")
    b1 = _ep(client, "bob", "s-b1", f"Bob talked about his secret project {SECRET} a lot.")
    b2 = _ep(client, "bob", "s-b2", f"Bob repeated that {SECRET} ships next spring.")
    w: dict[str, Any] = {"a1": a1, "a2": a2, "b1": b1, "b2": b2}
    w["slack"], w["python"], w["ci"] = _one(
        client,
        fact(TEAM, "uses", "Slack", [a1, b1], cardinality="MANY", scope="team:core"),
        fact(
            TEAM,
            "language",
            "Python",
            [a1, b1, b2],
            source="conversation",
            cardinality="ONE",
            scope="team:core",
        ),
        fact(
            TEAM,
            "ci",
            "GitHub Actions",
            [a1, b1],
            source="conversation",
            cardinality="ONE",
            scope="team:core",
        ),
    )
    analyst.approve_fact(w["ci"])  # human-approved: stays active whatever evidence goes
    (w["project"],) = _one(
        client, fact("bob", "working_on", f"Project {SECRET}", [b1, b2], cardinality="ONE")
    )
    (w["phone"],) = _one(
        client, fact("bob", "codename_hint", f"{SECRET}-7", [b2], cardinality="ONE")
    )
    client.retract_fact(w["phone"], f"{SECRET} hint was a joke")
    # office: Paris (alice) -> Berlin (bob) -> Rome (alice)
    (w["paris"],) = _one(
        client, fact(TEAM, "office", "Paris", [a1], cardinality="ONE", scope="team:core")
    )
    (w["berlin"],) = _one(client, fact(TEAM, "office", f"{SECRET} House", [b1], scope="team:core"))
    w["t_berlin"] = _at(client, w["berlin"])
    (w["rome"],) = _one(client, fact(TEAM, "office", "Rome", [a2], scope="team:core"))
    # standup: 9:00 (alice) -> bob's version, still current when bob is forgotten
    (w["nine"],) = _one(
        client, fact(TEAM, "standup_time", "9:00", [a1], cardinality="ONE", scope="team:core")
    )
    (w["sync"],) = _one(
        client, fact(TEAM, "standup_time", f"{SECRET} sync 11:00", [b2], scope="team:core")
    )
    w["t_sync"] = _at(client, w["sync"])
    (w["priority"],) = _one(
        client,
        fact(
            TEAM,
            "priority",
            "high",
            [a2],
            cardinality="ONE",
            scope="team:core",
            dependsOn=[w["project"]],
        ),
    )
    # Procedures are written by another area; their evidence shape is what forgetting knows.
    _bolt(
        settings,
        """
        MATCH (b1:Episode {id: $b1}), (a1:Episode {id: $a1})
        CREATE (p1:Procedure {id: $p1, tenant: $tenant, status: 'active', intent: 'deploy',
                              role: 'agent', success_count: 1, failure_count: 0})
        CREATE (p2:Procedure {id: $p2, tenant: $tenant, status: 'active', intent: 'triage',
                              role: 'agent', success_count: 2, failure_count: 0})
        CREATE (p1)-[:EVIDENCED_BY {success: true}]->(b1)
        CREATE (p2)-[:EVIDENCED_BY {success: true}]->(b1)
        CREATE (p2)-[:EVIDENCED_BY {success: true}]->(a1)""",
        b1=b1,
        a1=a1,
        p1=f"proc_{tenant}_1",
        p2=f"proc_{tenant}_2",
        tenant=tenant,
    )
    w["t_before"] = datetime.now(UTC)  # same host as the server: a moment before forgetting
    return w


def _reads(
    client: GraphMemoryClient, analyst: GraphMemoryClient, as_of: datetime | None, ids: list[str]
) -> str:
    """Everything a caller could read at `as_of`, as one string to search."""
    out: list[Any] = [
        client.facts(SCOPES, as_of=as_of, first=500, includeCandidates=True, includeExpired=True),
        [
            client.history(s, p, SCOPES, as_of=as_of)
            for s, p in [
                (TEAM, "office"),
                (TEAM, "standup_time"),
                ("bob", "working_on"),
                ("bob", "codename_hint"),
                (TEAM, "uses"),
            ]
        ],
        client.recall(
            SECRET,
            SCOPES,
            as_of=as_of,
            min_score=0.0,
            k=50,
            include_candidates=True,
            include_expired=True,
        ),
        client.execute(
            "query($s: [String!]!) { episodes(scopes: $s, first: 100) { id summary userId } }",
            {"s": SCOPES},
        ),
        [client.fact(i) for i in ids],
        analyst.audit_log(first=500, end=as_of),
        analyst.review_queue(SCOPES, first=100),
    ]
    return json.dumps(out, default=str)


def test_forgetting_a_contributor_excises_them_from_every_read(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    settings: Settings,
    tenant: str,
) -> None:
    w = _world(client, analyst, settings, tenant)
    moments = [w["t_berlin"], w["t_sync"], w["t_before"], None]
    gone = [w[k] for k in ("project", "phone", "berlin", "sync", "b1", "b2")]
    assert SECRET in _reads(client, analyst, w["t_before"], gone)  # it was all readable
    slack_before = client.fact(w["slack"])["confidence"]  # type: ignore[index]

    for who in (client, analyst):
        with pytest.raises(GraphMemoryClientError) as err:
            who.forget_contributor("bob")
        assert err.value.code == "FORBIDDEN"
    r = admin.forget_contributor("bob")

    assert (r["episodesDeleted"], r["factVersionsDeleted"]) == (2, 4)
    assert {t["tier"]: t["count"] for t in r["factsDeletedByTier"]} == {
        "SYSTEM": 0,
        "ADMIN": 0,
        "USER": 4,
        "INFERRED": 0,
    }
    assert (
        r["factsRecomputed"],
        r["factsReturnedToReview"],
        r["factsReinstated"],
        r["dependentsFlagged"],
        r["proceduresDemoted"],
        r["userDeleted"],
    ) == (3, 1, 1, 1, 1, True)

    # No read, at any moment before or after the deletion, reveals what only bob said.
    for at in moments:
        seen = _reads(client, analyst, at, gone)
        assert SECRET not in seen, at
    for i in gone:
        assert client.fact(i) is None

    # Facts alice also supports survive, with only her evidence behind them.
    slack = client.fact(w["slack"])
    assert slack and slack["status"] == "ACTIVE"
    assert slack["confidence"] == pytest.approx(0.6) and slack["confidence"] < slack_before
    assert {p["userId"] for p in slack["provenance"]} == {"alice"}
    python = client.fact(w["python"])
    assert python and python["status"] == "CANDIDATE"  # 1 session left: back to review
    ci = client.fact(w["ci"])
    assert ci and ci["status"] == "ACTIVE"  # a human approved it
    priority = client.fact(w["priority"])
    assert priority and priority["needsVerification"] is True
    assert "premise was removed" in priority["verificationReason"]


def test_chains_read_as_if_the_excised_versions_were_never_written(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    settings: Settings,
    tenant: str,
) -> None:
    w = _world(client, analyst, settings, tenant)
    admin.forget_contributor("bob")
    rome_at = _at(client, w["rome"])

    office = client.history(TEAM, "office", SCOPES)["versions"]
    assert [(v["object"], v["status"]) for v in office] == [
        ("Paris", "SUPERSEDED"),
        ("Rome", "ACTIVE"),
    ]
    assert office[0]["supersededBy"] == w["rome"]
    assert datetime.fromisoformat(office[0]["supersededAt"]) == rome_at
    # While bob's Berlin version was believed, memory now says Paris was.
    during = client.facts(["team:core"], subject=TEAM, predicate="office", as_of=w["t_berlin"])
    assert [e["node"]["object"] for e in during["edges"]] == ["Paris"]

    standup = client.history(TEAM, "standup_time", SCOPES)["versions"]
    assert [(v["object"], v["status"], v["supersededAt"]) for v in standup] == [
        ("9:00", "ACTIVE", None)
    ]
    for at in (w["t_sync"], None):
        now = client.facts(["team:core"], subject=TEAM, predicate="standup_time", as_of=at)
        assert [e["node"]["object"] for e in now["edges"]] == ["9:00"]
    reinstated = analyst.audit_log(target=w["nine"], action="reinstate")["edges"]
    assert len(reinstated) == 1


def test_the_audit_trail_keeps_who_and_when_but_not_what(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    settings: Settings,
    tenant: str,
) -> None:
    w = _world(client, analyst, settings, tenant)
    before = {e["node"]["id"]: e["node"] for e in analyst.audit_log(target=w["project"])["edges"]}
    r = admin.forget_contributor("bob")

    after = {e["node"]["id"]: e["node"] for e in analyst.audit_log(target=w["project"])["edges"]}
    assert after.keys() == before.keys()  # every event is still there...
    for ev_id, ev in after.items():
        kept = {k: before[ev_id][k] for k in ("at", "actor", "actorType", "action")}
        assert {k: ev[k] for k in kept} == kept  # ...with who, when and which action
        assert (ev["before"], ev["after"], ev["reason"], ev["redacted"]) == (None, None, None, True)

    forgets = analyst.audit_log(action="forget_contributor")["edges"]
    assert len(forgets) == 1
    ev = forgets[0]["node"]
    assert ev["targetId"] == r["receipt"] and ev["actor"] == "admin:admin"
    counts = json.loads(ev["after"])
    assert counts["facts_deleted"] == {"system": 0, "admin": 0, "user": 4, "inferred": 0}
    assert counts["episodes_deleted"] == 2
    assert "bob" not in json.dumps(ev) and SECRET not in json.dumps(ev)

    # Nothing in the tenant's graph still holds the content, in any property.
    left = _bolt(
        settings,
        """
        MATCH (n) WHERE n.tenant = $tenant
          AND any(k IN keys(n) WHERE valueType(n[k]) STARTS WITH 'STRING'
                  AND (n[k] CONTAINS $secret OR n[k] = 'bob'))
        RETURN labels(n) AS labels, n.id AS id""",
        tenant=tenant,
        secret=SECRET,
    )
    assert left == []
    assert _bolt(
        settings, "MATCH (p:Procedure {id: $id}) RETURN p.status AS s", id=f"proc_{tenant}_1"
    ) == [{"s": "demoted"}]


def test_forgetting_is_idempotent_and_needs_a_user(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    settings: Settings,
    tenant: str,
) -> None:
    _world(client, analyst, settings, tenant)
    first = admin.forget_contributor("bob")
    again = admin.forget_contributor("bob")
    assert first["receipt"] == again["receipt"]
    assert (again["episodesDeleted"], again["factVersionsDeleted"], again["userDeleted"]) == (
        0,
        0,
        False,
    )
    assert len(analyst.audit_log(action="forget_contributor")["edges"]) == 2
    with pytest.raises(GraphMemoryClientError) as err:
        admin.forget_contributor("  ")
    assert err.value.code == "VALIDATION"
    with pytest.raises(GraphMemoryClientError) as err:
        admin.forget_contributor("u" * 600)  # longer than any id a write accepts
    assert err.value.code == "VALIDATION" and err.value.errors[0]["extensions"]["field"] == "userId"
    # Alice is untouched.
    assert admin.forget_contributor("nobody")["episodesDeleted"] == 0
    assert (
        len(
            client.execute('query { episodes(scopes: ["team:core"], userId: "alice") { id } }')[
                "episodes"
            ]
        )
        == 2
    )


def test_a_reinstated_inference_is_served_again_only_if_its_own_evidence_holds(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    eps = [
        _ep(client, "alice", f"s-a{i}", "Alice said the team writes Go services.") for i in "123"
    ]
    (go,) = _one(
        client,
        fact(
            TEAM, "language", "Go", eps, source="conversation", cardinality="ONE", scope="team:core"
        ),
    )
    assert client.fact(go)["status"] == "ACTIVE"  # type: ignore[index]  # 3 sessions
    # Three sessions of bob's promote his inference, which supersedes Go (a candidate of
    # his would only link to it: tests/integration/test_candidate_supersession.py).
    b = [
        _ep(client, "bob", f"s-b{i}", f"Bob claimed the team moved to {SECRET}Lang.") for i in "123"
    ]
    (bobs,) = _one(
        client,
        fact(TEAM, "language", f"{SECRET}Lang", b, source="conversation", scope="team:core"),
    )
    assert client.fact(go)["status"] == "SUPERSEDED"  # type: ignore[index]

    admin.forget_contributor("bob")
    assert client.fact(bobs) is None
    again = client.fact(go)
    assert again and again["status"] == "ACTIVE" and again["supersededAt"] is None
    served = client.facts(["team:core"], subject=TEAM, predicate="language")
    assert [e["node"]["object"] for e in served["edges"]] == ["Go"]


def test_a_wait_outside_0_to_60_seconds_is_refused(admin: GraphMemoryClient) -> None:
    # The documented range (README: at most 60); a larger wait was capped without a word.
    for wait in (1e9, 60.5, -1.0):
        with pytest.raises(GraphMemoryClientError) as err:
            admin.forget_contributor("nobody", wait_seconds=wait)
        assert err.value.code == "VALIDATION", wait
        assert err.value.errors[0]["extensions"]["field"] == "waitSeconds", wait
        assert "0..60" in str(err.value), wait
    assert admin.forget_contributor("nobody", wait_seconds=60)["state"] == "DONE"
    assert admin.forget_contributor("nobody", wait_seconds=0)["state"]


@pytest.mark.parametrize("user", ["user:ua0", "a b*\x00", "\u202e"])
def test_a_contributor_whose_id_names_no_user_scope_can_be_forgotten(
    client: GraphMemoryClient, admin: GraphMemoryClient, user: str
) -> None:
    # recordEpisodes takes these ids under a team scope (only the default scope user:<id> needs
    # a scope-shaped id), so forgetContributor must take them too: refusing one would leave
    # that contributor's memory unforgettable.
    said = "The contributor said the release moves to the second week of June."
    client.record_episode(**episode(user, scope="team:core", summary=said))
    q = 'query { episodes(scopes: ["team:core"]) { id } }'
    assert len(client.execute(q)["episodes"]) == 1
    assert admin.forget_contributor(user, wait_seconds=60)["episodesDeleted"] == 1
    assert client.execute(q)["episodes"] == []
