"""Held-out style scenarios of the kind public agent-memory benchmarks ask (LongMemEval, LoCoMo,
MEME), driven end to end through GraphQL: recordEpisode + assertFacts, then recall / context /
facts / history.

Knowledge updates answer with the current value and keep the old one in history; temporal
questions answer as of a moment; facts told over several sessions add up; a question about
something never told gets nothing; retracted memories are gone but accounted for; paraphrases
find the fact; two people's facts never mix; scores explain themselves; tiers and k behave.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode, fact

ALICE, BOB, TEAM = ["user:alice"], ["user:bob"], ["team:trip"]
OPEN = {"min_score": 0.0, "min_relevance": 0.0, "relative_relevance": 0.0, "min_confidence": 0.0}
EVERYTHING = {"include_candidates": True, "include_expired": True, "include_unverified": True}
FACTS_ONLY = {"kinds": ["FACT"]}
TIER_MULT = {"SYSTEM": 1.2, "ADMIN": 1.1, "USER": 1.0, "INFERRED": 0.9}


def day(y: int, m: int = 1, d: int = 1) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def ep(
    c: GraphMemoryClient,
    user: str = "alice",
    session: str | None = None,
    when: datetime | None = None,
    **kw: Any,
) -> str:
    """One session summary; ``when`` dates the session (default: conftest's T0)."""
    if when is not None:
        kw.update(startedAt=when, endedAt=when + timedelta(minutes=30))
    return c.record_episode(**episode(user, session, **kw))


def told(
    c: GraphMemoryClient, eps: list[str], s: str, p: str, o: str, text: str, **kw: Any
) -> dict[str, Any]:
    """Assert one fact (stated by the user unless told otherwise); fail loudly if refused.
    ``weight`` sets every citation's support."""
    weight = kw.pop("weight", None)
    item = fact(s, p, o, eps, text=text, **kw)
    if weight is not None:
        item["episodes"] = [{"episodeId": e, "weight": weight} for e in eps]
    r: dict[str, Any] = c.assert_facts([item])["results"][0]
    assert r["ok"], r
    return r


def put(c: GraphMemoryClient, eps: list[str], s: str, p: str, o: str, text: str, **kw: Any) -> str:
    return str(told(c, eps, s, p, o, text, **kw)["factId"])


def recall(c: GraphMemoryClient, q: str, scopes: list[str], **opts: Any) -> dict[str, Any]:
    return c.recall(q, scopes, **opts)


def ids(res: dict[str, Any]) -> list[str]:
    return [i["id"] for i in res["items"]]


def top_fact(c: GraphMemoryClient, q: str, scopes: list[str], **opts: Any) -> str | None:
    items = recall(c, q, scopes, **FACTS_ONLY, **opts)["items"]
    return items[0]["fact"]["object"] if items else None


def current(
    c: GraphMemoryClient, scopes: list[str], subject: str, predicate: str, **kw: Any
) -> list[str]:
    edges = c.facts(scopes, subject=subject, predicate=predicate, **kw)["edges"]
    return sorted(e["node"]["object"] for e in edges)


def entity_objects(c: GraphMemoryClient) -> list[str]:
    """What the entity page for Alice lists as true now."""
    q = 'query { entity(name: "Alice") { facts(scopes: ["user:alice"]) { object } } }'
    return sorted(f["object"] for f in c.execute(q)["entity"]["facts"])


def facts_block(c: GraphMemoryClient, q: str, scopes: list[str], **opts: Any) -> str:
    text: str = c.context(q, 2000, scopes, **opts)["text"]
    return text.split("## Episodes")[0]


def moment() -> datetime:
    """A belief instant strictly between the last committed write and the next one."""
    at = datetime.now(UTC)
    time.sleep(0.02)
    return at


# -- knowledge updates -------------------------------------------------------------------------


def test_a_move_answers_with_the_new_city_and_history_keeps_the_old(
    client: GraphMemoryClient,
) -> None:
    march = ep(client, session="march", when=day(2025, 3))
    sept = ep(client, session="sept", when=day(2025, 9))
    paris = put(client, [march], "Alice", "lives_in", "Paris", "Alice lives in Paris")
    berlin = put(client, [sept], "Alice", "lives_in", "Berlin", "Alice moved to Berlin")
    q = "where does Alice live"
    assert top_fact(client, q, ALICE) == "Berlin"
    assert paris not in ids(recall(client, q, ALICE, k=50, **OPEN))
    block = facts_block(client, q, ALICE, **OPEN)
    assert "Berlin" in block and "Paris" not in block
    assert current(client, ALICE, "alice", "lives_in") == ["Berlin"]
    old, new = client.history("Alice", "lives_in", ALICE)["versions"]
    assert (old["id"], old["status"], old["supersededBy"]) == (paris, "SUPERSEDED", berlin)
    assert (new["id"], new["status"], new["supersededAt"]) == (berlin, "ACTIVE", None)
    # Each version keeps the session that told it, not the one that replaced it.
    assert [p["sessionId"] for p in old["provenance"]] == ["march"]
    assert [p["sessionId"] for p in new["provenance"]] == ["sept"]


def test_a_job_change_is_found_by_any_wording_and_the_old_job_never_resurfaces(
    client: GraphMemoryClient,
) -> None:
    acme = put(client, [ep(client, when=day(2024, 5))], "Alice", "works_at", "Acme",
               "Alice works at Acme as a data engineer")  # fmt: skip
    put(client, [ep(client, when=day(2025, 10))], "Alice", "works_at", "Globex",
        "Alice works at Globex as a data engineer")  # fmt: skip
    for q in ("where does Alice work", "who is Alice's employer", "Alice's current job"):
        assert top_fact(client, q, ALICE) == "Globex", q
        assert acme not in ids(recall(client, q, ALICE, k=50, **OPEN, **EVERYTHING)), q
    assert entity_objects(client) == ["Globex"]


def test_a_changed_favourite_answers_now_and_for_the_time_before(
    client: GraphMemoryClient,
) -> None:
    kw = {"cardinality": "ONE"}
    put(client, [ep(client, when=day(2024, 2))], "Alice", "favourite_cuisine", "Thai",
        "Alice's favourite cuisine is Thai food", validFrom=day(2024, 2), **kw)  # fmt: skip
    put(client, [ep(client, when=day(2025, 6))], "Alice", "favourite_cuisine", "Italian",
        "Alice's favourite cuisine is Italian food", validFrom=day(2025, 6), **kw)  # fmt: skip
    q = "what food does Alice like best"
    assert top_fact(client, q, ALICE) == "Italian"
    assert top_fact(client, q, ALICE, valid_at=day(2024, 12)) == "Thai"
    assert current(client, ALICE, "alice", "favourite_cuisine", valid_at=day(2024, 12)) == ["Thai"]
    assert "Thai" not in facts_block(client, q, ALICE)


def test_a_dropped_preference_leaves_the_others_of_a_many_valued_list(
    client: GraphMemoryClient,
) -> None:
    e1, e2 = ep(client, session="s1"), ep(client, session="s2")
    sushi = put(client, [e1], "Alice", "likes", "sushi", "Alice likes eating sushi")
    ramen = put(client, [e2], "Alice", "likes", "ramen", "Alice likes eating ramen")
    client.retract_fact(sushi, reason="Alice said she went off sushi")
    q = "what food does Alice like"
    got = recall(client, q, ALICE, k=10, **FACTS_ONLY, **OPEN)
    assert ids(got) == [ramen]
    assert current(client, ALICE, "alice", "likes") == ["ramen"]
    statuses = {
        v["object"]: v["status"] for v in client.history("alice", "likes", ALICE)["versions"]
    }
    assert statuses == {"sushi": "RETRACTED", "ramen": "ACTIVE"}


def test_moving_back_makes_a_third_version_and_each_period_keeps_its_city(
    client: GraphMemoryClient,
) -> None:
    told = {}
    for session, month, city in (("s1", 3, "Paris"), ("s2", 6, "Berlin"), ("s3", 9, "Paris")):
        e = ep(client, session=session, when=day(2025, month))
        told[session] = put(client, [e], "Alice", "lives_in", city, f"Alice lives in {city}")
    assert top_fact(client, "where does Alice live", ALICE) == "Paris"
    for month, city in ((4, "Paris"), (7, "Berlin"), (10, "Paris")):
        assert current(client, ALICE, "alice", "lives_in", valid_at=day(2025, month)) == [city]
    versions = client.history("alice", "lives_in", ALICE)["versions"]
    assert [(v["id"], v["version"], v["status"]) for v in versions] == [
        (told["s1"], 1, "SUPERSEDED"),
        (told["s2"], 2, "SUPERSEDED"),
        (told["s3"], 3, "ACTIVE"),
    ]


def test_sessions_ingested_out_of_order_still_answer_with_the_latest_told(
    client: GraphMemoryClient,
) -> None:
    # A history replayed in batch: the September session lands before the March one.
    sept = ep(client, session="sept", when=day(2025, 9))
    put(client, [sept], "Alice", "lives_in", "Berlin", "Alice lives in Berlin")
    march = ep(client, session="march", when=day(2025, 3))
    put(client, [march], "Alice", "lives_in", "Paris", "Alice lives in Paris")
    assert current(client, ALICE, "alice", "lives_in") == ["Berlin"]
    assert current(client, ALICE, "alice", "lives_in", valid_at=day(2025, 12)) == ["Berlin"]
    assert current(client, ALICE, "alice", "lives_in", valid_at=day(2025, 6)) == ["Paris"]
    assert top_fact(client, "where does Alice live", ALICE) == "Berlin"


# -- temporal reasoning ------------------------------------------------------------------------


def test_valid_at_gives_the_value_true_then_and_nothing_before_the_first(
    client: GraphMemoryClient,
) -> None:
    e = ep(client)
    put(client, [e], "Alice", "lives_in", "Paris", "Alice lives in Paris", validFrom=day(2018))
    put(client, [e], "Alice", "lives_in", "Berlin", "Alice lives in Berlin", validFrom=day(2023))
    q = "where does Alice live"
    for at, want in ((day(2019), "Paris"), (day(2023) - timedelta(microseconds=1), "Paris"),
                     (day(2023), "Berlin"), (None, "Berlin")):  # fmt: skip
        assert top_fact(client, q, ALICE, valid_at=at) == want, at
        assert current(client, ALICE, "alice", "lives_in", valid_at=at) == [want], at
    assert top_fact(client, q, ALICE, valid_at=day(2017)) is None
    assert current(client, ALICE, "alice", "lives_in", valid_at=day(2017)) == []
    assert "Paris" in facts_block(client, q, ALICE, valid_at=day(2020))


def test_as_of_before_we_learned_knows_nothing_and_between_knows_the_old(
    client: GraphMemoryClient,
) -> None:
    before = moment()
    e = ep(client, summary="Alice told the assistant about her move from Paris to Berlin.")
    put(client, [e], "Alice", "lives_in", "Paris", "Alice lives in Paris", validFrom=day(2018))
    between = moment()
    put(client, [e], "Alice", "lives_in", "Berlin", "Alice lives in Berlin", validFrom=day(2023))
    q = "where does Alice live"
    nothing = recall(client, q, ALICE, as_of=before, **OPEN)
    assert nothing["items"] == [] and nothing["considered"] == 0
    ctx = client.context(q, 500, ALICE, as_of=before)
    assert (ctx["text"], ctx["included"], ctx["dropped"]) == ("", [], [])
    assert current(client, ALICE, "alice", "lives_in", as_of=before) == []
    assert client.history("alice", "lives_in", ALICE, as_of=before)["versions"] == []
    assert top_fact(client, q, ALICE, as_of=between) == "Paris"
    assert [v["object"] for v in client.history("alice", "lives_in", ALICE, as_of=between)[
        "versions"]] == ["Paris"]  # fmt: skip


def test_a_job_that_ended_is_not_current_but_answers_for_its_years(
    client: GraphMemoryClient,
) -> None:
    e = ep(client)
    acme = put(client, [e], "Alice", "works_at", "Acme", "Alice worked at Acme as a nurse",
               validFrom=day(2019), validTo=day(2022))  # fmt: skip
    q = "where does Alice work"
    assert acme not in ids(recall(client, q, ALICE, k=50, **OPEN))
    assert current(client, ALICE, "alice", "works_at") == []
    assert top_fact(client, q, ALICE, valid_at=day(2020, 6)) == "Acme"
    assert top_fact(client, q, ALICE, valid_at=day(2022)) is None  # validTo is exclusive


def test_an_older_home_learned_later_does_not_replace_the_current_one(
    client: GraphMemoryClient,
) -> None:
    e = ep(client)
    put(client, [e], "Alice", "lives_in", "Berlin", "Alice lives in Berlin", validFrom=day(2024))
    put(client, [ep(client)], "Alice", "lives_in", "Paris", "Alice lived in Paris",
        validFrom=day(2018), validTo=day(2024))  # fmt: skip
    assert top_fact(client, "where does Alice live", ALICE) == "Berlin"
    assert top_fact(client, "where did Alice live", ALICE, valid_at=day(2020)) == "Paris"
    versions = client.history("alice", "lives_in", ALICE)["versions"]
    assert sorted(v["object"] for v in versions) == ["Berlin", "Paris"]


RECALL_LIFECYCLE = """query($q: String!, $s: [String!]!, $asOf: DateTime) {
  recall(query: $q, scopes: $s, asOf: $asOf, kinds: [FACT]) {
    items { id fact { status retractedAt supersededAt } } } }"""


def test_recall_as_of_shows_the_fact_as_it_was_believed_then(client: GraphMemoryClient) -> None:
    fid = put(client, [ep(client)], "Alice", "allergic_to", "shellfish",
              "Alice is allergic to shellfish")  # fmt: skip
    believed = moment()
    client.retract_fact(fid, reason="mixed up with another customer")
    assert current(client, ALICE, "alice", "allergic_to", as_of=believed) == ["shellfish"]
    v = {"q": "what is Alice allergic to", "s": ALICE, "asOf": believed.isoformat()}
    items = client.execute(RECALL_LIFECYCLE, v)["recall"]["items"]
    assert [i["id"] for i in items] == [fid]
    assert items[0]["fact"] == {"status": "ACTIVE", "retractedAt": None, "supersededAt": None}


# -- multi-session aggregation -----------------------------------------------------------------


def test_preferences_told_in_three_sessions_are_all_recalled_with_their_sessions(
    client: GraphMemoryClient,
) -> None:
    made = {}
    for i, (dish, text) in enumerate((("sushi", "Alice likes eating sushi"),
                                      ("tacos", "Alice likes eating spicy tacos"),
                                      ("ramen", "Alice likes eating ramen noodles"))):  # fmt: skip
        e = ep(client, session=f"s{i}", when=day(2025, 1 + i))
        made[put(client, [e], "Alice", "likes", dish, text)] = f"s{i}"
    got = recall(client, "which dishes does Alice like to eat", ALICE, k=10, **FACTS_ONLY)
    assert set(ids(got)) == set(made)
    for item in got["items"]:
        assert [p["sessionId"] for p in item["provenance"]["episodes"]] == [made[item["id"]]]
        assert item["provenance"]["contributors"] == ["alice"]
    assert current(client, ALICE, "alice", "likes") == ["ramen", "sushi", "tacos"]


def test_corroboration_counts_distinct_sessions_not_repeated_episodes(
    client: GraphMemoryClient,
) -> None:
    a1, a2, b = ep(client, session="a"), ep(client, session="a"), ep(client, session="b")
    args = ("Alice", "allergic_to", "peanuts", "Alice is allergic to peanuts")
    fid = put(client, [a1], *args, weight=0.5)
    again = told(client, [a2], *args, weight=0.5)
    assert (again["factId"], again["action"]) == (fid, "corroborated")
    assert again["confidence"] == pytest.approx(0.5)  # same session: no independent evidence
    assert told(client, [b], *args, weight=0.5)["confidence"] == pytest.approx(0.75)
    item = recall(client, "what is Alice allergic to", ALICE, **FACTS_ONLY)["items"][0]
    assert item["id"] == fid
    assert item["fact"]["confidence"] == pytest.approx(0.75)  # noisy-OR of two sessions
    assert sorted(p["sessionId"] for p in item["provenance"]["episodes"]) == ["a", "a", "b"]


def test_an_inferred_fact_is_served_only_after_three_distinct_sessions(
    client: GraphMemoryClient,
) -> None:
    q = "what does Alice do at weekends"
    text = "Alice goes hiking in the mountains at weekends"
    for n, session in enumerate(("x", "x", "y", "z")):
        e = ep(client, session=session)
        item = fact("Alice", "likes", "hiking", [e], source="conversation", text=text)
        res = client.assert_facts([item])["results"][0]
        assert res["ok"], res
        served = ids(recall(client, q, ALICE, **FACTS_ONLY))
        promoted = n == 3  # sessions x, x, y are two sessions; z is the third
        assert (res["status"] == "ACTIVE") is promoted and (res["factId"] in served) is promoted


def test_a_team_fact_told_by_two_people_names_both_contributors(client: GraphMemoryClient) -> None:
    ea = ep(client, "alice", scope=TEAM[0], summary="Alice said the team trip goes to Lisbon.")
    eb = ep(client, "bob", scope=TEAM[0], summary="Bob confirmed the team trip is to Lisbon.")
    fid = put(client, [ea, eb], "team trip", "destination", "Lisbon",
              "The team trip goes to Lisbon", cardinality="ONE")  # fmt: skip
    item = recall(client, "where is the team trip going", TEAM, **FACTS_ONLY)["items"][0]
    assert item["id"] == fid
    assert sorted(item["provenance"]["contributors"]) == ["alice", "bob"]
    assert ids(recall(client, "where is the team trip going", ALICE, **OPEN)) == []


# -- abstention ----------------------------------------------------------------------------------


@pytest.fixture
def alice_profile(client: GraphMemoryClient) -> dict[str, str]:
    """A few unrelated things Alice told in three sessions."""
    billing = ep(client, summary="Alice asked how to change the billing address on her account.")
    dinner = ep(client, summary="Alice booked a table for two at an Italian restaurant on Friday.")
    pen = ep(client, summary="Alice said she carries an epinephrine pen for her nut allergy.")
    return {
        "billing": billing,
        "dinner": dinner,
        "pen": pen,
        "allergy": put(client, [pen], "Alice", "allergic_to", "peanuts",
                       "Alice is allergic to peanuts"),
        "job": put(client, [billing], "Alice", "works_at", "Acme",
                   "Alice works at Acme as a data engineer"),
    }  # fmt: skip


@pytest.mark.parametrize(
    "q",
    ["what is the capital of Peru", "quantum chromodynamics on a lattice", "how do I bake bread"],
)
def test_an_unrelated_question_gets_an_empty_answer(
    client: GraphMemoryClient, alice_profile: dict[str, str], q: str
) -> None:
    res = recall(client, q, ALICE)
    assert res["items"] == [] and res["considered"] > 0
    assert res["belowThreshold"] == res["considered"]
    ctx = client.context(q, 1000, ALICE)
    assert (ctx["text"], ctx["included"]) == ("", [])


@pytest.mark.parametrize("q", ["what is the name of Alice's cat", "what is Alice's blood type"])
def test_a_question_about_something_never_told_gets_an_empty_answer(
    client: GraphMemoryClient, alice_profile: dict[str, str], q: str
) -> None:
    assert recall(client, q, ALICE)["items"] == []


def test_memories_sharing_only_the_name_do_not_ride_along_with_the_answer(
    client: GraphMemoryClient, alice_profile: dict[str, str]
) -> None:
    got = ids(recall(client, "what is Alice allergic to", ALICE))
    assert got[:1] == [alice_profile["allergy"]]
    assert alice_profile["dinner"] not in got and alice_profile["billing"] not in got


def test_min_score_is_inclusive_and_above_every_total_abstains(
    client: GraphMemoryClient, alice_profile: dict[str, str]
) -> None:
    q = "what is Alice allergic to"
    best = recall(client, q, ALICE)["items"][0]
    assert best["id"] == alice_profile["allergy"]
    at_best = recall(client, q, ALICE, min_score=best["score"]["total"])
    assert ids(at_best) == [best["id"]]
    assert recall(client, q, ALICE, min_score=best["score"]["total"] + 1e-4)["items"] == []


# -- retraction ------------------------------------------------------------------------------------


def test_a_retracted_fact_is_not_served_but_history_says_when_and_by_whom(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    e = ep(client)
    fid = put(client, [e], "Alice", "allergic_to", "shellfish", "Alice is allergic to shellfish")
    keep = put(client, [e], "Alice", "allergic_to", "pollen", "Alice is allergic to pollen")
    believed = moment()
    gone = client.retract_fact(fid, reason="mixed up with another customer")
    after = datetime.now(UTC)
    q = "what is Alice allergic to"
    served = ids(recall(client, q, ALICE, k=50, **OPEN, **EVERYTHING))
    assert fid not in served and keep in served
    assert "shellfish" not in client.context(q, 2000, ALICE, **OPEN)["text"]
    assert current(client, ALICE, "alice", "allergic_to") == ["pollen"]
    assert entity_objects(client) == ["pollen"]
    (v,) = [v for v in client.history("alice", "allergic_to", ALICE)["versions"] if v["id"] == fid]
    assert v["status"] == "RETRACTED" and v["retractReason"] == "mixed up with another customer"
    assert believed <= datetime.fromisoformat(v["retractedAt"]) <= after
    assert v["retractedBy"] == gone["retractedBy"] and v["retractedBy"].startswith("agent:")
    assert fid in ids(recall(client, q, ALICE, as_of=believed, **FACTS_ONLY))
    events = analyst.audit_log(target=fid, action="retract")["edges"]
    assert [ev["node"]["actor"] for ev in events] == [v["retractedBy"]]


def test_retracting_one_persons_fact_leaves_the_same_claim_about_another(
    client: GraphMemoryClient,
) -> None:
    ea = ep(client, "alice", scope=TEAM[0])
    eb = ep(client, "bob", scope=TEAM[0])
    mine = put(client, [ea], "Alice", "likes", "opera", "Alice likes going to the opera")
    his = put(client, [eb], "Bob", "likes", "opera", "Bob likes going to the opera")
    client.retract_fact(mine)
    assert current(client, TEAM, "alice", "likes") == []
    assert current(client, TEAM, "bob", "likes") == ["opera"]
    got = ids(recall(client, "who likes going to the opera", TEAM, **FACTS_ONLY, **OPEN))
    assert got == [his]


# -- paraphrases -----------------------------------------------------------------------------------

PARAPHRASES = [
    ("where does Alice live", "Berlin"),
    ("which city is Alice based in", "Berlin"),
    ("what is Alice's home town these days", "Berlin"),
    ("what is Alice's job", "nurse"),
    ("where is Alice employed", "nurse"),
    ("what food does Bob like", "Thai food"),
    ("what is Bob's favourite cuisine", "Thai food"),
    ("which games does Bob play", "chess"),
]


@pytest.mark.parametrize(("q", "want"), PARAPHRASES)
def test_a_paraphrased_question_finds_the_fact(
    client: GraphMemoryClient, q: str, want: str
) -> None:
    e = ep(client, "alice", scope=TEAM[0])
    for s, p, o, text in (
        ("Alice", "lives_in", "Berlin", "Alice lives in Berlin"),
        ("Alice", "role", "nurse", "Alice works as a nurse at the Charite hospital"),
        ("Bob", "likes", "Thai food", "Bob loves spicy Thai food"),
        ("Bob", "likes", "chess", "Bob enjoys playing chess on Sundays"),
    ):
        put(client, [e], s, p, o, text)
    assert top_fact(client, q, TEAM) == want


# -- several people ------------------------------------------------------------------------------


def test_two_people_with_the_same_predicate_in_one_scope_never_mix(
    client: GraphMemoryClient,
) -> None:
    ea, eb = ep(client, "alice", scope=TEAM[0]), ep(client, "bob", scope=TEAM[0])
    put(client, [ea], "Alice", "lives_in", "Berlin", "Alice lives in Berlin", validFrom=day(2020))
    madrid = put(client, [eb], "Bob", "lives_in", "Madrid", "Bob lives in Madrid")
    put(client, [ea], "Alice", "lives_in", "Rome", "Alice lives in Rome", validFrom=day(2025))
    assert (client.fact(madrid) or {}).get("status") == "ACTIVE"  # Alice's move is not Bob's
    assert current(client, TEAM, "bob", "lives_in") == ["Madrid"]
    assert current(client, TEAM, "alice", "lives_in") == ["Rome"]
    assert top_fact(client, "where does Bob live", TEAM) == "Madrid"
    assert top_fact(client, "where does Alice live", TEAM) == "Rome"


def test_the_same_subject_in_two_users_memories_stays_separate(client: GraphMemoryClient) -> None:
    ea, eb = ep(client, "alice"), ep(client, "bob", scope="user:bob")
    put(client, [ea], "mom", "lives_in", "Rome", "My mom lives in Rome")
    oslo = put(client, [eb], "mom", "lives_in", "Oslo", "My mom lives in Oslo")
    put(client, [ea], "mom", "lives_in", "Naples", "My mom moved to Naples")
    assert current(client, BOB, "mom", "lives_in") == ["Oslo"]
    assert current(client, ALICE, "mom", "lives_in") == ["Naples"]
    assert [v["object"] for v in client.history("mom", "lives_in", BOB)["versions"]] == ["Oslo"]
    assert ids(recall(client, "where does my mom live", BOB, **FACTS_ONLY)) == [oslo]
    assert top_fact(client, "where does my mom live", ALICE) == "Naples"


# -- scores, tiers, k ---------------------------------------------------------------------------


@pytest.fixture
def office(client: GraphMemoryClient, admin: GraphMemoryClient) -> dict[str, str]:
    """Office facts at every tier, each on its own slot (no conflict reordering)."""
    ea = admin.record_episode(**episode("ops", scope="tenant", source="system"))
    eu = ep(client, scope="tenant", summary="Alice asked when the office opens and closes.")
    made = {
        "SYSTEM": put(admin, [ea], "office", "opens_at", "8am", "The office opens at 8am",
                      source="system", cardinality="ONE"),
        "ADMIN": put(admin, [ea], "office", "closes_at", "6pm", "The office closes at 6pm",
                     source="admin", cardinality="ONE"),
        "USER": put(client, [eu], "office", "lunch_break", "noon",
                    "The office closes for lunch at noon", cardinality="ONE"),
        "INFERRED": put(client, [eu], "office", "quiet_hours", "after 4pm",
                        "The office is quiet after 4pm", source="conversation", cardinality="ONE"),
    }  # fmt: skip
    return made


Q_OFFICE = "when does the office open and close"


def test_score_breakdown_is_in_range_adds_up_and_orders_the_items(
    client: GraphMemoryClient, office: dict[str, str]
) -> None:
    weights = {"vector": 3, "keyword": 1, "recency": 1, "confidence": 1}
    res = recall(client, Q_OFFICE, ["tenant"], k=20, weights=weights, include_candidates=True,
                 **OPEN)  # fmt: skip
    w = res["weights"]
    assert sum(w.values()) == pytest.approx(1.0, abs=1e-5) and w["vector"] == pytest.approx(0.5)
    by_id = {i["id"]: i for i in res["items"]}
    assert set(office.values()) <= set(by_id)
    for item in res["items"]:
        s = item["score"]
        assert all(0.0 <= s[p] <= 1.0 for p in w), s
        base = sum(w[p] * s[p] for p in w)
        # Only facts carry a tier; the boost is the rest of the score scaled by it.
        mult = TIER_MULT[item["fact"]["tier"]] if item["kind"] == "FACT" else 1.0
        assert s["tierBoost"] == pytest.approx(base * (mult - 1), abs=1e-5), item
        assert s["total"] == pytest.approx(base + s["tierBoost"], abs=1e-5)
    totals = [i["score"]["total"] for i in res["items"]]
    assert totals == sorted(totals, reverse=True)
    assert {t: by_id[f]["fact"]["tier"] for t, f in office.items()} == {t: t for t in office}


def test_tiers_filter_facts_in_recall_and_context(
    client: GraphMemoryClient, office: dict[str, str]
) -> None:
    def facts_at(tiers: list[str]) -> set[str]:
        res = recall(client, Q_OFFICE, ["tenant"], tiers=tiers, include_candidates=True, k=20,
                     **FACTS_ONLY, **OPEN)  # fmt: skip
        return set(ids(res))

    assert facts_at(["SYSTEM"]) == {office["SYSTEM"]}
    assert facts_at(["ADMIN", "USER"]) == {office["ADMIN"], office["USER"]}
    assert facts_at(["INFERRED"]) == {office["INFERRED"]}
    block = facts_block(client, Q_OFFICE, ["tenant"], tiers=["SYSTEM"], **OPEN)
    assert "8am" in block and "6pm" not in block and "noon" not in block
    with pytest.raises(GraphMemoryClientError):
        recall(client, Q_OFFICE, ["tenant"], tiers=["ROOT"])


def test_considered_and_below_threshold_account_for_every_candidate(
    client: GraphMemoryClient, alice_profile: dict[str, str]
) -> None:
    for q in ("what is Alice allergic to", "what is the capital of Peru", "Alice"):
        res = recall(client, q, ALICE, k=100)
        assert res["considered"] == len(res["items"]) + res["belowThreshold"], q
        opened = recall(client, q, ALICE, k=100, **OPEN)
        assert (len(opened["items"]), opened["belowThreshold"]) == (opened["considered"], 0), q


def test_a_smaller_k_is_a_prefix_of_a_larger_one(client: GraphMemoryClient) -> None:
    e = ep(client)
    for dish in ("sushi", "ramen", "tacos", "paella", "pho", "curry", "pizza"):
        put(client, [e], "Alice", "likes", dish, f"Alice likes eating {dish} for dinner")
    q = "what does Alice like to eat for dinner"
    full = ids(recall(client, q, ALICE, k=100, **FACTS_ONLY, **OPEN))
    assert len(full) == 7
    for k in (1, 2, 5, 7, 30):
        assert ids(recall(client, q, ALICE, k=k, **FACTS_ONLY, **OPEN)) == full[:k], k
    assert len(ids(recall(client, q, ALICE, k=3, over_recall=1, **FACTS_ONLY, **OPEN))) == 3


@pytest.mark.parametrize(
    ("opts", "ok"),
    [({"k": 0}, False), ({"k": 101}, False), ({"k": 100}, True), ({"k": 1}, True),
     ({"over_recall": 0}, False), ({"over_recall": 501}, False), ({"over_recall": 500}, True),
     ({"over_recall": 1}, True), ({"k": -3}, False)],
)  # fmt: skip
def test_k_and_over_recall_bounds(
    client: GraphMemoryClient, opts: dict[str, int], ok: bool
) -> None:
    put(client, [ep(client)], "Alice", "lives_in", "Berlin", "Alice lives in Berlin")
    if ok:
        assert top_fact(client, "where does Alice live", ALICE, **opts) == "Berlin"
        return
    with pytest.raises(GraphMemoryClientError) as err:
        recall(client, "where does Alice live", ALICE, **opts)
    assert err.value.code == "VALIDATION"


def test_over_recall_of_one_still_finds_the_current_value_behind_a_long_history(
    client: GraphMemoryClient,
) -> None:
    e = ep(client)
    for i in range(12):
        put(client, [e], "Alice", "works_at", f"Firm{i}", f"Alice works at Firm{i} as an engineer",
            validFrom=day(2010 + i))  # fmt: skip
    q = "where does Alice work"
    assert top_fact(client, q, ALICE, k=1, over_recall=1) == "Firm11"
    assert top_fact(client, q, ALICE, k=1, over_recall=1, valid_at=day(2015, 6)) == "Firm5"
