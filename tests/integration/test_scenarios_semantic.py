"""Held-out style scenarios for semantic memory, driven only through raw GraphQL text.

Each test is a story a user of the service would live through (moving city, correcting a
memory, replaying a batch, paging a long list) with exact expected answers.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from tests.integration.scenario_semantic_helpers import (
    D2018,
    D2020,
    D2023,
    DEFINE,
    ENTITY_FACTS,
    FACT,
    RETRACT,
    US,
    code_of,
    episodes,
    f,
    history,
    iso,
    objects,
    one,
    ts,
    write,
)

# -- time ----------------------------------------------------------------------------------


def _move_three_times(c: GraphMemoryClient) -> list[dict[str, Any]]:
    (e1, e2, e3) = episodes(c, "s1", "s2", "s3")
    one(c, f("Alice", "lives_in", "Paris", [e1], validFrom=iso(D2018)))
    one(c, f("alice", "lives_in", "London", [e2], validFrom=iso(D2020)))
    one(c, f(" ALICE ", "lives_in", "Berlin", [e3], validFrom=iso(D2023)))
    return history(c, "alice", "lives_in", ["user:alice"])


def test_three_moves_in_order_answer_every_moment(client: GraphMemoryClient) -> None:
    vs = _move_three_times(client)
    assert [(v["object"], v["version"], v["status"]) for v in vs] == [
        ("Paris", 1, "SUPERSEDED"),
        ("London", 2, "SUPERSEDED"),
        ("Berlin", 3, "ACTIVE"),
    ]
    r1, r2, r3 = (ts(v["recordedAt"]) for v in vs)
    # Belief ends exactly when the next version's belief starts, and says who replaced it.
    assert [v["supersededAt"] for v in vs] == [vs[1]["recordedAt"], vs[2]["recordedAt"], None]
    assert [v["supersededBy"] for v in vs] == [vs[1]["id"], vs[2]["id"], None]
    now = datetime.now(UTC) + timedelta(seconds=1)
    table: list[tuple[datetime, datetime, list[str]]] = [
        # before anything was recorded nothing was believed, whatever the validity moment
        (r1 - US, now, []),
        (r1 - US, D2018, []),
        # believed right after the first write: Paris from 2018 on, nothing before
        (r1, now, ["Paris"]),
        (r1, D2018 - US, []),
        (r1, D2018, ["Paris"]),
        (r2 - US, D2023, ["Paris"]),
        # after the second write: London from 2020-03-15T12:30 on
        (r2, D2020 - US, ["Paris"]),
        (r2, D2020, ["London"]),
        (r2, now, ["London"]),
        (r3 - US, D2023 + timedelta(days=1), ["London"]),
        # after the third write, the full timeline
        (r3, D2018 - US, []),
        (r3, D2018, ["Paris"]),
        (r3, D2020 - US, ["Paris"]),
        (r3, D2020, ["London"]),
        (r3, D2023 - US, ["London"]),
        (r3, D2023, ["Berlin"]),
        (now, now, ["Berlin"]),
        (now, datetime(2100, 1, 1, tzinfo=UTC), ["Berlin"]),
    ]
    ent = client.execute(FACT, {"id": vs[0]["id"]})["fact"]["subjectEntity"]
    assert ent["key"] == "alice"
    for as_of, valid_at, want in table:
        v = {"asOf": iso(as_of), "validAt": iso(valid_at)}
        got = objects(client, ["user:alice"], flt={"subject": "Alice"}, **v)
        assert got == want, (as_of, valid_at, got)
        slot = objects(
            client, ["user:alice"], flt={"subject": "alice", "predicate": "lives_in"}, **v
        )
        assert slot == want
        by_ent = client.execute(ENTITY_FACTS, {"id": ent["id"], "scopes": ["user:alice"], **v})
        assert sorted(x["object"] for x in by_ent["entity"]["facts"]) == want, (as_of, valid_at)
    # history asOf: only the versions recorded by then
    assert [
        v["object"] for v in history(client, "alice", "lives_in", ["user:alice"], asOf=iso(r2 - US))
    ] == ["Paris"]
    assert history(client, "alice", "lives_in", ["user:alice"], asOf=iso(r1 - US)) == []


def test_three_moves_recorded_out_of_order_keep_the_timeline(client: GraphMemoryClient) -> None:
    """Told about the moves out of order (Berlin 2023, then Paris 2018, then London 2020):
    the world timeline is still Paris -> London -> Berlin, and she lives in Berlin now."""
    (e1, e2, e3) = episodes(client, "s1", "s2", "s3")
    one(client, f("alice", "lives_in", "Berlin", [e1], validFrom=iso(D2023)))
    one(client, f("alice", "lives_in", "Paris", [e2], validFrom=iso(D2018)))
    one(client, f("alice", "lives_in", "London", [e3], validFrom=iso(D2020)))
    got = {
        label: objects(client, ["user:alice"], flt={"subject": "alice"}, validAt=iso(at))
        for label, at in (
            ("2019", D2018 + timedelta(days=365)),
            ("2021", D2020 + timedelta(days=365)),
            ("2024", D2023 + timedelta(days=200)),
        )
    }
    assert got == {"2019": ["Paris"], "2021": ["London"], "2024": ["Berlin"]}
    assert objects(client, ["user:alice"], flt={"subject": "alice"}) == ["Berlin"]


def test_backfilled_past_residence_does_not_erase_the_current_one(
    client: GraphMemoryClient,
) -> None:
    """She lives in Berlin since 2023; later we learn she lived in Paris [2018, 2020).
    That is history, not a change: Berlin must still be where she lives."""
    (e1, e2) = episodes(client, "s1", "s2")
    one(client, f("alice", "lives_in", "Berlin", [e1], validFrom=iso(D2023)))
    one(client, f("alice", "lives_in", "Paris", [e2], validFrom=iso(D2018), validTo=iso(D2020)))
    assert objects(
        client, ["user:alice"], flt={"subject": "alice"}, validAt=iso(D2018 + timedelta(days=10))
    ) == ["Paris"]
    assert objects(client, ["user:alice"], flt={"subject": "alice"}) == ["Berlin"]


# -- cardinality and corroboration ------------------------------------------------------------


def test_many_valued_predicate_corroborates_variants_with_noisy_or(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    defined = admin.execute(
        DEFINE,
        {
            "p": [
                {"name": "speaks_language", "cardinality": "MANY"},
                {"name": "home_airport", "cardinality": "ONE"},
            ]
        },
    )
    assert {(p["name"], p["cardinality"]) for p in defined["definePredicates"]} >= {
        ("speaks_language", "MANY"),
        ("home_airport", "ONE"),
    }
    (a1, a2, b1, c1) = episodes(client, "sa", "sa", "sb", "sc")
    r = write(
        client,
        [
            f("alice", "speaks_language", "French", [a1], w=0.5),
            f("alice", "speaks_language", "German", [a1], w=0.5),
        ],
    )
    french = r["results"][0]["factId"]
    assert [x["action"] for x in r["results"]] == ["created", "created"]
    assert r["results"][0]["confidence"] == pytest.approx(0.5)
    # Same session, another episode, stronger: the session's best weight counts, once.
    same = one(client, f("Alice", "speaks_language", "  french ", [a2], w=0.7))
    assert (same["action"], same["factId"]) == ("corroborated", french)
    assert same["confidence"] == pytest.approx(0.7)
    # Another session: noisy-OR 1 - 0.3 * 0.6
    other = one(client, f("alice", "Speaks Language", "FRENCH", [b1], w=0.4))
    assert (other["action"], other["factId"], other["version"]) == ("corroborated", french, 1)
    assert other["confidence"] == pytest.approx(0.82)
    # Citing the same episode again is not new evidence.
    again = one(client, f("alice", "speaks_language", "French", [b1], w=0.9))
    assert again["confidence"] == pytest.approx(0.82)
    # A third strong session is capped by the user tier (0.95).
    capped = one(client, f("alice", "speaks_language", "French", [c1], w=0.99))
    assert capped["confidence"] == pytest.approx(0.95)
    stored = client.execute(FACT, {"id": french})["fact"]
    assert (stored["object"], stored["confidence"], stored["version"]) == ("French", 0.95, 1)
    assert objects(client, ["user:alice"], flt={"predicate": "speaks_language"}) == [
        "French",
        "German",
    ]
    assert len(history(client, "alice", "speaks_language", ["user:alice"])) == 2
    # Single-valued custom predicate: a new object supersedes, a variant corroborates.
    one(client, f("alice", "home_airport", "CDG", [a1]))
    assert one(client, f("alice", "home_airport", " cdg", [b1]))["action"] == "corroborated"
    sup = one(client, f("alice", "home_airport", "TXL", [c1]))
    assert (sup["action"], sup["version"]) == ("superseded", 2)
    assert objects(client, ["user:alice"], flt={"predicate": "home_airport"}) == ["TXL"]
    # The registry is final: redefining, or declaring the other cardinality, is a CONFLICT.
    assert code_of(admin, DEFINE, {"p": [{"name": "home_airport", "cardinality": "MANY"}]}) == (
        "CONFLICT"
    )
    bad = write(client, [f("alice", "home_airport", "BER", [a1], cardinality="MANY")])
    assert bad["results"][0]["error"]["code"] == "CONFLICT"
    assert objects(client, ["user:alice"], flt={"predicate": "home_airport"}) == ["TXL"]


def test_define_predicates_is_admin_only(client: GraphMemoryClient) -> None:
    q = {"p": [{"name": "nickname", "cardinality": "ONE"}]}
    assert code_of(client, DEFINE, q) == "FORBIDDEN"


# -- retraction ------------------------------------------------------------------------------


def test_retract_superseded_then_current_then_reassert(client: GraphMemoryClient) -> None:
    (e1, e2, e3) = episodes(client, "s1", "s2", "s3")
    paris = one(client, f("alice", "lives_in", "Paris", [e1], validFrom=iso(D2018)))["factId"]
    berlin = one(client, f("alice", "lives_in", "Berlin", [e2], validFrom=iso(D2023)))["factId"]
    before_retract = datetime.now(UTC)
    # Retracting the already superseded Paris: it was never true, history says so.
    gone = client.execute(RETRACT, {"id": paris, "reason": "she never lived there"})["retractFact"]
    assert gone["status"] == "RETRACTED" and gone["retractedBy"].startswith("agent:")
    assert gone["retractReason"] == "she never lived there"
    assert objects(client, ["user:alice"], validAt=iso(D2020)) == []
    # What we believed before the retraction about 2020 is still answerable.
    assert objects(client, ["user:alice"], asOf=iso(before_retract), validAt=iso(D2020)) == [
        "Paris"
    ]
    assert objects(client, ["user:alice"]) == ["Berlin"]
    # Now Berlin is retracted too: nothing is served, nothing resurrected.
    out = client.execute(RETRACT, {"id": berlin, "reason": "mixed up with her sister"})
    at = ts(out["retractFact"]["retractedAt"])
    assert objects(client, ["user:alice"], asOf=iso(at - US)) == ["Berlin"]
    assert objects(client, ["user:alice"], asOf=iso(at)) == []
    assert objects(client, ["user:alice"]) == []
    assert objects(client, ["user:alice"], validAt=iso(D2020)) == []
    # Retracting twice is a CONFLICT, an unknown id is NOT_FOUND.
    assert code_of(client, RETRACT, {"id": berlin}) == "CONFLICT"
    assert code_of(client, RETRACT, {"id": "fact_nope"}) == "NOT_FOUND"
    # Re-asserting Berlin later serves it again as a new version of the chain.
    again = one(client, f("alice", "lives_in", "Berlin", [e3], validFrom=iso(D2023)))
    assert again["version"] == 3 and again["factId"] not in (paris, berlin)
    assert objects(client, ["user:alice"]) == ["Berlin"]
    vs = history(client, "alice", "lives_in", ["user:alice"])
    assert [(v["object"], v["status"], v["retractReason"]) for v in vs] == [
        ("Paris", "RETRACTED", "she never lived there"),
        ("Berlin", "RETRACTED", "mixed up with her sister"),
        ("Berlin", "ACTIVE", None),
    ]
    assert all(v["retractedAt"] and v["retractedBy"] for v in vs[:2])
    assert vs[0]["supersededAt"] is not None  # retraction keeps when belief was replaced
    assert [p["sessionId"] for v in vs for p in v["provenance"]] == ["s1", "s2", "s3"]


# -- validity on re-assertion, sessions, normalisation ---------------------------------------


def test_returning_to_a_former_employer_is_served_now(client: GraphMemoryClient) -> None:
    """Alice worked at ACME [2018, 2020-03-15); in 2023 she went back. Both statements are
    accepted, so ACME must be where she works now and not in 2021."""
    (e1, e2) = episodes(client, "s1", "s2")
    one(client, f("alice", "works_at", "ACME", [e1], validFrom=iso(D2018), validTo=iso(D2020)))
    back = one(client, f("alice", "works_at", "acme", [e2], validFrom=iso(D2023)))
    assert back["ok"]
    assert objects(client, ["user:alice"], validAt=iso(D2018 + timedelta(days=1))) == ["ACME"]
    assert objects(client, ["user:alice"], validAt=iso(D2020 + timedelta(days=365))) == []
    assert objects(client, ["user:alice"]) in (["acme"], ["ACME"])


def test_valid_to_before_the_default_valid_from_is_refused(client: GraphMemoryClient) -> None:
    """Only validTo is given and it lies before the cited episode's start (validFrom's
    default): the claim can never hold. It must be refused per item, not stored silently
    and, for a single-valued predicate, wipe out the current value."""
    (e1, e2) = episodes(client, "s1", "s2")  # episodes start 2018-01-02
    one(client, f("alice", "lives_in", "Berlin", [e1], validFrom=iso(D2018)))
    r = write(client, [f("alice", "lives_in", "Paris", [e2], validTo="2010-01-01T00:00:00+00:00")])
    assert objects(client, ["user:alice"]) == ["Berlin"]
    assert r["results"][0]["ok"] is False
    assert r["results"][0]["error"]["code"] == "VALIDATION"


def test_two_users_sessions_with_the_same_id_are_independent(client: GraphMemoryClient) -> None:
    """Runtimes often number sessions per user ("s1", "s2" ...). Alice's s1 and Bob's s1 are
    different conversations: noisy-OR 1 - 0.5 * 0.5 = 0.75."""
    (a,) = episodes(client, "s1", user="alice", scope="tenant")
    (b,) = episodes(client, "s1", user="bob", scope="tenant")
    r = write(
        client, [f("acme", "likes", "tea", [a], w=0.5), f("acme", "likes", "tea", [b], w=0.5)]
    )
    assert [x["action"] for x in r["results"]] == ["created", "corroborated"]
    assert r["results"][1]["confidence"] == pytest.approx(0.75)


def test_whitespace_and_case_variants_are_one_fact_and_one_entity(
    client: GraphMemoryClient,
) -> None:
    (e1, e2) = episodes(client, "s1", "s2")
    r = write(
        client,
        [
            f("Alice", "lives_in", "New   York", [e1], w=0.5),
            f(" ALICE\t", "Lives In", " new york\n", [e2], w=0.5),
        ],
    )
    assert [x["action"] for x in r["results"]] == ["created", "corroborated"]
    assert r["results"][0]["factId"] == r["results"][1]["factId"]
    assert [x["confidence"] for x in r["results"]] == pytest.approx([0.75, 0.75])
    q = """query($n: String!) { entity(name: $n) { key name
             facts(scopes: ["user:alice"]) { object confidence version } } }"""
    ent = client.execute(q, {"n": "  aLiCe "})["entity"]
    assert ent["key"] == "alice" and ent["name"] == "Alice"
    assert ent["facts"] == [{"object": "New   York", "confidence": 0.75, "version": 1}]
    assert client.execute(q, {"n": "bob"})["entity"] is None
    vs = history(client, " ALICE ", "lives in", ["user:alice"])
    assert [(v["object"], v["version"]) for v in vs] == [("New   York", 1)]
    assert sorted(p["sessionId"] for p in vs[0]["provenance"]) == ["s1", "s2"]


def test_reads_as_of_show_each_version_as_it_stood_then(client: GraphMemoryClient) -> None:
    """History and facts asOf T show lifecycle as believed at T, not as it is now."""
    eps = episodes(client, "s1", "s2", "s3")
    scopes = ["user:alice"]
    paris = one(client, f("Alice", "lives_in", "Paris", [eps[0]], validFrom=iso(D2018)))
    before_move = datetime.now(UTC)
    berlin = one(client, f("Alice", "lives_in", "Berlin", [eps[1]], validFrom=iso(D2023)))
    before_retraction = datetime.now(UTC)
    client.execute(RETRACT, {"id": berlin["factId"], "reason": "wrong city"})

    then = history(client, "Alice", "lives_in", scopes, asOf=iso(before_move))
    assert [(v["object"], v["status"], v["supersededAt"]) for v in then] == [
        ("Paris", "ACTIVE", None)
    ]
    middle = history(client, "Alice", "lives_in", scopes, asOf=iso(before_retraction))
    assert [(v["object"], v["status"]) for v in middle] == [
        ("Paris", "SUPERSEDED"),
        ("Berlin", "ACTIVE"),
    ]
    assert middle[0]["supersededBy"] == berlin["factId"]
    assert middle[1]["retractedAt"] is None and middle[1]["retractReason"] is None
    now = history(client, "Alice", "lives_in", scopes)
    assert [(v["object"], v["status"]) for v in now] == [
        ("Paris", "SUPERSEDED"),
        ("Berlin", "RETRACTED"),
    ]
    # facts(asOf) serves the version with the status it had then
    served = client.execute(
        FACTS_BY_SUBJECT, {"f": {"scopes": scopes, "subject": "Alice"}, "asOf": iso(before_move)}
    )["facts"]["edges"]
    assert [(e["node"]["id"], e["node"]["status"]) for e in served] == [(paris["factId"], "ACTIVE")]


FACTS_BY_SUBJECT = """query($f: FactFilterInput!, $asOf: DateTime) {
  facts(filter: $f, asOf: $asOf, first: 10) { edges { node { id status } } } }"""
