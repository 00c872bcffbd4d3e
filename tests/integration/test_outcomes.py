"""reportOutcome: what retrieved memories led to is recorded per episode and memory, kept
apart from confidence, and recall's salience demotes a memory reported harmful and one
nobody retrieved for 30 days; unknown memories are reported per item."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.settings import Settings
from tests.integration.conftest import fact
from tests.integration.recall_helpers import SCOPES, new_ep, one
from tests.integration.test_session_tokens import mint

M_OUTCOME = (
    "mutation($ids: [ID!]!, $o: MemoryOutcome!, $ep: ID!) {"
    " reportOutcome(memoryIds: $ids, outcome: $o, episodeId: $ep) {"
    " memoryId recorded kind helpful harmful error } }"
)
Q_RECALL = (
    "query($q: String!, $s: [String!]!) { recall(query: $q, scopes: $s, k: 10) {"
    " items { id kind score { total salience confidence } } } }"
)


Q_RECALL_AT = (
    "query($q: String!, $s: [String!]!, $a: DateTime) {"
    " recall(query: $q, scopes: $s, k: 10, asOf: $a) { items { id score { salience } } }"
    " context(query: $q, scopes: $s, tokenBudget: 500, asOf: $a) { text included { id } } }"
)


def _report(client: GraphMemoryClient, ids: list[str], outcome: str, ep: str) -> Any:
    return client.execute(M_OUTCOME, {"ids": ids, "o": outcome, "ep": ep})["reportOutcome"]


def _recall(client: GraphMemoryClient, query: str) -> dict[str, dict[str, Any]]:
    items = client.execute(Q_RECALL, {"q": query, "s": SCOPES})["recall"]["items"]
    return {i["id"]: i for i in items}


def _two_alike(client: GraphMemoryClient) -> tuple[str, str]:
    ep = new_ep(client)
    a = one(
        client,
        fact("Alice", "likes", "green tea", [ep], cardinality="MANY", text="Alice likes green tea"),
    )
    b = one(
        client,
        fact("Alice", "likes", "black tea", [ep], cardinality="MANY", text="Alice likes black tea"),
    )
    return a, b


def test_a_harmful_memory_is_demoted_in_recall_and_confidence_is_left_alone(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    a, b = _two_alike(client)
    before = _recall(client, "what tea does Alice like")
    assert before[a]["score"]["salience"] == before[b]["score"]["salience"] == 1.0
    used = new_ep(client)
    out = _report(client, [a, "fact_nope"], "HARMFUL", used)
    assert out[0] == {
        "memoryId": a,
        "recorded": True,
        "kind": "fact",
        "helpful": 0,
        "harmful": 1,
        "error": None,
    }
    assert out[1]["recorded"] is False and "fact_nope" in out[1]["error"]
    # Reported again from the same episode: one verdict, replaced, not counted twice.
    again = _report(client, [a], "HARMFUL", used)
    assert again[0]["harmful"] == 1
    after = _recall(client, "what tea does Alice like")
    assert after[a]["score"]["salience"] == 0.5
    assert after[a]["score"]["confidence"] == before[a]["score"]["confidence"]
    assert after[a]["score"]["total"] < after[b]["score"]["total"]
    assert list(after).index(b) < list(after).index(a)
    # A helpful report from another episode cancels it out.
    _report(client, [a], "HELPFUL", new_ep(client))
    assert _recall(client, "what tea does Alice like")[a]["score"]["salience"] == 1.0
    events = analyst.audit_log(action="report_outcome", first=10)["edges"]
    assert {e["node"]["targetId"] for e in events} == {a}


def test_a_later_report_does_not_change_what_a_read_as_of_before_it_answers(
    client: GraphMemoryClient,
) -> None:
    """Salience as of a past moment is judged on the outcomes reported by then: recall and
    context as of T answer after two harmful reports as they answered at T."""
    a, b = _two_alike(client)
    _report(client, [b], "HARMFUL", new_ep(client))
    time.sleep(0.05)
    then = datetime.now(UTC).isoformat()
    time.sleep(0.05)
    ask = {"q": "what tea does Alice like", "s": SCOPES, "a": then}
    before = client.execute(Q_RECALL_AT, ask)
    for _ in range(2):
        _report(client, [a], "HARMFUL", new_ep(client, user=f"u-{uuid.uuid4().hex[:6]}"))
    assert client.execute(Q_RECALL_AT, ask) == before
    scored = {i["id"]: i["score"]["salience"] for i in before["recall"]["items"]}
    assert scored == {a: 1.0, b: 0.5}
    assert _recall(client, "what tea does Alice like")[a]["score"]["salience"] == 0.25


def test_a_memory_unretrieved_for_30_days_ranks_lower(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    a, b = _two_alike(client)

    async def age(fact_id: str) -> None:  # no API makes a month pass: moved over Bolt
        db = Database.connect(settings.neo4j())
        try:
            await db.run_raw(
                "MATCH (f:Fact {id: $id}) WHERE f.tenant = $tenant "
                "SET f.last_retrieved_at = datetime() - duration('P40D')",
                {"id": fact_id, "tenant": tenant},
            )
        finally:
            await db.close()

    asyncio.run(age(a))
    got = _recall(client, "what tea does Alice like")
    assert got[a]["score"]["salience"] == 0.8 and got[b]["score"]["salience"] == 1.0


def test_bad_reports_are_refused_with_clear_errors(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    a, _ = _two_alike(client)
    with pytest.raises(GraphMemoryClientError) as err:
        _report(client, [a], "HARMFUL", "ep_nope")
    assert err.value.code == "NOT_FOUND"
    with pytest.raises(GraphMemoryClientError) as err:
        _report(client, [], "HARMFUL", new_ep(client))
    assert err.value.code == "VALIDATION"
    with pytest.raises(GraphMemoryClientError) as err:
        _report(analyst, [a], "HELPFUL", new_ep(client))
    assert err.value.code == "FORBIDDEN"
    with pytest.raises(GraphMemoryClientError) as err:
        _report(client, [a] * 101, "HARMFUL", new_ep(client))
    assert err.value.code == "VALIDATION"  # the bound counts what was sent
    with pytest.raises(GraphMemoryClientError) as err:
        _report(client, [" "], "HARMFUL", "ep_nope")
    assert err.value.code == "NOT_FOUND"


def test_a_blank_or_unknown_id_is_reported_in_its_place_and_its_siblings_are_recorded(
    client: GraphMemoryClient,
) -> None:
    a, b = _two_alike(client)
    got = _report(client, [a, " ", "fact_nope", a, b], "HARMFUL", new_ep(client))
    assert [r["memoryId"] for r in got] == [a, "", "fact_nope", a, b]
    assert [r["recorded"] for r in got] == [True, False, False, True, True]
    assert got[1]["error"] == "a memory id must not be blank"
    assert got[2]["error"] == "no memory fact_nope"
    assert got[0]["harmful"] == 1 and got[4]["harmful"] == 1


def test_a_blank_or_unknown_id_is_reported_with_a_typed_error_in_its_place(
    client: GraphMemoryClient,
) -> None:
    a, _ = _two_alike(client)
    call = (
        "mutation($ids: [ID!]!, $o: MemoryOutcome!, $ep: ID!) {"
        " reportOutcome(memoryIds: $ids, outcome: $o, episodeId: $ep) {"
        " recorded error itemError { code message field } } }"
    )
    got = client.execute(call, {"ids": [a, " ", "fact_nope"], "o": "HELPFUL", "ep": new_ep(client)})
    assert [(r["recorded"], r["itemError"]) for r in got["reportOutcome"]] == [
        (True, None),
        (False, {"code": "VALIDATION", "message": "a memory id must not be blank",
                 "field": "memoryIds"}),
        (False, {"code": "NOT_FOUND", "message": "no memory fact_nope", "field": "memoryIds"}),
    ]  # fmt: skip
    # The text field stays as it was, the typed error's message.
    assert [r["error"] for r in got["reportOutcome"]] == [
        None,
        "a memory id must not be blank",
        "no memory fact_nope",
    ]


M_COUNTED = (
    "mutation($ids: [ID!]!, $o: MemoryOutcome!, $ep: ID!) {"
    " reportOutcome(memoryIds: $ids, outcome: $o, episodeId: $ep) { counted helpful harmful } }"
)


def _salience(client: GraphMemoryClient, query: str, scopes: list[str], fact_id: str) -> float:
    items = client.execute(Q_RECALL, {"q": query, "s": scopes})["recall"]["items"]
    found = [i["score"]["salience"] for i in items if i["id"] == fact_id]
    assert found, items
    return float(found[0])


def test_reports_count_once_per_contributor_however_many_episodes(
    client: GraphMemoryClient,
) -> None:
    a, _ = _two_alike(client)
    for _ in range(4):
        out = client.execute(M_COUNTED, {"ids": [a], "o": "HARMFUL", "ep": new_ep(client)})
        assert out["reportOutcome"] == [{"counted": True, "helpful": 0, "harmful": 1}]
    assert _salience(client, "what tea does Alice like", SCOPES, a) == 0.5
    bobs = client.execute(M_COUNTED, {"ids": [a], "o": "HARMFUL", "ep": new_ep(client, "bob")})
    assert bobs["reportOutcome"][0]["harmful"] == 2
    assert _salience(client, "what tea does Alice like", SCOPES, a) == 0.25
    # alice's latest verdict is hers: changing her mind turns her one harmful into helpful.
    mind = client.execute(M_COUNTED, {"ids": [a], "o": "HELPFUL", "ep": new_ep(client)})
    assert mind["reportOutcome"][0] == {"counted": True, "helpful": 1, "harmful": 1}
    assert _salience(client, "what tea does Alice like", SCOPES, a) == 1.0


def test_a_report_cannot_demote_memory_above_the_reporters_tier(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    ep = new_ep(admin)
    policy = one(
        admin,
        fact(
            "refund",
            "policy_limit",
            "one times the order value",
            [ep],
            scope="tenant",
            source="system",
            cardinality="ONE",
            text="The refund policy limit is one times the order value",
        ),
    )
    assert admin.fact(policy)["tier"] == "SYSTEM"  # type: ignore[index]
    query, scopes = "what is the refund policy limit", ["user:bob", "tenant"]
    assert _salience(client, query, scopes, policy) == 1.0
    token = GraphMemoryClient(server, mint(client)["token"])
    try:
        for reporter, user in ((token, "alice"), (client, "bob"), (client, "carol")):
            ep_id = new_ep(reporter, user)
            out = reporter.execute(M_COUNTED, {"ids": [policy], "o": "HARMFUL", "ep": ep_id})
            assert out["reportOutcome"] == [{"counted": False, "helpful": 0, "harmful": 0}]
    finally:
        token.close()
    assert _salience(client, query, scopes, policy) == 1.0
    # Still recorded and audited, for someone who may decide to look.
    events = analyst.audit_log(action="report_outcome", first=10)["edges"]
    assert len([e for e in events if e["node"]["targetId"] == policy]) == 3
    # An admin writes at system tier, so its verdict counts.
    out = admin.execute(M_COUNTED, {"ids": [policy], "o": "HARMFUL", "ep": new_ep(admin)})
    assert out["reportOutcome"] == [{"counted": True, "helpful": 0, "harmful": 1}]
    assert _salience(client, query, scopes, policy) == 0.5


def test_a_tokens_report_names_a_memory_outside_its_scopes_in_its_place(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    # Alice's token may report on her memory, not on bob's: bob's fact is refused FORBIDDEN
    # in its own place (as reading it is), an unknown id is NOT_FOUND, and hers is recorded.
    mine, _ = _two_alike(client)
    bobs = one(admin, fact("Bob", "likes", "coffee", [new_ep(admin, "bob")], scope="user:bob"))
    token = GraphMemoryClient(server, mint(client)["token"])
    call = (
        "mutation($ids: [ID!]!, $o: MemoryOutcome!, $ep: ID!) {"
        " reportOutcome(memoryIds: $ids, outcome: $o, episodeId: $ep) {"
        " memoryId recorded harmful itemError { code field } } }"
    )
    try:
        ids = [bobs, "fact_nope", mine]
        got = token.execute(call, {"ids": ids, "o": "HARMFUL", "ep": new_ep(token)})
    finally:
        token.close()
    assert got["reportOutcome"] == [
        {"memoryId": bobs, "recorded": False, "harmful": 0,
         "itemError": {"code": "FORBIDDEN", "field": "memoryIds"}},
        {"memoryId": "fact_nope", "recorded": False, "harmful": 0,
         "itemError": {"code": "NOT_FOUND", "field": "memoryIds"}},
        {"memoryId": mine, "recorded": True, "harmful": 1, "itemError": None},
    ]  # fmt: skip
    reported = analyst.audit_log(action="report_outcome", first=10)["edges"]
    assert {e["node"]["targetId"] for e in reported} == {mine}
    denied = analyst.audit_log(action="access_denied", target="reportOutcome")["edges"]
    assert len(denied) == 1 and bobs in denied[0]["node"]["reason"], denied
