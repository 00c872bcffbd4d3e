"""Held-out style scenarios for semantic memory through raw GraphQL text: idempotent
replays, mixed batches, pagination, tenants, scopes, roles and error codes."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import ClientFactory
from tests.integration.scenario_semantic_helpers import (
    ASSERT,
    D2020,
    D2023,
    ENTITY_FACTS,
    FACT,
    FACTS,
    RECORD,
    RETRACT,
    code_of,
    episodes,
    f,
    history,
    iso,
    objects,
    one,
    write,
)

# -- idempotency and batches -----------------------------------------------------------------


def test_idempotent_replay_and_conflicting_reuse(
    client: GraphMemoryClient, make_client: ClientFactory
) -> None:
    (e1,) = episodes(client, "s1")
    batch = [
        f("alice", "lives_in", "Paris", [e1]),
        f("alice", "likes", "jazz", [e1]),
        f("alice", "likes", "tea", ["ep_missing"]),
    ]
    first = write(client, batch, key="k-1")
    assert (first["accepted"], first["rejected"]) == (2, 1)
    replay = write(client, batch, key="k-1")
    assert replay == first
    assert len(history(client, "alice", "lives_in", ["user:alice"])) == 1
    assert len(history(client, "alice", "likes", ["user:alice"])) == 1
    stored = client.execute(FACT, {"id": first["results"][1]["factId"]})["fact"]
    assert stored["confidence"] == pytest.approx(first["results"][1]["confidence"])
    changed = [*batch[:2], f("alice", "likes", "coffee", [e1])]
    assert code_of(client, ASSERT, {"facts": changed, "key": "k-1"}) == "CONFLICT"
    assert objects(client, ["user:alice"], flt={"predicate": "likes"}) == ["jazz"]
    # A replay after the world moved on returns the old answer and re-applies nothing.
    (e2,) = episodes(client, "s2")
    moved = one(client, f("alice", "lives_in", "Berlin", [e2]))
    assert write(client, batch, key="k-1") == first
    assert objects(client, ["user:alice"], flt={"predicate": "lives_in"}) == ["Berlin"]
    assert moved["version"] == 2
    assert len(history(client, "alice", "lives_in", ["user:alice"])) == 2
    # Keys are per tenant: another tenant's identical key is a fresh write.
    other = make_client(f"t-{uuid.uuid4().hex[:10]}", "agent")
    (o1,) = episodes(other, "s1")
    r = write(other, [f("alice", "likes", "coffee", [o1])], key="k-1")
    assert r["results"][0]["action"] == "created"


def test_mixed_batch_types_each_bad_item_and_lands_the_rest(client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    items = [
        f("alice", "likes", "jazz", [e1]),
        f("alice", "likes", "opera", ["ep_unknown"]),
        f("alice", "likes", "rock", [e1], validFrom="2020-01-01T00:00:00"),
        f("alice", "likes", "blues", [e1], validFrom=iso(D2023), validTo=iso(D2020)),
        f("alice", "likes", "punk", [e1], validFrom=iso(D2020), validTo=iso(D2020)),
        f("", "likes", "folk", [e1]),
        f("   ", "likes", "folk", [e1]),
        f("alice", "likes", "", [e1]),
        f("alice", "likes", "ska", [e1], w=0.0),
        f("alice", "likes", "reggae", [e1], source="rumour"),
        f("alice", "likes", "soul", [e1], validFrom=iso(D2020), validTo=iso(D2023)),
    ]
    r = write(client, items)
    got = [
        (x["ok"], (x["error"] or {}).get("code"), (x["error"] or {}).get("field"))
        for x in r["results"]
    ]
    assert got == [
        (True, None, None),
        (False, "NOT_FOUND", "episodes"),
        (False, "VALIDATION", "validFrom"),
        (False, "VALIDATION", "validFrom"),
        (False, "VALIDATION", "validFrom"),
        (False, "VALIDATION", "subject"),
        (False, "VALIDATION", "subject"),
        (False, "VALIDATION", "object"),
        (False, "VALIDATION", "weight"),
        (False, "VALIDATION", "source"),
        (True, None, None),
    ]
    assert [x["index"] for x in r["results"]] == list(range(len(items)))
    assert (r["accepted"], r["rejected"]) == (2, 9)
    # jazz holds from the episode's start (2018) on; soul only inside [2020, 2023).
    assert objects(client, ["user:alice"], validAt=iso(D2020)) == ["jazz", "soul"]
    assert objects(client, ["user:alice"], validAt=iso(D2023)) == ["jazz"]


def test_oversize_batch_is_refused_whole(client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    items = [f("alice", "likes", f"item {i}", [e1]) for i in range(1001)]
    assert code_of(client, ASSERT, {"facts": items, "key": None}) == "VALIDATION"
    assert objects(client, ["user:alice"]) == []
    ok = write(client, items[:1000])
    assert ok["accepted"] == 1000


# -- pagination --------------------------------------------------------------------------------


def _walk(c: GraphMemoryClient, first: int, **kw: Any) -> list[str]:
    seen: list[str] = []
    after: str | None = None
    for _ in range(100):
        page = c.execute(
            FACTS, {"f": {"scopes": ["user:alice"]}, "first": first, "after": after, **kw}
        )["facts"]
        seen += [e["node"]["object"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            assert page["pageInfo"]["endCursor"] == (
                page["edges"][-1]["cursor"] if page["edges"] else None
            )
            return seen
        after = page["pageInfo"]["endCursor"]
    raise AssertionError("pagination never ended")


def test_pagination_is_complete_stable_and_respects_as_of(client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    write(client, [f("alice", "likes", f"a{i:02d}", [e1]) for i in range(23)])
    between = datetime.now(UTC)
    write(client, [f("alice", "likes", f"b{i:02d}", [e1]) for i in range(7)])
    everything = _walk(client, 30)
    assert sorted(everything) == sorted(
        [f"a{i:02d}" for i in range(23)] + [f"b{i:02d}" for i in range(7)]
    )
    # newest batch first
    assert set(everything[:7]) == {f"b{i:02d}" for i in range(7)}
    for size in (1, 4, 5, 7, 29):
        assert _walk(client, size) == everything, size
    past = _walk(client, 4, asOf=iso(between))
    assert past == [x for x in everything if x.startswith("a")]
    # Supersession between pages does not duplicate what was already read at a fixed asOf.
    now = iso(datetime.now(UTC))
    page1 = client.execute(FACTS, {"f": {"scopes": ["user:alice"]}, "first": 10, "asOf": now})[
        "facts"
    ]
    write(client, [f("alice", "likes", f"c{i}", [e1]) for i in range(3)])
    rest = _walk(client, 10, asOf=now)
    assert [e["node"]["object"] for e in page1["edges"]] == rest[:10]
    for bad in (0, -1, 501):
        assert code_of(client, FACTS, {"f": {"scopes": ["user:alice"]}, "first": bad}) == (
            "VALIDATION"
        )


# -- tenants, scopes, errors ---------------------------------------------------------------


def test_two_tenants_never_meet(client: GraphMemoryClient, make_client: ClientFactory) -> None:
    other = make_client(f"t-{uuid.uuid4().hex[:10]}", "agent")
    (mine,) = episodes(client, "s1")
    (theirs,) = episodes(other, "s1")
    fid = one(other, f("alice", "lives_in", "Oslo", [theirs]))["factId"]
    one(client, f("alice", "lives_in", "Rome", [mine]))
    assert objects(client, ["user:alice"]) == ["Rome"]
    assert objects(other, ["user:alice"]) == ["Oslo"]
    assert client.execute(FACT, {"id": fid})["fact"] is None
    assert [v["object"] for v in history(client, "alice", "lives_in", ["user:alice"])] == ["Rome"]
    ent = other.execute(FACT, {"id": fid})["fact"]["subjectEntity"]
    assert (
        client.execute(ENTITY_FACTS, {"id": ent["id"], "scopes": ["user:alice"]})["entity"] is None
    )
    assert code_of(client, RETRACT, {"id": fid}) == "NOT_FOUND"
    # Citing the other tenant's episode is an unknown episode, not a cross-tenant link.
    r = write(client, [f("alice", "likes", "skiing", [theirs])])
    assert r["results"][0]["error"]["code"] == "NOT_FOUND"
    assert objects(other, ["user:alice"]) == ["Oslo"]


def test_scopes_are_separate_slots_and_filters(client: GraphMemoryClient) -> None:
    (a,) = episodes(client, "sa", user="alice")
    (b,) = episodes(client, "sb", user="bob")
    (t,) = episodes(client, "st", user="carol", scope="team:support")
    (g,) = episodes(client, "sg", user="dave", scope="tenant")
    one(client, f("acme", "works_at", "alice view", [a]))
    one(client, f("acme", "works_at", "bob view", [b]))
    one(client, f("acme", "works_at", "team view", [t]))
    one(client, f("acme", "works_at", "tenant view", [g]))
    # Same subject/predicate in another scope does not supersede.
    assert objects(client, ["user:alice"]) == ["alice view"]
    assert objects(client, ["user:bob"]) == ["bob view"]
    assert objects(client, ["team:support"]) == ["team view"]
    assert objects(client, ["user:alice", "tenant"]) == ["alice view", "tenant view"]
    assert objects(client, ["team:other"]) == []
    assert len(history(client, "acme", "works_at", ["user:alice"])) == 1
    assert len(history(client, "acme", "works_at", ["user:alice", "user:bob", "tenant"])) == 3
    assert code_of(client, FACTS, {"f": {"scopes": ["group:x"]}, "first": 5}) == "VALIDATION"


def test_empty_scope_list_is_a_validation_error(client: GraphMemoryClient) -> None:
    assert code_of(client, FACTS, {"f": {"scopes": []}, "first": 5}) == "VALIDATION"


def test_roles_and_auth(server: str, analyst: GraphMemoryClient, client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    assert code_of(analyst, ASSERT, {"facts": [f("alice", "likes", "jazz", [e1])]}) == ("FORBIDDEN")
    assert (
        code_of(
            analyst,
            RECORD,
            {
                "eps": [
                    {
                        "userId": "alice",
                        "sessionId": "x",
                        "summary": "a long enough summary of things",
                        "outcome": "SUCCESS",
                    }
                ]
            },
        )
        == "FORBIDDEN"
    )
    assert objects(analyst, ["user:alice"]) == []  # analysts read
    assert (
        code_of(client, FACTS, {"f": {"scopes": ["user:alice"]}, "first": 5, "asOf": "yesterday"})
        == "VALIDATION"
    )
    assert (
        code_of(
            client,
            FACTS,
            {"f": {"scopes": ["user:alice"]}, "first": 5, "validAt": "2020-01-01T00:00:00"},
        )
        == "VALIDATION"
    )
    assert (
        code_of(client, FACTS, {"f": {"scopes": ["user:alice"]}, "first": 5, "after": "garbage"})
        == "VALIDATION"
    )
    r = httpx.post(server, json={"query": "{ predicates { name } }"})
    assert r.status_code == 401


def test_inline_literal_inputs_work_like_variables(client: GraphMemoryClient) -> None:
    """A person in GraphiQL writes inputs inline; nested lists, enums and defaults still apply."""
    ep = episodes(client, "lit")[0]
    res = client.execute(
        f"""mutation {{ assertFacts(facts: [
              {{subject: "Alice", predicate: "speaks", object: "Dutch", cardinality: MANY,
                validFrom: "2020-01-01T00:00:00Z", episodes: [{{episodeId: "{ep}", weight: 0.9}}]}},
              {{subject: "Alice", predicate: "speaks", object: "Frisian",
                episodes: [{{episodeId: "{ep}"}}]}}
            ]) {{ accepted results {{ ok action confidence error {{ code }} }} }} }}"""
    )["assertFacts"]
    assert res["accepted"] == 2, res
    assert [r["confidence"] for r in res["results"]] == [0.9, 0.8]  # weight, then the episode's
    listed = client.execute(
        """{ facts(filter: {scopes: ["user:alice"], predicate: "speaks"}) {
               edges { node { object kind cardinality } } } }"""
    )["facts"]["edges"]
    assert sorted((e["node"]["object"], e["node"]["kind"]) for e in listed) == [
        ("Dutch", "fact"),
        ("Frisian", "fact"),
    ]
    assert {e["node"]["cardinality"] for e in listed} == {"MANY"}
