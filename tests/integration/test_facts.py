"""Semantic memory over HTTP: versions, supersession, both time axes, provenance, tenants."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import ClientFactory, episode, fact

Y2020 = datetime(2020, 1, 1, tzinfo=UTC)
Y2024 = datetime(2024, 6, 1, tzinfo=UTC)
Y2025 = datetime(2025, 1, 1, tzinfo=UTC)
SCOPES = ["user:alice"]


def _objects(conn: dict[str, Any]) -> list[str]:
    return [e["node"]["object"] for e in conn["edges"]]


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _move(client: GraphMemoryClient) -> tuple[dict[str, Any], dict[str, Any]]:
    """alice lives in Paris (from 2020), then we learn she moved to Berlin (from 2025)."""
    e1 = client.record_episode(**episode("alice", "s1"))
    e2 = client.record_episode(**episode("alice", "s2"))
    r1 = client.assert_facts([fact("Alice", "lives_in", "Paris", [e1], validFrom=Y2020)])
    r2 = client.assert_facts([fact("Alice", "lives_in", "Berlin", [e2], validFrom=Y2025)])
    assert r1["results"][0]["action"] == "created"
    assert r2["results"][0]["action"] == "superseded"
    paris = client.fact(r1["results"][0]["factId"])
    berlin = client.fact(r2["results"][0]["factId"])
    assert paris and berlin
    return paris, berlin


def test_supersession_keeps_history_and_serves_the_new_version(client: GraphMemoryClient) -> None:
    paris, berlin = _move(client)
    assert _objects(client.facts(SCOPES, subject="alice", predicate="lives_in")) == ["Berlin"]
    assert paris["status"] == "SUPERSEDED" and paris["supersededAt"] is not None
    assert paris["supersededBy"] == berlin["id"] and berlin["version"] == 2
    hist = client.history("alice", "lives_in", SCOPES)
    assert [v["object"] for v in hist["versions"]] == ["Paris", "Berlin"]
    assert all(v["provenance"] for v in hist["versions"])
    assert hist["versions"][0]["provenance"][0]["userId"] == "alice"


def test_as_of_and_valid_at_compose(client: GraphMemoryClient) -> None:
    paris, berlin = _move(client)
    r1, r2 = _ts(paris["recordedAt"]), _ts(berlin["recordedAt"])
    between = r1 + (r2 - r1) / 2

    def q(**kw: Any) -> list[str]:
        return _objects(client.facts(SCOPES, subject="alice", **kw))

    # What was true in 2024, as we believe now: Paris (Berlin starts 2025).
    assert q(valid_at=Y2024) == ["Paris"]
    # What did we believe, before learning of the move, about 2025: still Paris.
    assert q(as_of=between, valid_at=Y2025 + timedelta(days=30)) == ["Paris"]
    # And now about 2025: Berlin.
    assert q(valid_at=Y2025 + timedelta(days=30)) == ["Berlin"]
    # Before anything was recorded: nothing.
    assert q(as_of=r1 - timedelta(seconds=1)) == []
    # Before 2020 nothing was true.
    assert q(valid_at=Y2020 - timedelta(days=1)) == []


@pytest.mark.parametrize(
    ("valid_at", "expected"),
    [
        (Y2020 - timedelta(microseconds=1), []),  # just before start
        (Y2020, ["Lyon"]),  # equal to start: included (half-open)
        (Y2020 + timedelta(days=100), ["Lyon"]),  # inside
        (Y2024 - timedelta(microseconds=1), ["Lyon"]),  # last instant
        (Y2024, []),  # equal to end: excluded
        (Y2024 + timedelta(days=1), []),  # after
    ],
)
def test_valid_time_boundaries(
    client: GraphMemoryClient, valid_at: datetime, expected: list[str]
) -> None:
    e = client.record_episode(**episode("alice"))
    client.assert_facts([fact("alice", "works_at", "Lyon", [e], validFrom=Y2020, validTo=Y2024)])
    assert _objects(client.facts(SCOPES, subject="alice", valid_at=valid_at)) == expected


def test_belief_time_boundaries(client: GraphMemoryClient) -> None:
    paris, berlin = _move(client)
    r1, r2 = _ts(paris["recordedAt"]), _ts(berlin["recordedAt"])

    def q(at: datetime) -> list[str]:
        conn = client.facts(SCOPES, subject="alice", as_of=at, valid_at=Y2025 + timedelta(days=1))
        return _objects(conn)

    assert q(r1 - timedelta(microseconds=1)) == []  # before recordedAt
    assert q(r1) == ["Paris"]  # equal to recordedAt: believed
    assert q(r2 - timedelta(microseconds=1)) == ["Paris"]  # last instant of the old belief
    assert q(r2) == ["Berlin"]  # equal to supersededAt: the new version only
    # open-ended validity: far future still Berlin
    far = datetime(2100, 1, 1, tzinfo=UTC)
    assert _objects(client.facts(SCOPES, subject="alice", valid_at=far)) == ["Berlin"]


def test_same_object_corroborates_instead_of_versioning(client: GraphMemoryClient) -> None:
    e1 = client.record_episode(**episode("alice", "s1", confidence=0.6))
    e2 = client.record_episode(**episode("alice", "s2", confidence=0.6))
    a = client.assert_facts([fact("alice", "timezone", "CET", [e1])])["results"][0]
    b = client.assert_facts([fact("alice", "timezone", "CET", [e2])])["results"][0]
    assert b["action"] == "corroborated" and b["factId"] == a["factId"]
    assert b["confidence"] > a["confidence"]
    assert abs(b["confidence"] - 0.84) < 1e-6  # noisy-OR of 0.6 and 0.6
    # a second mention in the same session is not independent evidence
    e3 = client.record_episode(**episode("alice", "s2", confidence=0.6))
    c = client.assert_facts([fact("alice", "timezone", "CET", [e3])])["results"][0]
    assert abs(c["confidence"] - 0.84) < 1e-6
    assert len(client.history("alice", "timezone", SCOPES)["versions"]) == 1


def test_confidence_as_of_counts_only_the_evidence_held_then(client: GraphMemoryClient) -> None:
    e1 = client.record_episode(**episode("alice", "s1", confidence=0.6))
    e2 = client.record_episode(**episode("alice", "s2", confidence=0.5))
    first = client.assert_facts([fact("alice", "timezone", "CET", [e1])])["results"][0]
    between = datetime.now(UTC)
    client.assert_facts([fact("alice", "timezone", "CET", [e2])])
    query = """query($s: [String!]!, $a: DateTime) {
      facts(filter: {scopes: $s, subject: "alice"}, asOf: $a) {
        edges { node { confidence provenance { episodeId } } } }
      history(subject: "alice", predicate: "timezone", scopes: $s, asOf: $a) {
        versions { confidence } } }"""
    then = client.execute(query, {"s": SCOPES, "a": between.isoformat()})
    node = then["facts"]["edges"][0]["node"]
    assert [p["episodeId"] for p in node["provenance"]] == [e1]
    assert node["confidence"] == pytest.approx(first["confidence"]) == pytest.approx(0.6)
    assert then["history"]["versions"][0]["confidence"] == pytest.approx(0.6)
    now = client.execute(query, {"s": SCOPES, "a": None})
    assert now["facts"]["edges"][0]["node"]["confidence"] == pytest.approx(0.8)  # 1-0.4*0.5


def test_many_valued_predicates_accumulate(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    client.assert_facts([fact("alice", "likes", "tea", [e]), fact("alice", "likes", "jazz", [e])])
    assert sorted(_objects(client.facts(SCOPES, subject="alice", predicate="likes"))) == [
        "jazz",
        "tea",
    ]


def test_bad_items_are_reported_and_siblings_land(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    out = client.assert_facts(
        [
            fact("alice", "email", "alice@example.com", [e]),
            fact("alice", "email", "x@example.com", ["ep_does_not_exist"]),
            fact("", "email", "a@b.c", [e]),
            fact("alice", "nickname", "Ally", [e]),  # unknown cardinality, none declared
            fact("alice", "works_at", "ACME", [e], validFrom=Y2025, validTo=Y2020),
            fact("alice", "works_at", "ACME", [e], validFrom="2025-01-01T00:00:00"),  # naive
            fact("alice", "nickname", "Ally", [e], cardinality="ONE"),
        ]
    )
    codes = [(r["ok"], (r["error"] or {}).get("code")) for r in out["results"]]
    assert codes == [
        (True, None),
        (False, "NOT_FOUND"),
        (False, "VALIDATION"),
        (False, "VALIDATION"),
        (False, "VALIDATION"),
        (False, "VALIDATION"),
        (True, None),
    ]
    assert out["accepted"] == 2 and out["rejected"] == 5
    assert out["results"][2]["error"]["field"] == "subject"


def test_oversize_batch_is_refused_whole(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    with pytest.raises(GraphMemoryClientError) as err:
        client.assert_facts([fact("alice", "likes", f"thing {i}", [e]) for i in range(1001)])
    assert err.value.code == "VALIDATION"


def test_idempotent_replay_changes_nothing(client: GraphMemoryClient) -> None:
    e1 = client.record_episode(**episode("alice", "s1"))
    batch = [fact("alice", "lives_in", "Rome", [e1]), fact("alice", "likes", "opera", [e1])]
    first = client.assert_facts(batch, idempotency_key="batch-1")
    again = client.assert_facts(batch, idempotency_key="batch-1")
    assert again == first
    assert len(client.history("alice", "lives_in", SCOPES)["versions"]) == 1
    with pytest.raises(GraphMemoryClientError) as err:
        client.assert_facts(batch[:1], idempotency_key="batch-1")
    assert err.value.code == "CONFLICT"


def test_retracted_fact_leaves_the_present_but_not_history(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    fid = client.assert_facts([fact("alice", "lives_in", "Oslo", [e])])["results"][0]["factId"]
    before = datetime.now(UTC)
    gone = client.retract_fact(fid, reason="user said it was a joke")
    assert gone["status"] == "RETRACTED" and gone["retractedBy"].startswith("agent:")
    assert _objects(client.facts(SCOPES, subject="alice")) == []
    assert _objects(client.facts(SCOPES, subject="alice", as_of=before)) == ["Oslo"]
    hist = client.history("alice", "lives_in", SCOPES)["versions"]
    assert (
        hist[0]["status"] == "RETRACTED" and hist[0]["retractReason"] == "user said it was a joke"
    )
    with pytest.raises(GraphMemoryClientError) as err:
        client.retract_fact(fid)
    assert err.value.code == "CONFLICT"


def test_tenants_never_see_each_other(make_client: ClientFactory, tenant: str) -> None:
    a = make_client(tenant)
    b = make_client(tenant + "-2")
    e = a.record_episode(**episode("alice"))
    fid = a.assert_facts([fact("alice", "lives_in", "Paris", [e])])["results"][0]["factId"]
    assert b.fact(fid) is None
    assert _objects(b.facts(SCOPES, subject="alice")) == []
    assert b.history("alice", "lives_in", SCOPES)["versions"] == []
    # citing another tenant's episode is an unknown episode
    r = b.assert_facts([fact("alice", "lives_in", "Rome", [e])])["results"][0]
    assert r["error"]["code"] == "NOT_FOUND"


def test_pagination_is_cursor_based(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    client.assert_facts([fact("alice", "likes", f"item number {i}", [e]) for i in range(7)])
    seen: list[str] = []
    after = None
    while True:
        page = client.facts(SCOPES, subject="alice", first=3, after=after)
        seen += _objects(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert sorted(seen) == sorted(f"item number {i}" for i in range(7))


def test_requests_without_a_valid_key_get_401(server: str) -> None:
    q = {"query": "{ __typename }"}
    assert httpx.post(server, json=q).status_code == 401
    r = httpx.post(server, json=q, headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401 and r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_graphiql_page_loads(server: str) -> None:
    r = httpx.get(server, headers={"Accept": "text/html"})
    assert r.status_code == 200 and "graphiql" in r.text.lower()


def test_analyst_cannot_write(analyst: GraphMemoryClient) -> None:
    with pytest.raises(GraphMemoryClientError) as err:
        analyst.record_episode(**episode("alice"))
    assert err.value.code == "FORBIDDEN"


def test_valid_from_defaults_to_when_it_was_said(client: GraphMemoryClient) -> None:
    said = datetime(2025, 5, 4, 12, 0, tzinfo=UTC)
    e = client.record_episode(**episode("alice", startedAt=said, endedAt=said + timedelta(hours=1)))
    fid = client.assert_facts([fact("alice", "lives_in", "Madrid", [e])])["results"][0]["factId"]
    got = client.fact(fid)
    assert got is not None and _ts(got["validFrom"]) == said and got["validTo"] is None


def test_predicate_registry_is_per_tenant_and_final(
    admin: GraphMemoryClient, client: GraphMemoryClient
) -> None:
    q = "mutation($p: [PredicateInput!]!) { definePredicates(predicates: $p) { name cardinality } }"
    admin.execute(q, {"p": [{"name": "favourite_colour", "cardinality": "ONE"}]})
    names = {
        p["name"]: p["cardinality"]
        for p in client.execute("{ predicates { name cardinality } }")["predicates"]
    }
    assert names["favourite_colour"] == "ONE" and names["likes"] == "MANY"
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute(q, {"p": [{"name": "favourite_colour", "cardinality": "MANY"}]})
    assert err.value.code == "CONFLICT"
    with pytest.raises(GraphMemoryClientError) as err:
        client.execute(q, {"p": [{"name": "x_y", "cardinality": "MANY"}]})
    assert err.value.code == "FORBIDDEN"
    e = client.record_episode(**episode("alice"))
    client.assert_facts([fact("alice", "favourite_colour", "blue", [e])])
    r = client.assert_facts([fact("alice", "favourite_colour", "green", [e])])["results"][0]
    assert r["action"] == "superseded"


def test_defaults_a_new_user_meets(client: GraphMemoryClient) -> None:
    # An episode without times happened now; a fact without a source was stated by the user.
    before = datetime.now(UTC)
    e = client.record_episode(
        userId="alice",
        sessionId="s9",
        outcome="SUCCESS",
        summary="Alice asked to be called Ali from now on.",
    )
    got = client.execute("query($id: ID!) { episode(id: $id) { startedAt endedAt } }", {"id": e})[
        "episode"
    ]
    assert _ts(got["startedAt"]) >= before and got["endedAt"] == got["startedAt"]
    declared = client.assert_facts(
        [{"subject": "alice", "predicate": "name", "object": "Ali", "episodes": [{"episodeId": e}]}]
    )["results"][0]
    assert declared["status"] == "ACTIVE"
    inferred = client.assert_facts(
        [fact("alice", "likes", "short names", [e], source="conversation")]
    )["results"][0]
    assert inferred["status"] == "CANDIDATE"
    assert _objects(client.facts(SCOPES, subject="alice")) == ["Ali"]


async def test_async_client_covers_the_common_calls(client: GraphMemoryClient) -> None:
    from graph_memory.client import AsyncGraphMemoryClient

    key = client._http.headers["Authorization"].removeprefix("Bearer ")
    async with AsyncGraphMemoryClient(client.url, key) as ac:
        e = await ac.record_episode(**episode("alice"))
        r = await ac.assert_facts([fact("alice", "lives_in", "Quito", [e])])
        fid = r["results"][0]["factId"]
        assert (await ac.fact(fid))["object"] == "Quito"  # type: ignore[index]
        assert (await ac.retract_fact(fid, "moved"))["status"] == "RETRACTED"
        assert _objects(await ac.facts(SCOPES, subject="alice")) == []


def test_an_episode_cited_twice_is_one_piece_of_evidence(client: GraphMemoryClient) -> None:
    e1 = client.record_episode(**episode("alice", "s1", confidence=0.6))
    item = fact("alice", "timezone", "CET", [e1, e1])
    item["episodes"][1]["weight"] = 0.9
    out = client.assert_facts([item])["results"][0]
    assert out["ok"] and out["confidence"] == pytest.approx(0.6)
    node = client.facts(SCOPES, subject="alice")["edges"][0]["node"]
    assert [p["episodeId"] for p in node["provenance"]] == [e1]


def test_a_many_valued_slot_numbers_versions_across_objects_and_ends_only_its_own(
    client: GraphMemoryClient,
) -> None:
    """A write to a many-valued slot reads only the versions of the objects it names (they
    alone compete); the version number still counts the whole slot, an end of one object
    leaves the others, and the stored timeline matches the rule (the autouse check)."""
    ep = client.record_episode(**episode("alice", "s1"))
    objs = [f"band {n}" for n in range(12)]
    first = client.assert_facts(
        [fact("alice", "likes", o, [ep], cardinality="MANY") for o in objs[:10]]
    )["results"]
    assert sorted(r["version"] for r in first) == list(range(1, 11))
    ep2 = client.record_episode(**episode("alice", "s2"))
    later = client.assert_facts(
        [
            fact("alice", "likes", objs[10], [ep2]),  # a new object: the slot's 11th version
            fact("alice", "likes", objs[3], [ep2]),  # told again: corroborated, no version
            fact("alice", "likes", objs[5], [ep2], validTo="2026-06-01T00:00:00Z"),  # ended
        ]
    )["results"]
    assert [(r["action"], r["version"]) for r in later] == [
        ("created", 11),
        ("corroborated", 4),
        ("superseded", 12),
    ]
    now = _objects(client.facts(["user:alice"], subject="alice", predicate="likes", first=50))
    assert sorted(now) == sorted(o for o in objs[:11] if o != objs[5])
    before_end = client.facts(
        ["user:alice"],
        subject="alice",
        predicate="likes",
        first=50,
        valid_at="2026-05-01T00:00:00Z",
    )
    assert objs[5] in _objects(before_end) and len(_objects(before_end)) == 11
