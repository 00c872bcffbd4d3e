"""Held-out scenarios for procedural memory, working-memory assembly and episodes, over GraphQL.

Stories a demanding agent developer cares about: procedures keyed by (scope, intent, role) that
version, earn their place by outcomes and are served only for their intent; a `context` block
that puts facts, then episodes, then procedures under a hard token budget and never serves a
superseded, retracted, expired, unverified or candidate fact (or another user's) as truth; and
an `episodes` read and `recordEpisode` write that filter, order and validate like a real store.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings
from tests.integration.conftest import ClientFactory, elapse_ttl, episode, fact

TEAM = "team:support"
RESET = ["Verify the customer's identity", "Send a reset link to the email on file"]
TRAVEL = ["Read the traveller's seat and time preferences", "Search matching flights", "Confirm"]
ME = ["user:alice", "tenant"]
Q_TRAVEL = "Alice's flights, seats and travel preferences"

RECORD_ONE = "mutation($e: EpisodeInput!) { recordEpisode(episode: $e) }"
RECORD_MANY = """mutation($e: [EpisodeInput!]!) {
  recordEpisodes(episodes: $e) { index ok id error { code field } } }"""
EPISODES = """query($s: [String!]!, $u: String, $sid: String, $from: DateTime, $to: DateTime,
                    $first: Int! = 20) {
  episodes(scopes: $s, userId: $u, sessionId: $sid, startedFrom: $from, startedTo: $to,
           first: $first) { id userId sessionId scope startedAt endedAt outcome summary } }"""
EPISODE = "query($id: ID!) { episode(id: $id) { id scope startedAt endedAt outcome } }"
FACT_COUNT = "query($id: ID!) { fact(id: $id) { retrievalCount } }"
SUMMARY = "Alice asked the support agent how to change the seat on her booked flight to Lisbon."


def _code(fn: Any, *args: Any, **kw: Any) -> str:
    with pytest.raises(GraphMemoryClientError) as err:
        fn(*args, **kw)
    return err.value.code


def _ep(c: GraphMemoryClient, user: str = "alice", **kw: Any) -> str:
    return c.record_episode(**episode(user, **kw))


def _proven(c: GraphMemoryClient, proc_id: str, verdicts: list[bool], scope: str = TEAM) -> Any:
    out: Any = None
    for ok in verdicts:
        out = c.record_procedure_outcome(proc_id, ok, _ep(c, scope=scope))
    return out


def _f(s: str, p: str, o: str, eps: list[str], **kw: Any) -> dict[str, Any]:
    """A fact payload; single-valued unless told otherwise (unknown predicates need one)."""
    return fact(s, p, o, eps, **{"cardinality": "ONE", **kw})


def _write(c: GraphMemoryClient, *rows: dict[str, Any]) -> list[dict[str, Any]]:
    out = c.assert_facts(list(rows))["results"]
    assert all(r["ok"] for r in out), out
    return list(out)


def _travel_memory(c: GraphMemoryClient, admin: GraphMemoryClient) -> dict[str, Any]:
    """Three travel facts, two travel episodes and an admin travel procedure for Alice."""
    eps = [
        _ep(c, summary=f"Alice booked flight {n} to Lisbon and asked for a window seat again.")
        for n in ("TP-101", "TP-202")
    ]
    rows = [
        _f("Alice", "prefers_seat", "window", eps[:1], text="Alice prefers window seats"),
        _f("Alice", "prefers_time", "morning", eps[1:], text="Alice prefers morning flights"),
        _f("Alice", "home_airport", "LIS", eps, text="Alice flies from Lisbon airport"),
    ]
    facts = [r["factId"] for r in _write(c, *rows)]
    proc = admin.upsert_procedure("book travel", "travel_agent", TRAVEL, "tenant")["procedure"]
    return {"facts": facts, "episodes": eps, "procedure": proc["id"]}


def _ctx_ids(c: GraphMemoryClient, query: str, scopes: list[str], **kw: Any) -> set[str]:
    return {i["id"] for i in c.context(query, kw.pop("budget", 4000), scopes, **kw)["included"]}


# -- procedures: keys, versions, evidence ------------------------------------------------------


def test_intent_role_and_scope_each_key_their_own_lineage(client: GraphMemoryClient) -> None:
    agent = client.upsert_procedure("Reset Password", "support_agent", RESET, TEAM)["procedure"]
    lead = client.upsert_procedure("reset_password", "team_lead", RESET[:1], TEAM)["procedure"]
    other = client.upsert_procedure("reset password", "support_agent", RESET, "tenant")
    assert (agent["version"], lead["version"], other["procedure"]["version"]) == (1, 1, 1)
    assert other["action"] == "created"  # same intent and role, another scope: a new lineage
    both = client.procedures("reset password", [TEAM], include_candidates=True)
    assert {p["id"] for p in both} == {agent["id"], lead["id"]}
    only = client.procedures("reset_password", [TEAM], role="Team Lead", include_candidates=True)
    assert [p["id"] for p in only] == [lead["id"]] and only[0]["steps"] == RESET[:1]
    # A new version for one role leaves the other role's procedure untouched.
    v2 = client.upsert_procedure("reset_password", "support_agent", [*RESET, "Close"], TEAM)
    assert v2["procedure"]["supersedes"] == agent["id"]
    again = client.procedures("reset_password", [TEAM], role="team_lead", include_candidates=True)
    assert [(p["id"], p["supersededAt"]) for p in again] == [(lead["id"], None)]


def test_intent_is_matched_exactly_never_by_prefix_or_neighbour(admin: GraphMemoryClient) -> None:
    proc = admin.upsert_procedure("reset_password", "support_agent", RESET, "tenant")["procedure"]
    for near in ("reset", "password", "reset_password_v2", "reset-password"):
        assert admin.procedures(near, ["tenant"], include_candidates=True) == [], near
    assert [p["id"] for p in admin.procedures("  RESET   password ", ["tenant"])] == [proc["id"]]
    ctx = admin.context("how do I reset a customer's password", 2000, ["tenant"], intent="reset")
    assert all(i["kind"] != "PROCEDURE" for i in ctx["included"] + ctx["dropped"])


def test_versions_form_one_chain_and_identical_steps_are_unchanged(
    client: GraphMemoryClient,
) -> None:
    v1 = client.upsert_procedure("reset_password", "support_agent", RESET, TEAM)["procedure"]
    spaced = ["  Verify the customer's   identity ", "Send a reset link to the email on file"]
    same = client.upsert_procedure("reset_password", "support_agent", spaced, TEAM)
    assert same["action"] == "unchanged" and same["procedure"]["id"] == v1["id"]
    v2 = client.upsert_procedure("reset_password", "support_agent", RESET[::-1], TEAM)
    assert v2["action"] == "new_version"  # order of steps is part of the procedure
    v3 = client.upsert_procedure("reset_password", "support_agent", RESET, TEAM)["procedure"]
    assert (v2["procedure"]["version"], v3["version"]) == (2, 3)
    assert v3["supersedes"] == v2["procedure"]["id"] and v3["steps"] == RESET
    current = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert [p["id"] for p in current] == [v3["id"]]  # exactly one current version


def test_mixed_outcomes_promote_on_the_third_success_and_demote_on_repeated_failure(
    client: GraphMemoryClient,
) -> None:
    proc = client.upsert_procedure("reset_password", "support_agent", RESET, TEAM)["procedure"]
    r = _proven(client, proc["id"], [True, False, True, False])
    assert (r["status"], r["procedure"]["successCount"], r["procedure"]["failureCount"]) == (
        "candidate",
        2,
        2,
    )
    r = _proven(client, proc["id"], [True])
    assert (r["statusBefore"], r["status"]) == ("candidate", "active")
    assert [p["id"] for p in client.procedures("reset_password", [TEAM])] == [proc["id"]]
    r = _proven(client, proc["id"], [False, False])  # 3 wins, 4 losses: flaky, still served
    assert r["status"] == "active"
    r = _proven(client, proc["id"], [False])  # the latest three failed: repeated failure
    assert (r["statusBefore"], r["status"]) == ("active", "demoted")
    assert client.procedures("reset_password", [TEAM], include_candidates=True) == []
    ctx = client.context("reset the password", 2000, [TEAM], intent="reset_password")
    assert ctx["included"] == [] and ctx["dropped"] == []


def test_best_proven_procedure_comes_first(admin: GraphMemoryClient) -> None:
    weak = admin.upsert_procedure("refund", "agent_a", ["Refund at once"], TEAM)["procedure"]
    strong = admin.upsert_procedure("refund", "agent_b", ["Check order", "Refund"], TEAM)
    _proven(admin, strong["procedure"]["id"], [True, True, True])
    _proven(admin, weak["id"], [False, True])
    got = [p["id"] for p in admin.procedures("refund", [TEAM])]
    assert got == [strong["procedure"]["id"], weak["id"]]


def test_outcome_on_an_old_version_does_not_count_for_the_current_one(
    client: GraphMemoryClient,
) -> None:
    v1 = client.upsert_procedure("reset_password", "support_agent", RESET, TEAM)["procedure"]
    v2 = client.upsert_procedure("reset_password", "support_agent", RESET[:1], TEAM)["procedure"]
    _proven(client, v1["id"], [True, True, True])
    (cur,) = client.procedures("reset_password", [TEAM], include_candidates=True)
    assert (cur["id"], cur["successCount"], cur["status"]) == (v2["id"], 0, "candidate")
    assert client.procedures("reset_password", [TEAM]) == []  # the proven v1 is history


def test_outcomes_cannot_cross_tenants(make_client: ClientFactory, tenant: str) -> None:
    mine, theirs = make_client(tenant), make_client(f"{tenant}-x")
    proc = mine.upsert_procedure("reset_password", "support_agent", RESET, TEAM)["procedure"]
    foreign_ep = _ep(theirs, scope=TEAM)
    assert _code(mine.record_procedure_outcome, proc["id"], True, foreign_ep) == "NOT_FOUND"
    assert _code(theirs.record_procedure_outcome, proc["id"], True, foreign_ep) == "NOT_FOUND"
    (p,) = mine.procedures("reset_password", [TEAM], include_candidates=True)
    assert (p["successCount"], p["failureCount"]) == (0, 0)


def test_procedure_reads_reject_bad_arguments(client: GraphMemoryClient) -> None:
    client.upsert_procedure("reset_password", "support_agent", RESET, TEAM)
    naive = datetime(2026, 1, 1)  # naive on purpose
    cases: list[dict[str, Any]] = [{"first": 0}, {"first": 101}, {"as_of": naive.isoformat()}]
    for kw in cases:
        assert _code(client.procedures, "reset_password", [TEAM], **kw) == "VALIDATION", kw
    assert _code(client.procedures, "", [TEAM]) == "VALIDATION"
    assert _code(client.procedures, "reset_password", []) == "VALIDATION"
    assert _code(client.procedures, "reset_password", ["everyone"]) == "VALIDATION"


def test_procedures_as_of_show_what_was_served_then(client: GraphMemoryClient) -> None:
    proc = client.upsert_procedure("reset_password", "support_agent", RESET, TEAM)["procedure"]
    before = datetime.now(UTC)
    assert client.procedures("reset_password", [TEAM]) == []  # a candidate: not served at T
    time.sleep(0.05)
    assert _proven(client, proc["id"], [True, True, True])["status"] == "active"
    assert [p["id"] for p in client.procedures("reset_password", [TEAM])] == [proc["id"]]
    assert client.procedures("reset_password", [TEAM], as_of=before) == []


# -- context: order, budget, drops -------------------------------------------------------------


def test_empty_memory_is_an_empty_block_not_an_error(client: GraphMemoryClient) -> None:
    res = client.context("what does Alice like to eat", 300, ME, intent="book_travel")
    assert (res["text"], res["tokens"], res["tokenBudget"]) == ("", 0, 300)
    assert res["included"] == [] and res["dropped"] == [] and res["tokenizer"]


def test_sections_come_in_order_and_every_included_item_is_in_the_text(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    mem = _travel_memory(client, admin)
    res = client.context(Q_TRAVEL, 4000, ME, intent="book_travel")
    kinds = [i["kind"] for i in res["included"]]
    assert kinds == sorted(kinds, key=["FACT", "EPISODE", "PROCEDURE"].index)
    assert {"FACT", "EPISODE", "PROCEDURE"} <= set(kinds)
    text = res["text"]
    assert text.index("## Facts") < text.index("## Episodes") < text.index("## Procedures")
    assert "Alice prefers window seats" in text and "Search matching flights" in text
    assert mem["procedure"] in {i["id"] for i in res["included"]}
    assert 0 < res["tokens"] <= 4000 and res["dropped"] == []


def test_a_budget_exactly_the_size_of_the_block_drops_nothing(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    _travel_memory(client, admin)
    full = client.context(Q_TRAVEL, 4000, ME, intent="book_travel")
    assert full["dropped"] == []
    exact = client.context(Q_TRAVEL, full["tokens"], ME, intent="book_travel")
    assert exact["dropped"] == [] and exact["text"] == full["text"]


def test_one_token_less_than_the_block_drops_something_and_says_so(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    _travel_memory(client, admin)
    full = client.context(Q_TRAVEL, 4000, ME, intent="book_travel")
    tight = client.context(Q_TRAVEL, full["tokens"] - 1, ME, intent="book_travel")
    assert tight["tokens"] <= full["tokens"] - 1 and tight["dropped"]
    assert all(d["reason"] == "over_budget" and d["tokens"] > 0 for d in tight["dropped"])
    everything = {i["id"] for i in full["included"]}
    seen = [i["id"] for i in tight["included"]] + [d["id"] for d in tight["dropped"]]
    assert sorted(seen) == sorted(everything)  # each item reported once, as kept or dropped


@pytest.mark.parametrize("budget", [1, 3, 7])
def test_tiny_budgets_give_nothing_but_report_everything(
    client: GraphMemoryClient, admin: GraphMemoryClient, budget: int
) -> None:
    _travel_memory(client, admin)
    full = client.context(Q_TRAVEL, 4000, ME, intent="book_travel")
    tiny = client.context(Q_TRAVEL, budget, ME, intent="book_travel")
    assert (tiny["text"], tiny["tokens"], tiny["included"]) == ("", 0, [])
    assert {d["id"] for d in tiny["dropped"]} == {i["id"] for i in full["included"]}


def test_a_higher_ranked_fact_is_never_dropped_for_a_lower_ranked_one_of_its_size(
    client: GraphMemoryClient,
) -> None:
    ep = _ep(client)
    cities = ["Rome", "Paris", "Berlin", "Madrid", "London", "Vienna"]
    _write(
        client,
        *(
            _f(
                "Alice",
                "wants_to_visit",
                c,
                [ep],
                cardinality="MANY",
                text=f"Alice wants a trip to {c}",
            )
            for c in cities
        ),
    )
    query = "which cities does Alice want to take a trip to"
    full = client.context(query, 4000, ["user:alice"], kinds=["FACT"])
    assert len(full["included"]) >= 4
    for budget in range(10, full["tokens"], 7):
        res = client.context(query, budget, ["user:alice"], kinds=["FACT"])
        assert res["tokens"] <= budget
        for d in res["dropped"]:
            for i in res["included"]:
                assert not (d["score"] > i["score"] and d["tokens"] <= i["tokens"]), (budget, d, i)
        scores = [i["score"] for i in res["included"]]
        assert scores == sorted(scores, reverse=True)  # rank order inside the section


def test_k_caps_each_kind_and_intent_or_role_mismatch_serves_no_procedure(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    mem = _travel_memory(client, admin)
    res = client.context(Q_TRAVEL, 4000, ME, k=1, intent="book_travel")
    per_kind = [i["kind"] for i in res["included"] + res["dropped"]]
    assert all(per_kind.count(k) <= 1 for k in ("FACT", "EPISODE", "PROCEDURE"))
    for kw in ({"intent": "cancel_booking"}, {"intent": "book_travel", "role": "accountant"}):
        assert mem["procedure"] not in _ctx_ids(client, Q_TRAVEL, ME, **kw), kw
    assert mem["procedure"] in _ctx_ids(client, Q_TRAVEL, ME, intent="Book Travel")


def test_context_rejects_bad_arguments(client: GraphMemoryClient) -> None:
    naive = datetime(2026, 1, 1).isoformat()  # naive on purpose
    assert _code(client.context, Q_TRAVEL, -5, ME) == "VALIDATION"
    assert _code(client.context, Q_TRAVEL, 10**9, ME) == "VALIDATION"
    assert _code(client.context, "   ", 100, ME) == "VALIDATION"
    assert _code(client.context, Q_TRAVEL, 100, []) == "VALIDATION"
    assert _code(client.context, Q_TRAVEL, 100, ["user:"]) == "VALIDATION"
    assert _code(client.context, Q_TRAVEL, 100, ME, as_of=naive) == "VALIDATION"


def test_asking_for_no_kinds_serves_nothing(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    _travel_memory(client, admin)
    try:
        res = client.context(Q_TRAVEL, 4000, ME, kinds=[], intent="book_travel")
    except GraphMemoryClientError as err:  # refusing the empty list is as good as honouring it
        assert err.code == "VALIDATION"
        return
    assert res["included"] == [] and res["text"] == ""


# -- context: only truth, only mine ------------------------------------------------------------


def test_superseded_and_retracted_facts_leave_the_context_but_stay_in_its_past(
    client: GraphMemoryClient,
) -> None:
    e1, e2 = _ep(client), _ep(client)
    q = "Which city does Alice live in and which gym is she a member of?"
    paris, gym = _write(
        client,
        _f("Alice", "lives_in", "Paris", [e1], text="Alice lives in Paris"),
        _f("Alice", "gym", "FitClub", [e1], text="Alice is a member of FitClub gym"),
    )
    paris_id, gym_id = paris["factId"], gym["factId"]
    before = datetime.now(UTC)
    assert {paris_id, gym_id} <= _ctx_ids(client, q, ME)
    time.sleep(0.05)
    (london,) = _write(
        client, _f("Alice", "lives_in", "London", [e2], text="Alice lives in London")
    )
    assert london["supersedes"] == paris_id
    client.retract_fact(gym_id, "she cancelled")
    now = client.context(q, 4000, ME)
    ids = {i["id"] for i in now["included"] + now["dropped"]}
    assert london["factId"] in ids and not {paris_id, gym_id} & ids
    assert "Paris" not in now["text"] and "FitClub" not in now["text"]
    past = client.context(q, 4000, ME, as_of=before.isoformat())
    assert {paris_id, gym_id} <= {i["id"] for i in past["included"]}
    assert "London" not in past["text"] and past["asOf"] is not None


def test_candidate_and_unverified_facts_are_not_served_as_truth(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    ep = _ep(client)
    q = "What is Alice's employer and where is her office?"
    (heard,) = _write(
        client,
        _f("Alice", "works_for", "Acme", [ep], source="conversation", text="Alice works for Acme"),
    )
    assert heard["status"] == "CANDIDATE"
    assert heard["factId"] not in _ctx_ids(client, q, ME)
    analyst.approve_fact(heard["factId"])
    assert heard["factId"] in _ctx_ids(client, q, ME)
    (office,) = _write(
        client,
        _f(
            "Alice",
            "office_city",
            "Porto",
            [ep],
            text="Alice's office is in Porto",
            dependsOn=[heard["factId"]],
        ),
    )
    assert office["factId"] in _ctx_ids(client, q, ME)
    client.retract_fact(heard["factId"], "she left Acme")
    assert not {heard["factId"], office["factId"]} & _ctx_ids(client, q, ME)


def test_an_expired_fact_is_not_served_as_truth(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    ep = _ep(client)
    q = "Where is Alice parked today?"
    (r,) = _write(
        client, _f("Alice", "parked_at", "level 3", [ep], ttlDays=1, text="Alice parked on level 3")
    )
    assert r["factId"] in _ctx_ids(client, q, ME)
    elapse_ttl(settings, tenant, r["factId"])
    res = client.context(q, 4000, ME)
    assert r["factId"] not in {i["id"] for i in res["included"] + res["dropped"]}
    assert "level 3" not in res["text"]


def test_another_users_private_memory_never_enters_my_context(
    make_client: ClientFactory, tenant: str, client: GraphMemoryClient
) -> None:
    bob_ep = _ep(client, "bob", summary="Bob told the agent his bank PIN hint and his salary.")
    (bob,) = _write(client, _f("Bob", "salary", "90k", [bob_ep], text="Bob earns 90k a year"))
    client.upsert_procedure("payroll", "hr_agent", ["Read Bob's salary"], "user:bob")
    q = "How much does Bob earn? What is Bob's salary? payroll"
    res = client.context(q, 4000, ME, intent="payroll")
    assert res["included"] == [] and res["dropped"] == [] and "Bob" not in res["text"]
    assert bob["factId"] in _ctx_ids(client, q, ["user:bob"])
    # The same scope name in another tenant is another world.
    stranger = make_client(f"{tenant}-z")
    assert _ctx_ids(stranger, q, ["user:bob", "tenant"], intent="payroll") == set()


def test_context_as_of_before_anything_was_recorded_is_empty(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    start = datetime.now(UTC) - timedelta(seconds=1)
    _travel_memory(client, admin)
    res = client.context(Q_TRAVEL, 4000, ME, intent="book_travel", as_of=start.isoformat())
    assert res["included"] == [] and res["text"] == ""
    assert datetime.fromisoformat(res["asOf"]) == start


def test_only_what_was_included_counts_as_retrieved(client: GraphMemoryClient) -> None:
    ep = _ep(client)
    long_text = "Alice prefers aisle seats " + "and extra legroom " * 30
    rows = _write(
        client,
        _f("Alice", "prefers_seat", "aisle", [ep], text="Alice prefers aisle seats"),
        _f("Alice", "seat_notes", "legroom", [ep], text=long_text),
    )
    ids = [r["factId"] for r in rows]
    res = client.context("Alice prefers aisle seats", 40, ["user:alice"], kinds=["FACT"])
    kept, gone = {i["id"] for i in res["included"]}, {d["id"] for d in res["dropped"]}
    assert kept == {ids[0]} and gone == {ids[1]}
    deadline = time.monotonic() + 6
    while client.execute(FACT_COUNT, {"id": ids[0]})["fact"]["retrievalCount"] < 1:
        assert time.monotonic() < deadline, "the served fact was never counted as retrieved"
        time.sleep(0.25)
    assert client.execute(FACT_COUNT, {"id": ids[1]})["fact"]["retrievalCount"] == 0


# -- episodes: read and write ------------------------------------------------------------------


def _timeline(c: GraphMemoryClient) -> dict[str, str]:
    base = datetime(2026, 3, 1, tzinfo=UTC)
    out = {}
    for n, (user, sid) in enumerate(
        [("alice", "s1"), ("alice", "s2"), ("bob", "s1"), ("alice", "s3")]
    ):
        start = base + timedelta(days=n)
        out[f"{user}-{sid}"] = _ep(c, user, session=sid, startedAt=start, endedAt=start)
    out["team"] = _ep(c, "alice", session="s9", scope=TEAM, startedAt=base, endedAt=base)
    return out


def test_episode_filters_scope_and_newest_first(client: GraphMemoryClient) -> None:
    ids = _timeline(client)

    def q(**kw: Any) -> list[str]:
        v = {"s": kw.pop("s", ["user:alice"]), **kw}
        return [e["id"] for e in client.execute(EPISODES, v)["episodes"]]

    assert q() == [ids["alice-s3"], ids["alice-s2"], ids["alice-s1"]]  # bob and team stay out
    assert q(s=["user:alice", TEAM], sid="s9") == [ids["team"]]
    assert q(s=["user:alice", "user:bob"], sid="s1") == [ids["bob-s1"], ids["alice-s1"]]
    assert q(s=["user:alice", "user:bob"], u="bob") == [ids["bob-s1"]]
    # startedFrom inclusive, startedTo exclusive, any offset means the same instant.
    frm, to = "2026-03-02T01:00:00+01:00", "2026-03-04T00:00:00Z"
    assert q(s=["user:alice", "user:bob"], **{"from": frm, "to": to}) == [
        ids["bob-s1"],
        ids["alice-s2"],
    ]
    assert q(**{"from": "2026-03-05T00:00:00Z", "to": "2026-03-01T00:00:00Z"}) == []
    assert q(first=2) == [ids["alice-s3"], ids["alice-s2"]]
    assert q(s=["user:carol"]) == []


def test_episodes_first_outside_range_is_refused(client: GraphMemoryClient) -> None:
    _timeline(client)
    for first in (0, -1):
        with pytest.raises(GraphMemoryClientError) as err:
            client.execute(EPISODES, {"s": ["user:alice"], "first": first})
        assert err.value.code == "VALIDATION"


def test_episodes_can_be_paged_with_a_cursor_the_api_hands_out(client: GraphMemoryClient) -> None:
    t = client.execute(
        '{ __type(name: "Query") { fields { name type { kind ofType { name } } } } }'
    )
    field = next(f for f in t["__type"]["fields"] if f["name"] == "episodes")
    target = (field["type"].get("ofType") or {}).get("name") or ""
    ep_fields = client.execute('{ __type(name: "Episode") { fields { name } } }')
    names = {f["name"] for f in ep_fields["__type"]["fields"]}
    assert target.endswith("Connection") or "cursor" in names


def test_naive_times_and_impossible_intervals_are_refused(client: GraphMemoryClient) -> None:
    good = {"userId": "alice", "sessionId": "s1", "summary": SUMMARY, "outcome": "SUCCESS"}
    bad: list[tuple[dict[str, Any], str | None]] = [
        ({"startedAt": "2026-01-01T10:00:00"}, "startedAt"),
        ({"startedAt": "2026-01-01T10:00:00Z", "endedAt": "2026-01-01T11:00:00"}, "endedAt"),
        ({"startedAt": "2026-01-01T10:00:00Z", "endedAt": "2026-01-01T09:59:59Z"}, "endedAt"),
        ({"outcome": "WON"}, None),
        ({"summary": ""}, "summary"),
        ({"summary": "   \n  "}, "summary"),
        ({"confidence": 0.0}, "confidence"),
        ({"confidence": 1.5}, "confidence"),
        ({"source": "rumour"}, "source"),
        ({"summary": "thanks"}, "summary"),
        ({"userId": " "}, "userId"),
    ]
    for patch, fld in bad:
        with pytest.raises(GraphMemoryClientError) as err:
            client.execute(RECORD_ONE, {"e": {**good, **patch}})
        assert err.value.code == "VALIDATION", patch
        if fld:
            assert err.value.errors[0]["extensions"].get("field") == fld, patch
    # An episode that takes no time (ended == started) and one with an offset are fine.
    ok = client.execute(
        RECORD_ONE,
        {
            "e": {
                **good,
                "startedAt": "2026-01-01T12:00:00+02:00",
                "endedAt": "2026-01-01T10:00:00Z",
            }
        },
    )["recordEpisode"]
    ep = client.execute(EPISODE, {"id": ok})["episode"]
    assert datetime.fromisoformat(ep["startedAt"]) == datetime.fromisoformat(ep["endedAt"])
    assert [e["id"] for e in client.execute(EPISODES, {"s": ["user:alice"]})["episodes"]] == [ok]


def test_a_batch_keeps_good_episodes_and_reports_each_bad_one(client: GraphMemoryClient) -> None:
    good = {"userId": "alice", "sessionId": "s1", "summary": SUMMARY, "outcome": "ESCALATED"}
    batch = [
        good,
        {**good, "summary": "ok"},
        {**good, "startedAt": "2026-01-02T00:00:00Z", "endedAt": "2026-01-01T00:00:00Z"},
        {**good, "outcome": "ABANDONED", "scope": TEAM},
    ]
    out = client.execute(RECORD_MANY, {"e": batch})["recordEpisodes"]
    assert [r["ok"] for r in out] == [True, False, False, True]
    assert [r["index"] for r in out] == [0, 1, 2, 3]
    assert [r["error"]["code"] for r in out if not r["ok"]] == ["VALIDATION", "VALIDATION"]
    listed = client.execute(EPISODES, {"s": ["user:alice", TEAM]})["episodes"]
    assert sorted((e["outcome"], e["scope"]) for e in listed) == [
        ("ABANDONED", TEAM),
        ("ESCALATED", "user:alice"),
    ]


def test_an_episode_never_ends_before_it_starts(client: GraphMemoryClient) -> None:
    payload = {
        "userId": "alice",
        "sessionId": "s1",
        "summary": SUMMARY,
        "outcome": "SUCCESS",
        "endedAt": "2025-06-01T10:00:00Z",  # only the end is known, and it is in the past
    }
    try:
        ep_id = client.execute(RECORD_ONE, {"e": payload})["recordEpisode"]
    except GraphMemoryClientError as err:  # refusing it is as good as storing it coherently
        assert err.code == "VALIDATION"
        return
    ep = client.execute(EPISODE, {"id": ep_id})["episode"]
    started, ended = (datetime.fromisoformat(ep[k]) for k in ("startedAt", "endedAt"))
    assert started <= ended
