"""Held-out style recall/context scenarios, driven only through GraphQL text.

Each test is a story an agent builder would live through: a user moves, a fact is retracted,
a contributor is forgotten, an identifier is looked up, a context window is packed.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

import graph_memory.embeddings
from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode, fact

NOW = datetime.now(UTC)
ALICE = ["user:alice"]
OPEN = {"minScore": 0.0, "minRelevance": 0.0, "relativeRelevance": 0.0, "minConfidence": 0.0}

_OPTS = dict(
    k="Int", overRecall="Int", weights="RecallWeightsInput", kinds="[MemoryKind!]",
    tiers="[TrustTier!]", asOf="DateTime", validAt="DateTime", minScore="Float",
    minConfidence="Float", minRelevance="Float", relativeRelevance="Float",
    includeCandidates="Boolean", includeExpired="Boolean", includeUnverified="Boolean",
    intent="String", role="String",
)  # fmt: skip
_CTX_OPTS = {n: t for n, t in _OPTS.items() if not n.startswith("include")}
_DECL = ", ".join(f"${n}: {t}" for n, t in _OPTS.items())
_ARGS = ", ".join(f"{n}: ${n}" for n in _OPTS)
RECALL = f"""
query($query: String!, $scopes: [String!]!, {_DECL}) {{
  recall(query: $query, scopes: $scopes, {_ARGS}) {{
    items {{
      id kind text
      score {{ vector keyword recency confidence tierBoost total }}
      provenance {{ episodes {{ episodeId userId sessionId }} contributors }}
      fact {{ object status tier confidence }}
      episode {{ userId summary }}
      procedure {{ intent role status steps }}
    }}
    weights {{ vector keyword recency confidence }}
    considered belowThreshold
  }}
}}"""
CONTEXT = f"""
query($query: String!, $budget: Int!, $scopes: [String!]!,
      {", ".join(f"${n}: {t}" for n, t in _CTX_OPTS.items())}) {{
  context(query: $query, tokenBudget: $budget, scopes: $scopes,
          {", ".join(f"{n}: ${n}" for n in _CTX_OPTS)}) {{
    text tokens tokenBudget
    included {{ id kind tokens }}
    dropped {{ id kind tokens reason }}
  }}
}}"""


def _iso(v: Any) -> Any:
    return v.isoformat() if isinstance(v, datetime) else v


def recall(c: GraphMemoryClient, q: str, scopes: list[str], **opts: Any) -> dict[str, Any]:
    variables = {"query": q, "scopes": scopes, **{k: _iso(v) for k, v in opts.items()}}
    result: dict[str, Any] = c.execute(RECALL, variables)["recall"]
    return result


def context(c: GraphMemoryClient, q: str, budget: int, scopes: list[str], **o: Any) -> Any:
    variables = {"query": q, "budget": budget, "scopes": scopes}
    variables.update({k: _iso(v) for k, v in o.items()})
    return c.execute(CONTEXT, variables)["context"]


def ids(res: dict[str, Any]) -> list[str]:
    return [i["id"] for i in res["items"]]


def objects(res: dict[str, Any]) -> list[str]:
    return [i["fact"]["object"] for i in res["items"] if i["kind"] == "FACT"]


def ep(c: GraphMemoryClient, user: str = "alice", **kw: Any) -> str:
    return c.record_episode(**episode(user, **kw))


def put(c: GraphMemoryClient, eps: list[str], s: str, p: str, o: str, text: str, **kw: Any) -> str:
    """Assert one fact (source user unless given) and return its id; fail loudly if refused."""
    kw.setdefault("cardinality", "ONE")  # registers new predicates; a no-op for known ones
    r = c.assert_facts([fact(s, p, o, eps, text=text, **kw)])["results"][0]
    assert r["ok"], r
    return str(r["factId"])


def _tokens(text: str) -> int:
    path = Path(graph_memory.embeddings.__file__).parent / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return len(tok.encode(text, add_special_tokens=False).ids)


# -- time: supersession, validity, belief ---------------------------------------------------

Q_LIVE = "where does Alice live"


def test_a_move_answers_now_in_the_past_and_as_believed_before(client: GraphMemoryClient) -> None:
    e = ep(client, summary="Alice said she moved from Paris to Berlin at the start of 2026.")
    y2019, y2026 = datetime(2019, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)
    paris = put(client, [e], "Alice", "lives_in", "Paris", "Alice lives in Paris", validFrom=y2019)
    before_move = datetime.now(UTC)
    time.sleep(0.05)
    berlin = put(
        client, [e], "Alice", "lives_in", "Berlin", "Alice lives in Berlin", validFrom=y2026
    )
    assert ids(recall(client, Q_LIVE, ALICE, kinds=["FACT"]))[:1] == [berlin]
    assert paris not in ids(recall(client, Q_LIVE, ALICE, **OPEN, k=50))
    past = recall(client, Q_LIVE, ALICE, kinds=["FACT"], validAt=datetime(2023, 6, 1, tzinfo=UTC))
    assert ids(past) == [paris]
    assert ids(recall(client, Q_LIVE, ALICE, kinds=["FACT"], asOf=before_move)) == [paris]
    facts_block = context(client, Q_LIVE, 500, ALICE)["text"].split("## Episodes")[0]
    assert "Berlin" in facts_block and "Paris" not in facts_block


def test_a_planned_move_is_served_only_for_moments_after_it(client: GraphMemoryClient) -> None:
    e = ep(client)
    y2025 = datetime(2025, 1, 1, tzinfo=UTC)
    berlin = put(
        client, [e], "Alice", "lives_in", "Berlin", "Alice lives in Berlin", validFrom=y2025
    )
    soon = NOW + timedelta(days=60)
    rome = put(client, [e], "Alice", "lives_in", "Rome", "Alice lives in Rome", validFrom=soon)
    assert objects(recall(client, Q_LIVE, ALICE, kinds=["FACT"])) == ["Berlin"]
    later = recall(client, Q_LIVE, ALICE, kinds=["FACT"], validAt=soon + timedelta(days=30))
    assert ids(later) == [rome] and berlin not in ids(later)


def test_a_long_residence_history_never_hides_the_current_city(client: GraphMemoryClient) -> None:
    e = ep(client)
    for i in range(45):
        when = datetime(1960 + i, 1, 1, tzinfo=UTC)
        put(client, [e], "Alice", "lives_in", f"Town{i}", f"Alice lives in the city of Town{i}",
            validFrom=when)  # fmt: skip
    now_home = "Alice's home is now Zurich"
    put(
        client,
        [e],
        "Alice",
        "lives_in",
        "Zurich",
        now_home,
        validFrom=datetime(2026, 1, 1, tzinfo=UTC),
    )
    assert objects(recall(client, Q_LIVE, ALICE, kinds=["FACT"], **OPEN))[:1] == ["Zurich"]


def test_retracted_memory_is_gone_now_but_answers_an_earlier_as_of(
    client: GraphMemoryClient,
) -> None:
    e = ep(client)
    text = "Alice is allergic to shellfish"
    fid = put(client, [e], "Alice", "allergic_to", "shellfish", text, cardinality="MANY")
    believed = datetime.now(UTC)
    time.sleep(0.05)
    client.retract_fact(fid, reason="mixed up with another customer")
    q = "what is Alice allergic to"
    flags = {"includeCandidates": True, "includeExpired": True, "includeUnverified": True}
    assert fid not in ids(recall(client, q, ALICE, **OPEN, **flags, k=50))
    assert "shellfish" not in context(client, q, 1000, ALICE, **OPEN)["text"]
    assert ids(recall(client, q, ALICE, kinds=["FACT"], asOf=believed)) == [fid]


def test_episodes_obey_belief_and_world_time(client: GraphMemoryClient) -> None:
    before = datetime.now(UTC)
    time.sleep(0.05)
    start = NOW - timedelta(days=3)
    summary = "Alice asked to migrate her invoices to the new billing portal."
    e = ep(client, summary=summary, startedAt=start, endedAt=start + timedelta(minutes=10))
    q, kinds = "invoice migration to the billing portal", ["EPISODE"]
    assert ids(recall(client, q, ALICE, kinds=kinds)) == [e]
    assert ids(recall(client, q, ALICE, kinds=kinds, asOf=before)) == []
    assert ids(recall(client, q, ALICE, kinds=kinds, validAt=start - timedelta(days=2))) == []


# -- isolation -------------------------------------------------------------------------------


def test_user_team_and_tenant_scopes_combine_but_never_leak(client: GraphMemoryClient) -> None:
    made: dict[str, str] = {}
    for scope, who, text in (
        ("user:alice", "alice", "Alice keeps her spare office key in the blue drawer"),
        ("user:bob", "bob", "Bob keeps his spare office key under the plant pot"),
        ("team:eng", "alice", "The eng team keeps the spare office key at reception"),
        ("tenant", "alice", "Spare office keys are issued by the facilities desk"),
    ):
        e = ep(client, who, scope=scope, summary=f"{who} talked about where office keys are kept.")
        made[scope] = put(client, [e], f"key {scope}", "kept_at", scope, text, scope=scope)
    q = "where is the spare office key kept"

    def facts_in(scopes: list[str]) -> set[str]:
        return set(ids(recall(client, q, scopes, kinds=["FACT"], k=50, **OPEN)))

    assert facts_in(["user:alice"]) == {made["user:alice"]}
    assert facts_in(["user:bob", "tenant"]) == {made["user:bob"], made["tenant"]}
    assert facts_in(["user:alice", "team:eng"]) == {made["user:alice"], made["team:eng"]}
    assert facts_in(["team:ops"]) == set()
    block = context(client, q, 2000, ["user:bob", "team:ops"], **OPEN)["text"]
    assert "Bob keeps" in block and "blue drawer" not in block and "reception" not in block


# -- keyword side: identifiers, stemming, hostile syntax ----------------------------------------


def test_identifiers_and_emails_are_found_exactly(client: GraphMemoryClient) -> None:
    e = ep(client)
    inv = {
        n: put(client, [e], f"invoice INV-2024-{n}", "status", st, f"Invoice INV-2024-{n} is {st}")
        for n, st in (("0041", "paid"), ("0042", "overdue"), ("0043", "disputed"))
    }
    mail = put(client, [e], "Alice", "email", "alice.smith@example.com",
               "Alice's billing email is alice.smith@example.com")  # fmt: skip
    put(client, [e], "Bob", "email", "bob.jones@example.org",
        "Bob's billing email is bob.jones@example.org")  # fmt: skip
    for q in ("INV-2024-0042", "what is the status of invoice INV-2024-0042?"):
        assert ids(recall(client, q, ALICE, kinds=["FACT"], k=1)) == [inv["0042"]], q
    top = recall(client, "alice.smith@example.com", ALICE, kinds=["FACT"])
    assert ids(top)[:1] == [mail] and top["items"][0]["score"]["keyword"] == 1.0


def test_stemmed_forms_match_by_keyword(client: GraphMemoryClient) -> None:
    e = ep(client)
    text = "Alice runs marathons every spring"
    fid = put(client, [e], "Alice", "hobby", "running", text, cardinality="MANY")
    res = recall(client, "running", ALICE, kinds=["FACT"], **OPEN)
    assert ids(res) == [fid] and res["items"][0]["score"]["keyword"] > 0


HOSTILE = [
    "C++ AND (compiler)", '"unbalanced quote', "*", "~", "compiler~2", "text:compiler",
    "a OR b NOT c", "\\", "[1 TO 5]", "{x}", "?", "/crash.*/", "&& || !", "-", "NOT",
    "ft_scope:*", "compiler^100", "🙂🙂", "compilador ñ ü ß 编译器", "x" * 5000, "\x00 compiler",
    "compiler " * 3000,
]  # fmt: skip


@pytest.mark.parametrize("q", HOSTILE)
def test_hostile_query_syntax_never_errors(client: GraphMemoryClient, q: str) -> None:
    e = ep(client)
    text = "The C++ compiler crashed while building the release"
    fid = put(client, [e], "build", "broken_by", "C++ compiler", text)
    res = recall(client, q, ALICE)
    assert isinstance(context(client, q, 200, ALICE)["text"], str)
    if q.startswith("C++"):
        assert ids(res) == [fid]


def test_a_long_hyphenated_token_is_not_an_internal_error(client: GraphMemoryClient) -> None:
    ep(client)
    assert recall(client, "-".join(f"w{i}" for i in range(1500)), ALICE)["items"] == []


# -- scoring -----------------------------------------------------------------------------------


def test_corroboration_breaks_a_tie_between_equal_matches(client: GraphMemoryClient) -> None:
    eps = [ep(client, session=f"s{i}") for i in range(3)]
    text = "Alice mentioned a language she speaks at home"
    kw = {"cardinality": "MANY", "validFrom": datetime(2026, 6, 1, tzinfo=UTC)}
    lone = put(client, eps[:1], "Alice", "speaks", "Greek", text, **kw)
    many = put(client, eps, "Alice", "speaks", "Portuguese", text, **kw)
    res = recall(client, "which language does Alice speak at home", ALICE, kinds=["FACT"])
    assert ids(res) == [many, lone]
    a, b = (i["score"] for i in res["items"])
    assert a["vector"] == pytest.approx(b["vector"], abs=1e-4) and a["confidence"] > b["confidence"]


def test_weights_min_confidence_k_and_thresholds(client: GraphMemoryClient) -> None:
    e = ep(client)
    kw = {"cardinality": "MANY"}
    strong = put(client, [e], "Alice", "likes", "sushi", "Alice likes sushi on Fridays", **kw)
    r = client.assert_facts(
        [{**fact("Alice", "likes", "ramen", [], text="Alice likes ramen for lunch"),
          "episodes": [{"episodeId": e, "weight": 0.1}]}]
    )["results"][0]  # fmt: skip
    assert r["ok"] and r["confidence"] == pytest.approx(0.1)
    weak, q = r["factId"], "what food does Alice like"
    default = recall(client, q, ALICE, kinds=["FACT"])
    assert strong in ids(default) and weak not in ids(default) and default["belowThreshold"] >= 1
    assert weak in ids(recall(client, q, ALICE, kinds=["FACT"], minConfidence=0.0, minScore=0.0))
    only = {"vector": 0, "keyword": 0, "recency": 0, "confidence": 2}
    by_conf = recall(client, q, ALICE, kinds=["FACT"], **OPEN, weights=only)
    assert ids(by_conf) == [strong, weak]
    assert by_conf["weights"] == {"vector": 0.0, "keyword": 0.0, "recency": 0.0, "confidence": 1.0}
    assert len(recall(client, q, ALICE, k=1, **OPEN)["items"]) == 1
    assert recall(client, q, ALICE, minScore=1.5)["items"] == []
    zero = {"vector": 0, "keyword": 0, "recency": 0, "confidence": 0}
    for bad in ({"k": 101}, {"overRecall": 0}, {"k": -1}, {"weights": zero},
                {"relativeRelevance": 2.0}, {"validAt": "2026-01-01T00:00:00"}):  # fmt: skip
        with pytest.raises(GraphMemoryClientError) as err:
            recall(client, q, ALICE, **bad)
        assert err.value.code == "VALIDATION", bad
    for bad_scopes in ([], ["user:"], ["everyone"]):
        with pytest.raises(GraphMemoryClientError) as err:
            recall(client, q, bad_scopes)
        assert err.value.code == "VALIDATION", bad_scopes


def test_score_parts_stay_in_range_and_add_up(client: GraphMemoryClient) -> None:
    e = ep(client, summary="Alice planned a hiking trip to the Alps with her brother in July.")
    soon, kw = NOW + timedelta(days=10), {"cardinality": "MANY"}
    put(client, [e], "Alice", "plans", "Alps hike", "Alice plans a hike in the Alps",
        validFrom=soon, **kw)  # fmt: skip
    put(client, [e], "Alice", "likes", "hiking", "Alice likes hiking in the mountains", **kw)
    res = recall(client, "Alice hiking trip in the Alps", ALICE, validAt=soon + timedelta(days=10))
    assert len(res["items"]) >= 2
    w = res["weights"]
    for item in res["items"]:
        s = item["score"]
        assert all(0.0 <= s[p] <= 1.0 for p in w), s
        assert s["total"] == pytest.approx(sum(w[p] * s[p] for p in w) + s["tierBoost"], abs=1e-5)
        assert item["kind"] == "FACT" or s["tierBoost"] == 0


# -- forgetting --------------------------------------------------------------------------------


def test_a_forgotten_contributor_never_surfaces_again(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    team = ["team:eng"]
    ea = ep(
        client,
        "alice",
        scope=team[0],
        summary="Alice said the staging database password rotates every Monday morning.",
    )
    eb = ep(client, "bob", scope=team[0], summary="Bob confirmed staging deploys need a ticket.")
    only_alice = put(
        client,
        [ea],
        "staging db",
        "rotates_password",
        "Mondays",
        "The staging database password rotates every Monday",
        cardinality="ONE",
    )
    shared = put(client, [ea, eb], "staging deploy", "requires", "a ticket",
                 "Staging deploys require a change ticket", cardinality="ONE")  # fmt: skip
    before = datetime.now(UTC)
    time.sleep(0.05)
    admin.forget_contributor("alice")
    for q in ("when does the staging database password rotate", "staging deploy ticket"):
        for at in (None, before):
            res = recall(client, q, team, k=50, asOf=at, **OPEN)
            assert only_alice not in ids(res) and ea not in ids(res)
            for item in res["items"]:
                assert "alice" not in item["provenance"]["contributors"]
                assert ea not in {p["episodeId"] for p in item["provenance"]["episodes"]}
        block = context(client, q, 4000, team, **OPEN)["text"]
        assert "Monday" not in block and "Alice" not in block
    kept = recall(client, "staging deploy ticket", team, kinds=["FACT"])
    assert ids(kept)[:1] == [shared]
    assert kept["items"][0]["provenance"]["contributors"] == ["bob"]


# -- context packing ---------------------------------------------------------------------------

Q_TRIP = "Alice's flights, seats and meals"


@pytest.fixture
def busy(client: GraphMemoryClient) -> list[str]:
    eps = [
        ep(client, summary=f"Alice booked flight LX-{n} to Zurich, asked for an aisle seat and "
           "a vegetarian meal, and moved her return date because of a workshop. 🙂✈️")
        for n in range(4)
    ]  # fmt: skip
    made = list(eps)
    for i, (o, t) in enumerate(
        [
            ("aisle seats", "Alice prefers aisle seats on flights — 通路側の席が好き"),
            ("vegetarian meals", "Alice orders vegetarian meals on every flight ✈️🥗"),
            ("Zurich workshop", "Alice travels to a workshop in Zurich in the spring"),
        ]
    ):
        made.append(put(client, [eps[i]], "Alice", "prefers", o, t, cardinality="MANY"))
    return made


@pytest.mark.parametrize("budget", [1, 3, 17, 33, 64, 128, 200_000])
def test_context_budget_is_hard_and_drops_are_accounted(
    client: GraphMemoryClient, busy: list[str], budget: int
) -> None:
    res = context(client, Q_TRIP, budget, ALICE)
    assert res["tokenBudget"] == budget
    assert _tokens(res["text"]) <= res["tokens"] <= budget
    inc = {i["id"] for i in res["included"]}
    drop = {d["id"] for d in res["dropped"]}
    assert not inc & drop and inc | drop <= set(busy)
    assert all(d["reason"] == "over_budget" and d["tokens"] > 0 for d in res["dropped"])
    assert sum(i["tokens"] for i in res["included"]) <= res["tokens"]
    if budget == 200_000:
        # The workshop fact shares only Alice's name with a question about flights, seats and
        # meals: it is not relevant, so it is neither packed nor dropped.
        assert drop == set() and inc == set(busy[:-1])
    if budget == 1:
        assert res["text"] == "" and inc == set() and drop


@pytest.mark.parametrize("budget", [0, -5, 10**9])
def test_context_budget_out_of_range_is_validation(client: GraphMemoryClient, budget: int) -> None:
    with pytest.raises(GraphMemoryClientError) as err:
        context(client, "anything", budget, ALICE)
    assert err.value.code == "VALIDATION"


def test_context_never_serves_candidates_or_unverified(client: GraphMemoryClient) -> None:
    e = ep(client)
    put(client, [e], "Alice", "likes", "opera", "Alice likes going to the opera",
        source="conversation", cardinality="MANY")  # fmt: skip
    acme = put(client, [e], "Alice", "works_at", "Acme", "Alice works at Acme")
    put(client, [e], "Alice", "commutes_to", "Acme HQ", "Alice commutes to the Acme HQ by tram",
        cardinality="ONE", dependsOn=[acme])  # fmt: skip
    put(client, [e], "Alice", "works_at", "Globex", "Alice works at Globex")
    q = "Alice's job, commute and evenings at the opera"
    block = context(client, q, 2000, ALICE, **OPEN)["text"]
    assert "Globex" in block and "opera" not in block and "tram" not in block


def test_dropped_context_items_are_not_counted_as_retrieved(
    client: GraphMemoryClient, busy: list[str]
) -> None:
    res = context(client, Q_TRIP, 60, ALICE)
    assert res["included"] and res["dropped"]
    q = "query($id: ID!) { fact(id: $id) { retrievalCount } }"

    def count(fid: str) -> int:
        return int(client.execute(q, {"id": fid})["fact"]["retrievalCount"])

    served = [i["id"] for i in res["included"] if i["kind"] == "FACT"]
    deadline = time.monotonic() + 10
    while not all(count(f) for f in served) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert all(count(f) == 1 for f in served)
    assert all(count(d["id"]) == 0 for d in res["dropped"] if d["kind"] == "FACT")


# -- procedures ------------------------------------------------------------------------------

STEPS = ["Verify the customer's identity", "Issue the refund to the original payment method"]
TEAM = ["team:support"]
PROC = {"kinds": ["PROCEDURE"]}


def test_procedures_need_a_matching_intent_status_and_scope(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    pid = admin.upsert_procedure("issue refund", "support agent", STEPS, TEAM[0])["procedure"]["id"]
    cand = client.upsert_procedure("escalate outage", "support_agent", ["Page on-call"], TEAM[0])
    got = recall(client, "the customer wants their money back, issue a refund", TEAM, **PROC)
    assert ids(got) == [pid] and got["items"][0]["procedure"]["steps"] == STEPS
    assert ids(recall(client, "issue a refund", TEAM, role="manager", **PROC)) == []
    assert ids(recall(client, "issue a refund", ["team:sales"], **PROC)) == []
    q, outage = "page on-call for the outage", {"intent": "escalate outage"}
    assert ids(recall(client, q, TEAM, **outage, **PROC)) == []
    with_cand = recall(client, q, TEAM, **outage, includeCandidates=True, **PROC)
    assert ids(with_cand) == [cand["procedure"]["id"]]
    for _ in range(4):  # failures outnumber successes by 3+: demoted, never served again
        client.record_procedure_outcome(pid, False, ep(client, scope=TEAM[0]))
    every = {"intent": "issue_refund", "includeCandidates": True, **OPEN, **PROC}
    assert ids(recall(client, "issue a refund", TEAM, **every)) == []
    block = context(client, "issue a refund", 2000, TEAM, intent="issue_refund")["text"]
    assert "original payment method" not in block


def test_a_named_intent_serves_its_procedure_whatever_the_wording(
    admin: GraphMemoryClient,
) -> None:
    pid = admin.upsert_procedure("issue refund", "support agent", STEPS, TEAM[0])["procedure"]["id"]
    named = recall(admin, "what's for lunch", TEAM, intent="issue refund")
    assert ids(named) == [pid]
