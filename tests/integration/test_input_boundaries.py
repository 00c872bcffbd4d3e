"""Review: API boundaries: naive datetimes, cursors, auth, tenancy, per-item errors."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import ClientFactory, episode, fact

NAIVE = "2026-01-01T00:00:00"


def _code(excinfo: pytest.ExceptionInfo[GraphMemoryClientError]) -> str:
    return excinfo.value.code


def _seed(client: GraphMemoryClient) -> tuple[str, str]:
    e = client.record_episode(**episode("alice"))
    r = client.assert_facts([fact("alice", "lives_in", "Paris", [e], cardinality="ONE")])
    return e, r["results"][0]["factId"]


@pytest.mark.parametrize("arg", ["as_of", "valid_at"])
def test_naive_fact_read_times_are_validation(client: GraphMemoryClient, arg: str) -> None:
    with pytest.raises(GraphMemoryClientError) as ei:
        moments: dict[str, Any] = {arg: NAIVE}
        client.facts(["user:alice"], **moments)
    assert _code(ei) == "VALIDATION"


def test_naive_history_as_of_is_validation(client: GraphMemoryClient) -> None:
    with pytest.raises(GraphMemoryClientError) as ei:
        client.history("alice", "lives_in", ["user:alice"], as_of=NAIVE)
    assert _code(ei) == "VALIDATION"


def test_naive_episode_times_are_per_item_validation(client: GraphMemoryClient) -> None:
    out = client.record_episodes(
        [episode("alice", startedAt=NAIVE, endedAt=NAIVE), episode("alice")]
    )
    assert out[0]["ok"] is False and out[0]["error"]["code"] == "VALIDATION"
    assert out[1]["ok"] is True


def test_an_episode_said_to_happen_past_tomorrow_is_per_item_validation(
    client: GraphMemoryClient,
) -> None:
    """An episode dated 2099 would be the latest said of every claim it supports for decades
    (each would win over anything told before then): refused as ingestSession refuses such a
    session; a day ahead (a client's clock, local time sent as UTC) is still taken."""
    now = datetime.now(UTC)
    far = datetime(2099, 1, 1, tzinfo=UTC).isoformat()
    out = client.record_episodes(
        [
            episode("alice", startedAt=far, endedAt=far),
            episode("alice", startedAt=now.isoformat(), endedAt=far),
            episode("alice", startedAt=(now + timedelta(hours=20)).isoformat(), endedAt=None),
            episode("alice"),
        ]
    )
    assert [o["ok"] for o in out] == [False, False, True, True], out
    assert out[0]["error"]["code"] == "VALIDATION" and out[0]["error"]["field"] == "startedAt"
    assert out[1]["error"]["field"] == "endedAt" and "future" in out[1]["error"]["message"]


def test_naive_valid_from_is_per_item_validation(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    r = client.assert_facts(
        [
            fact("alice", "lives_in", "Paris", [e], cardinality="ONE", validTo=NAIVE),
            fact("alice", "likes", "tea", [e], cardinality="MANY"),
        ]
    )
    assert r["results"][0]["error"]["code"] == "VALIDATION"
    assert r["results"][1]["ok"]


def test_naive_episode_list_bounds_are_validation(client: GraphMemoryClient) -> None:
    """Without the check a naive bound is a LOCAL DATETIME: the filter silently matches nothing."""
    client.record_episode(**episode("alice"))
    q = 'query($f: DateTime){ episodes(scopes:["user:alice"], startedFrom:$f){ id } }'
    with pytest.raises(GraphMemoryClientError) as ei:
        client.execute(q, {"f": "2020-01-01T00:00:00"})
    assert _code(ei) == "VALIDATION"


def test_garbage_datetime_is_validation(client: GraphMemoryClient) -> None:
    with pytest.raises(GraphMemoryClientError) as ei:
        client.facts(["user:alice"], as_of="yesterday-ish")
    assert _code(ei) == "VALIDATION"


@pytest.mark.parametrize(
    "cursor", ["%%%", "bm90IGpzb24", base64.urlsafe_b64encode(b"[1]").decode()]
)
def test_malformed_cursor_is_validation(client: GraphMemoryClient, cursor: str) -> None:
    with pytest.raises(GraphMemoryClientError) as ei:
        client.facts(["user:alice"], after=cursor)
    assert _code(ei) == "VALIDATION"


def test_naive_cursor_is_validation_not_empty_page(client: GraphMemoryClient) -> None:
    _seed(client)
    cur = base64.urlsafe_b64encode(json.dumps(["2999-01-01T00:00:00", "zzz"]).encode()).decode()
    try:
        page = client.facts(["user:alice"], after=cur)
    except GraphMemoryClientError as e:
        assert e.code == "VALIDATION"
        return
    assert page["edges"], "a naive cursor silently yields an empty page"


def test_pagination_walks_every_fact_once(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    client.assert_facts(
        [fact("alice", "likes", f"thing {i}", [e], cardinality="MANY") for i in range(7)]
    )
    seen: list[str] = []
    after = None
    while True:
        page = client.facts(["user:alice"], first=3, after=after)
        seen += [x["node"]["id"] for x in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) == 7


def test_401_without_or_with_bad_key(server: str) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer nope"},
        {"Authorization": "Bearer"},
        {"X-Api-Key": "nope"},
    ):
        r = httpx.post(server, json={"query": "{ __typename }"}, headers=headers)
        assert r.status_code == 401
        assert r.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_analyst_cannot_write(analyst: GraphMemoryClient) -> None:
    with pytest.raises(GraphMemoryClientError) as ei:
        analyst.record_episodes([episode("alice")])
    assert _code(ei) == "FORBIDDEN"


def test_cross_tenant_ids_are_invisible(
    client: GraphMemoryClient, make_client: ClientFactory
) -> None:
    ep, fid = _seed(client)
    other = make_client(f"t-{uuid.uuid4().hex[:10]}", "agent")
    assert other.fact(fid) is None
    assert other.execute("query($id:ID!){ episode(id:$id){ id } }", {"id": ep})["episode"] is None
    ent = client.execute('{ entity(name: "Alice") { id key } }')["entity"]
    assert ent and ent["key"] == "alice"
    assert other.execute('{ entity(name: "alice") { id } }')["entity"] is None
    assert (
        other.execute("query($id:ID!){ entity(id:$id){ id } }", {"id": ent["id"]})["entity"] is None
    )
    with pytest.raises(GraphMemoryClientError) as ei:
        other.retract_fact(fid)
    assert _code(ei) == "NOT_FOUND"
    r = other.assert_facts([fact("alice", "lives_in", "Rome", [ep], cardinality="ONE")])
    assert r["results"][0]["error"]["code"] == "NOT_FOUND"
    assert other.history("alice", "lives_in", ["user:alice"])["versions"] == []


def test_depends_on_unknown_or_foreign_fact_is_per_item_error(
    client: GraphMemoryClient, make_client: ClientFactory
) -> None:
    other = make_client(f"t-{uuid.uuid4().hex[:10]}", "agent")
    _, foreign = _seed(other)
    e = client.record_episode(**episode("alice"))
    r = client.assert_facts(
        [
            fact("alice", "eligible_for", "discount", [e], cardinality="ONE", dependsOn=[foreign]),
            fact("alice", "prefers", "email", [e], cardinality="ONE", dependsOn=["fact_nope"]),
        ]
    )
    codes = [(x["error"] or {}).get("code") for x in r["results"]]
    assert codes == ["NOT_FOUND", "NOT_FOUND"], r["results"]


def test_retract_twice_reports_a_typed_error(client: GraphMemoryClient) -> None:
    _, fid = _seed(client)
    client.retract_fact(fid)
    with pytest.raises(GraphMemoryClientError) as ei:
        client.retract_fact(fid)
    assert _code(ei) in ("CONFLICT", "NOT_FOUND")


def test_unknown_predicate_cardinality_is_per_item(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    r = client.assert_facts(
        [
            fact("alice", "zz_custom_thing", "x y z", [e]),
            fact("alice", "zz_other_thing", "a b c", [e], cardinality="MANY"),
        ]
    )
    assert r["results"][0]["error"]["code"] == "VALIDATION"
    assert r["results"][1]["ok"]
    assert r["accepted"] == 1 and r["rejected"] == 1


def test_future_as_of_is_not_an_error(client: GraphMemoryClient) -> None:
    _seed(client)
    page = client.facts(["user:alice"], as_of=datetime(2999, 1, 1, tzinfo=UTC))
    assert [x["node"]["object"] for x in page["edges"]] == ["Paris"]


def test_ids_too_long_to_index_are_per_item_validation_not_internal(
    client: GraphMemoryClient,
) -> None:
    # Each fits MAX_STRING, but as a range-index key it would be over Neo4j's ~8 KB: the item
    # (or the call, for its key) is VALIDATION and its siblings land.
    ep = client.record_episode(**episode("alice"))
    eps = client.record_episodes([episode("alice", "s" * 9000), episode("alice", "fine")])
    assert [(e["ok"], e["error"] and e["error"]["field"]) for e in eps] == [
        (False, "sessionId"),
        (True, None),
    ]
    out = client.assert_facts(
        [
            fact("alice", "likes", "\u6f22" * 4000, [ep], cardinality="MANY"),  # 12 KB in UTF-8
            fact("alice", "p" * 9000, "Rome", [ep], cardinality="ONE"),
            fact("alice", "likes", "tea", [ep], cardinality="MANY"),
        ]
    )
    assert [(r["ok"], r["error"] and r["error"]["field"]) for r in out["results"]] == [
        (False, "object"),
        (False, "predicate"),
        (True, None),
    ]
    calls: list[Callable[[], object]] = [
        lambda: client.assert_facts([fact("alice", "likes", "jazz", [ep])], "k" * 19_000),
        lambda: client.remember(episode("alice"), [], "k" * 19_000),
    ]
    for call in calls:
        with pytest.raises(GraphMemoryClientError) as ei:
            call()
        assert (_code(ei), ei.value.errors[0]["extensions"].get("field")) == (
            "VALIDATION",
            "idempotencyKey",
        )
    listed = client.execute('query { episodes(scopes: ["user:alice"], first: 10) { id } }')
    assert len(listed["episodes"]) == 2  # the remember refused its key before recording


def test_index_keys_too_large_in_bytes_are_per_item_validation_and_siblings_land(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # Each is within its character bound, but as a range-index key (the fact's slot and object
    # slot, in UTF-8 and lower-cased) it was over Neo4j's ~8 KB: INTERNAL, and the batch lost.
    ep = client.record_episode(**episode("alice"))
    wide = "\U0001d400" * 512  # 512 characters, 2048 bytes
    grows = "\u0130" * 2000  # 4000 bytes, 6000 once lower-cased ("i" and a combining dot)
    out = client.assert_facts(
        [
            fact("Alice", "likes", "green tea", [ep], cardinality="MANY"),
            fact(wide, "p" * 512, grows, [ep], cardinality="MANY"),
            fact("Alice", "likes", grows, [ep], cardinality="MANY"),
            fact("Alice", "p" * 512, "x" * 4000, [ep], cardinality="MANY"),
        ]
    )
    assert [(r["ok"], r["error"] and r["error"]["field"]) for r in out["results"]] == [
        (True, None),
        (False, "subject"),
        (False, "object"),
        (True, None),  # every bound at once, in ASCII: fits
    ]
    kept = client.remember(
        episode("alice", "kept"), [fact("Alice", "likes", grows, [], cardinality="MANY")]
    )
    assert kept["episodeId"] and kept["episodeError"] is None
    assert kept["facts"]["results"][0]["error"]["field"] == "object"
    with pytest.raises(GraphMemoryClientError) as ei:
        admin.execute(
            "mutation($p: [PredicateInput!]!) { definePredicates(predicates: $p) { name } }",
            {"p": [{"name": "p" * 9000, "cardinality": "MANY"}]},
        )
    assert (_code(ei), ei.value.errors[0]["extensions"].get("field")) == ("VALIDATION", "name")
    assert len(ei.value.errors[0]["message"]) < 200


@pytest.mark.parametrize("k", [0, 101, 100_000])
def test_the_clients_recall_with_k_out_of_range_is_validation_naming_k(
    client: GraphMemoryClient, k: int
) -> None:
    # The client's full selection at k=500 is over the cost limit; the documented bound, not
    # QUERY_TOO_COMPLEX, is what comes back.
    with pytest.raises(GraphMemoryClientError) as ei:
        client.recall("where does alice live", ["user:alice"], k=k)
    assert _code(ei) == "VALIDATION"
    assert "k must be in 1..100" in str(ei.value)
