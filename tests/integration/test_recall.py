"""Recall over HTTP: ranking, relevance thresholds, tiers, isolation, score and provenance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode, fact
from tests.integration.recall_helpers import SCOPES, ids, new_ep, one

NOW = datetime.now(UTC)


def test_a_fresher_fact_beats_an_older_similar_one(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    old = one(
        client,
        fact(
            "Alice",
            "likes",
            "Blue Bottle cafe",
            [e],
            text="Alice's favourite coffee place is the Blue Bottle cafe",
            validFrom=NOW - timedelta(days=400),
            cardinality="MANY",
        ),
    )
    new = one(
        client,
        fact(
            "Alice",
            "likes",
            "Red Door cafe",
            [e],
            text="Alice's favourite coffee place is the Red Door cafe",
            validFrom=NOW - timedelta(days=2),
        ),
    )
    res = client.recall("which coffee place does Alice like best", SCOPES, kinds=["FACT"])
    assert ids(res)[:2] == [new, old]
    first, second = res["items"]
    # decay is the age part alone (recency is decay gated by relevance, services/recall/fusion.py).
    assert first["score"]["decay"] > 0.9 > 0.01 > second["score"]["decay"]


def test_system_tier_outranks_user_tier_of_similar_relevance(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    e = new_ep(client)
    user_fact = one(
        client,
        fact(
            "refunds",
            "refund_window",
            "90 days",
            [e],
            scope="user:alice",
            cardinality="ONE",
            text="Alice was told refunds can be requested within 90 days of purchase",
        ),
    )
    ea = admin.record_episode(**episode("ops", source="system"))
    system_fact = one(
        admin,
        fact(
            "refunds",
            "policy.refund_window",
            "30 days",
            [ea],
            scope="tenant",
            source="system",
            cardinality="ONE",
            text="Refunds can be requested within 30 days of purchase",
        ),
    )
    res = client.recall(
        "within how many days of purchase can refunds be requested",
        ["user:alice", "tenant"],
        kinds=["FACT"],
    )
    ranked = ids(res)
    assert ranked.index(system_fact) < ranked.index(user_fact)
    by_id = {i["id"]: i for i in res["items"]}
    assert by_id[system_fact]["score"]["tierBoost"] > by_id[user_fact]["score"]["tierBoost"]
    # Even with the user fact made the better textual match, the system one still wins.
    res2 = client.recall(
        "Alice was told refunds can be requested within days of purchase",
        ["user:alice", "tenant"],
        kinds=["FACT"],
    )
    ranked2 = ids(res2)
    assert ranked2.index(system_fact) < ranked2.index(user_fact)


def test_keyword_only_matches_are_found(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    target = one(
        client,
        fact(
            "ticket zx-4471",
            "status",
            "blocked",
            [e],
            cardinality="ONE",
            text="Ticket ZX-4471 is blocked on the vendor firmware update",
        ),
    )
    for i, (s, o) in enumerate([("Alice", "Postgres"), ("Bob", "Neo4j"), ("Carol", "Redis")]):
        one(
            client,
            fact(
                s, "uses", o, [e], text=f"{s} uses {o} for project number {i}", cardinality="MANY"
            ),
        )
    res = client.recall("ZX-4471", SCOPES, kinds=["FACT"])
    assert ids(res)[0] == target
    assert res["items"][0]["score"]["keyword"] == 1.0


def test_nothing_leaks_across_tenants_or_users(make_client: Any, tenant: str) -> None:
    # "acme-x" and "acme-x-2": a raw tenant id in the full-text index would be split by the
    # analyzer on '-' and match across tenants; the scope token must not.
    a = make_client(f"acme-{tenant}")
    b = make_client(f"acme-{tenant}-2")
    facts: dict[str, str] = {}
    owned: dict[str, set[str]] = {}
    for name, c in (("a", a), ("b", b)):
        for user in ("alice", "bob"):
            e = c.record_episode(
                **episode(user, summary=f"{user} reported that ticket ZX-4471 blocks the release.")
            )
            facts[f"{name}:{user}"] = one(
                c,
                fact(
                    "ticket zx-4471",
                    "owner",
                    f"{name}-{user}",
                    [e],
                    cardinality="MANY",
                    text=f"Ticket ZX-4471 is owned by {user} of team {name}",
                ),
            )
            owned[f"{name}:{user}"] = {e, facts[f"{name}:{user}"]}
    open_all = {
        "min_score": 0.0,
        "min_relevance": 0.0,
        "relative_relevance": 0.0,
        "min_confidence": 0.0,
        "k": 100,
        "over_recall": 100,
    }
    for name, c in (("a", a), ("b", b)):
        for user in ("alice", "bob"):
            for q in ("ZX-4471", "who owns ticket ZX-4471"):
                # Every threshold off: whatever the indexes return is what isolation allows.
                got = set(ids(c.recall(q, [f"user:{user}"], **open_all)))
                assert got == owned[f"{name}:{user}"], (name, user, q)
                top = ids(c.recall(q, [f"user:{user}"], kinds=["FACT"]))
                assert top == [facts[f"{name}:{user}"]]
        both = set(ids(c.recall("ZX-4471", ["user:alice", "user:bob"], **open_all)))
        assert both == owned[f"{name}:alice"] | owned[f"{name}:bob"]


def test_unrelated_queries_and_high_min_score_return_nothing(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    one(
        client,
        fact(
            "Alice",
            "prefers",
            "window seats",
            [e],
            cardinality="MANY",
            text="Alice prefers window seats on long flights",
        ),
    )
    assert client.recall("photosynthesis in chloroplasts of algae", SCOPES)["items"] == []
    res = client.recall("which seats does Alice prefer on flights", SCOPES)
    assert len(res["items"]) == 1
    assert (
        client.recall("which seats does Alice prefer on flights", SCOPES, min_score=0.99)["items"]
        == []
    )


def test_items_explain_their_score_and_provenance(client: GraphMemoryClient) -> None:
    e1 = new_ep(client, "alice", session="s-1")
    e2 = new_ep(client, "bob", session="s-2", scope="user:alice")
    fid = one(
        client,
        fact("Alice", "allergic_to", "peanuts", [e1, e2], text="Alice is allergic to peanuts"),
    )
    res = client.recall("is Alice allergic to anything", SCOPES, kinds=["FACT"])
    item = res["items"][0]
    assert item["id"] == fid and item["kind"] == "FACT"
    s, w = item["score"], res["weights"]
    expected = (
        w["vector"] * s["vector"]
        + w["keyword"] * s["keyword"]
        + w["recency"] * s["recency"]
        + w["confidence"] * s["confidence"]
        + s["tierBoost"]
    )
    assert s["total"] == pytest.approx(expected, abs=1e-5)
    assert w == {"vector": 0.5, "keyword": 0.2, "recency": 0.2, "confidence": 0.1}
    prov = item["provenance"]
    assert {p["episodeId"] for p in prov["episodes"]} == {e1, e2}
    assert sorted(prov["contributors"]) == ["alice", "bob"]
    assert prov["times"]["recordedAt"] and prov["times"]["freshAt"]


def test_weights_are_overridable_per_call(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    close_old = one(
        client,
        fact(
            "Alice",
            "likes",
            "hiking in the alps",
            [e],
            cardinality="MANY",
            text="Alice likes hiking in the Alps",
            validFrom=NOW - timedelta(days=700),
        ),
    )
    far_new = one(
        client,
        fact(
            "Alice",
            "likes",
            "mountain biking",
            [e],
            text="Alice enjoys mountain biking on weekends",
            validFrom=NOW - timedelta(hours=1),
        ),
    )
    q = "Alice likes hiking in the Alps"
    assert ids(client.recall(q, SCOPES, kinds=["FACT"]))[0] == close_old
    res = client.recall(
        q,
        SCOPES,
        kinds=["FACT"],
        min_score=0.0,
        weights={"vector": 0.0, "keyword": 0.0, "recency": 3.0, "confidence": 1.0},
    )
    assert ids(res)[0] == far_new
    assert res["weights"] == {"vector": 0.0, "keyword": 0.0, "recency": 0.75, "confidence": 0.25}


def test_episodes_are_recalled_with_their_contributor(client: GraphMemoryClient) -> None:
    ep = new_ep(
        client,
        summary="Alice asked to migrate her invoices to the new billing portal.",
        topics=["billing"],
    )
    res = client.recall("invoice migration to the billing portal", SCOPES, kinds=["EPISODE"])
    assert ids(res) == [ep]
    item = res["items"][0]
    assert item["kind"] == "EPISODE" and item["episode"]["userId"] == "alice"
    assert item["provenance"]["contributors"] == ["alice"]


def test_bad_arguments_are_validation_errors(client: GraphMemoryClient) -> None:
    for kw in (
        {"k": 0},
        {"half_life_days": 0.0},
        {"weights": {"vector": -1.0}},
        {"as_of": "2026-01-01T00:00:00"},
    ):
        with pytest.raises(GraphMemoryClientError) as err:
            client.recall("anything at all", SCOPES, **kw)
        assert err.value.code == "VALIDATION", kw
    with pytest.raises(GraphMemoryClientError) as err:
        client.recall("anything at all", [])
    assert err.value.code == "VALIDATION"


def test_a_recall_as_of_a_past_moment_reads_its_question_as_it_could_then(
    client: GraphMemoryClient,
) -> None:
    """Which words of a question name a known entity (and so count for less) is judged by the
    facts recorded by asOf: an entity first told later must not change what a recall at a
    past moment answers."""
    e = client.record_episode(
        **episode("dana", summary="Dana had lunch with the Globex sales team downtown.")
    )
    then = datetime.now(UTC)
    question = "which city does Dana live in nowadays"

    def answer() -> list[tuple[str, float]]:
        got = client.recall(question, ["user:dana"], as_of=then, valid_at=then)
        return [(i["id"], round(i["score"]["total"], 6)) for i in got["items"]]

    before = answer()
    assert [i for i, _ in before] == [e]
    told = client.assert_facts([fact("Dana", "lives_in", "Paris", [e], scope="user:dana")])
    assert told["accepted"] == 1
    assert answer() == before


def test_a_recall_as_of_a_past_moment_scores_and_shows_the_confidence_it_had_then(
    client: GraphMemoryClient,
) -> None:
    """A corroboration told after the moment asked about was not yet part of why the fact was
    believed: recall and context as of that moment show (and rank by) the confidence
    ``facts(asOf)`` gives, not today's."""
    first = new_ep(client, "erin", session="s-1")
    fid = one(
        client,
        fact("Erin", "drinks", "green tea", [first], scope="user:erin", cardinality="MANY"),
    )
    then = datetime.now(UTC)
    again = new_ep(client, "erin", session="s-2")
    assert one(client, fact("Erin", "drinks", "green tea", [again], scope="user:erin")) == fid
    listed = client.facts(["user:erin"], subject="Erin", as_of=then.isoformat())["edges"]
    (past,) = [e["node"]["confidence"] for e in listed]
    (now_conf,) = [e["node"]["confidence"] for e in client.facts(["user:erin"])["edges"]]
    assert now_conf > past

    got = client.recall("what does Erin drink", ["user:erin"], as_of=then, kinds=["FACT"])
    (item,) = [i for i in got["items"] if i["id"] == fid]
    assert item["score"]["confidence"] == pytest.approx(past, abs=1e-6)
    assert item["fact"]["confidence"] == pytest.approx(past, abs=1e-6)
    today = client.recall("what does Erin drink", ["user:erin"], kinds=["FACT"])
    (item,) = [i for i in today["items"] if i["id"] == fid]
    assert item["score"]["confidence"] == pytest.approx(now_conf, abs=1e-6)
    packed = client.context("what does Erin drink", 500, ["user:erin"], as_of=then)
    assert f"confidence {past:.2f}" in packed["text"]
    assert f"confidence {now_conf:.2f}" not in packed["text"]
