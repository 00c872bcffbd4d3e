"""What recall leaves out: past versions, candidates, unverified, expired, other tiers."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact
from tests.integration.recall_helpers import SCOPES, ids, new_ep, one

NOW = datetime.now(UTC)


def test_superseded_facts_only_at_a_past_as_of(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    berlin = one(
        client,
        fact(
            "Alice",
            "lives_in",
            "Berlin",
            [e],
            text="Alice lives in Berlin",
            validFrom=NOW - timedelta(days=300),
        ),
    )
    between = datetime.now(UTC)
    time.sleep(0.05)
    lisbon = one(
        client,
        fact(
            "Alice",
            "lives_in",
            "Lisbon",
            [e],
            text="Alice lives in Lisbon",
            validFrom=NOW - timedelta(days=1),
        ),
    )
    now_ids = ids(client.recall("in which city does Alice live", SCOPES, kinds=["FACT"]))
    assert lisbon in now_ids and berlin not in now_ids
    past = client.recall("in which city does Alice live", SCOPES, kinds=["FACT"], as_of=between)
    assert ids(past) == [berlin]
    # Shown as it was believed then: current, not yet superseded.
    assert past["items"][0]["fact"]["status"] == "ACTIVE"
    assert past["items"][0]["fact"]["supersededAt"] is None


def test_candidates_only_when_asked(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    cand = one(
        client,
        fact(
            "Alice",
            "likes",
            "jazz",
            [e],
            source="conversation",
            cardinality="MANY",
            text="Alice likes listening to jazz",
        ),
    )
    assert cand not in ids(client.recall("what music does Alice like", SCOPES))
    res = client.recall(
        "what music does Alice like", SCOPES, kinds=["FACT"], include_candidates=True
    )
    assert ids(res) == [cand] and res["items"][0]["fact"]["status"] == "CANDIDATE"


def test_conclusions_whose_premise_changed_are_not_served(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    acme = one(client, fact("Alice", "works_at", "Acme", [e], text="Alice works at Acme"))
    commute = one(
        client,
        fact(
            "Alice",
            "commutes_to",
            "Acme HQ in Leeds",
            [e],
            cardinality="ONE",
            dependsOn=[acme],
            text="Alice commutes to the Acme headquarters in Leeds",
        ),
    )
    q = "where does Alice commute to"
    assert commute in ids(client.recall(q, SCOPES, kinds=["FACT"]))
    one(client, fact("Alice", "works_at", "Globex", [e], text="Alice works at Globex"))
    assert commute not in ids(client.recall(q, SCOPES, kinds=["FACT"]))
    flagged = client.recall(q, SCOPES, kinds=["FACT"], include_unverified=True)
    assert commute in ids(flagged)


def test_expired_facts_only_when_asked(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    fid = one(
        client,
        fact(
            "Alice",
            "visiting",
            "Oslo",
            [e],
            cardinality="ONE",
            ttlDays=30,
            text="Alice is visiting Oslo this month",
        ),
    )
    q = "which city is Alice visiting"
    later = datetime.now(UTC) + timedelta(days=31)
    assert ids(client.recall(q, SCOPES, kinds=["FACT"])) == [fid]
    assert ids(client.recall(q, SCOPES, kinds=["FACT"], as_of=later)) == []
    got = client.recall(q, SCOPES, kinds=["FACT"], as_of=later, include_expired=True)
    assert ids(got) == [fid]


def test_tiers_filter_restricts_facts_to_those_tiers(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    e = new_ep(client)
    user_fact = one(
        client,
        fact(
            "office",
            "opens_at",
            "9am",
            [e],
            scope="tenant",
            cardinality="ONE",
            text="The office opens at 9am on weekdays",
        ),
    )
    ea = admin.record_episode(**episode("ops", source="system"))
    sys_fact = one(
        admin,
        fact(
            "office",
            "closes_at",
            "6pm",
            [ea],
            scope="tenant",
            source="system",
            cardinality="ONE",
            text="The office closes at 6pm on weekdays",
        ),
    )
    q = "office opening hours on weekdays"
    both = ids(client.recall(q, ["tenant"], kinds=["FACT"]))
    assert set(both) == {user_fact, sys_fact}
    assert ids(client.recall(q, ["tenant"], kinds=["FACT"], tiers=["SYSTEM"])) == [sys_fact]
