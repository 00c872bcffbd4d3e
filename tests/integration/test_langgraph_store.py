"""`GraphMemoryStore` as a LangGraph `BaseStore` against the real service: the contract its
documentation states (get/put/delete/search/list_namespaces, sync and async, batch), and a real
compiled LangGraph graph whose nodes write and search through the store (no LLM)."""

from __future__ import annotations

import asyncio
import operator
import uuid
from collections.abc import Callable
from typing import Annotated, Any

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict

from graph_memory.client import GraphMemoryClient
from graph_memory.integrations.langgraph import (
    WRITE_SECONDS_PER_ITEM,
    GraphMemoryStore,
    StoreWriteError,
)
from graph_memory.integrations.store_codec import PREDICATE

KeyFactory = Callable[..., str]


@pytest.fixture
def key(make_key: KeyFactory, tenant: str) -> str:
    return make_key(tenant, "agent")


@pytest.fixture
def store(server: str, key: str) -> GraphMemoryStore:
    return GraphMemoryStore(server, key)


PREFS = ("user", "alice", "prefs")


def test_put_get_update_delete(store: GraphMemoryStore) -> None:
    assert store.get(PREFS, "food") is None
    store.put(PREFS, "food", {"text": "Alice is vegetarian", "since": 2019})
    first = store.get(PREFS, "food")
    assert first is not None
    assert (first.namespace, first.key) == (PREFS, "food")
    assert first.value == {"text": "Alice is vegetarian", "since": 2019}
    # A change of case only is a change of value (the memory itself matches case-insensitively).
    store.put(PREFS, "food", {"text": "Alice is Vegetarian", "since": 2019})
    second = store.get(PREFS, "food")
    assert second is not None and second.value["text"] == "Alice is Vegetarian"
    assert second.created_at == first.created_at and second.updated_at > first.updated_at
    # Keys are exact: "Food" is another item.
    assert store.get(PREFS, "Food") is None
    store.delete(PREFS, "food")
    assert store.get(PREFS, "food") is None
    # Retracting the current version alone would reinstate the one it superseded.
    assert store.search(PREFS) == [] and store.search(PREFS, query="vegetarian") == []
    store.delete(PREFS, "food")  # deleting what is not there is fine


def test_an_identical_put_corroborates_and_keeps_updated_at(
    store: GraphMemoryStore, client: GraphMemoryClient
) -> None:
    # Unlike InMemoryStore, which stamps every put: the same value again is more evidence for
    # the version there is, not a new version, so the item's times stay (README, LangGraph).
    store.put(PREFS, "tea", {"text": "Alice drinks green tea"})
    first = store.get(PREFS, "tea")
    store.put(PREFS, "tea", {"text": "Alice drinks green tea"})
    again = store.get(PREFS, "tea")
    assert first is not None and again is not None
    assert (again.created_at, again.updated_at) == (first.created_at, first.updated_at)
    versions = client.history("store:prefs/tea", PREDICATE, ["user:alice"])["versions"]
    assert [v["status"] for v in versions] == ["ACTIVE"]
    assert len(versions[0]["provenance"]) == 2  # each put's episode cites it


def test_values_are_versioned_facts_in_the_users_scope(
    store: GraphMemoryStore, client: GraphMemoryClient
) -> None:
    store.put(PREFS, "city", {"text": "Alice lives in Paris"})
    store.put(PREFS, "city", {"text": "Alice moved to Berlin"})
    item = store.get(PREFS, "city")
    assert item is not None
    subject = "store:prefs/city"
    hist = client.history(subject, PREDICATE, ["user:alice"])
    assert [v["status"] for v in hist["versions"]] == ["SUPERSEDED", "ACTIVE"]
    assert [v["text"] for v in hist["versions"]] == [
        "Alice lives in Paris",
        "Alice moved to Berlin",
    ]
    assert {p["userId"] for v in hist["versions"] for p in v["provenance"]} == {"alice"}


def test_search_by_query_filter_and_listing(store: GraphMemoryStore) -> None:
    store.put(PREFS, "food", {"text": "Alice is vegetarian and loves Thai curry", "kind": "diet"})
    store.put(PREFS, "music", {"text": "Alice listens to jazz while she works", "kind": "taste"})
    store.put(("user", "alice", "trips"), "2026", {"text": "Alice flies to Lisbon in June"})
    store.put(("user", "bob", "prefs"), "food", {"text": "Bob is vegetarian too"})

    hits = store.search(("user", "alice"), query="what food does alice eat? vegetarian curry")
    assert hits and hits[0].key == "food" and hits[0].namespace == PREFS
    assert hits[0].score is not None and all(h.namespace[:2] == ("user", "alice") for h in hits)

    listed = store.search(("user", "alice", "prefs"), limit=10)
    assert {h.key for h in listed} == {"food", "music"} and all(h.score is None for h in listed)
    assert [h.key for h in store.search(PREFS, filter={"kind": "taste"})] == ["music"]
    assert [h.key for h in store.search(PREFS, filter={"kind": {"$ne": "taste"}})] == ["food"]
    assert len(store.search(("user", "alice"), limit=1, offset=1)) == 1

    assert store.list_namespaces(prefix=("user", "alice")) == [
        ("user", "alice", "prefs"),
        ("user", "alice", "trips"),
    ]
    assert store.list_namespaces(prefix=("user", "alice"), max_depth=2) == [("user", "alice")]
    assert store.list_namespaces(prefix=("user", "alice"), suffix=("trips",)) == [
        ("user", "alice", "trips")
    ]


def test_search_filters_match_as_langgraphs_in_memory_store(store: GraphMemoryStore) -> None:
    docs = ("user", "alice", "docs")
    values: dict[str, dict[str, Any]] = {
        "d1": {"meta": {"lang": "en", "author": "bob"}, "text": "hello there"},
        "d2": {"a.b": 1, "text": "a dotted key"},
        "d3": {"meta": {"lang": "fr"}, "a": {"b": 1}, "text": "bonjour"},
    }
    memory = InMemoryStore()
    for k, v in values.items():
        store.put(docs, k, v)
        memory.put(docs, k, v)
    for flt in (
        {"meta": {"lang": "en"}},  # a subset of the item's meta
        {"meta": {"lang": "en", "year": 1}},
        {"a.b": 1},  # the top-level key "a.b", not a path
        {"meta": {"lang": {"$ne": "en"}}},
    ):
        want = sorted(i.key for i in memory.search(docs, filter=flt))
        assert sorted(i.key for i in store.search(docs, filter=flt)) == want, flt
    assert [i.key for i in store.search(docs, filter={"meta": {"lang": "en"}})] == ["d1"]


def test_recall_floors_apply_when_asked(server: str, key: str) -> None:
    ranked = GraphMemoryStore(server, key)
    ranked.put(PREFS, "pet", {"text": "Alice adopted a grey cat called Miso"})
    assert ranked.search(("user", "alice"), query="which pet does the user own?")
    precise = GraphMemoryStore(server, key, recall_options={"min_score": 0.9})
    assert precise.search(("user", "alice"), query="which pet does the user own?") == []


def test_namespaces_must_name_a_scope(store: GraphMemoryStore) -> None:
    with pytest.raises(InvalidNamespaceError, match="names no graph_memory scope"):
        store.put(("memories", "alice"), "k", {"text": "a value with enough words"})
    with pytest.raises(ValueError, match="prefix naming a scope"):
        store.list_namespaces()


def test_a_refused_item_is_reported_and_its_siblings_land(store: GraphMemoryStore) -> None:
    ok = PutOp(PREFS, "tea", {"text": "Alice drinks green tea every morning"})
    big = PutOp(PREFS, "huge", {"text": "x" * 5000})
    with pytest.raises(StoreWriteError) as err:
        store.batch([ok, big])
    assert err.value.code == "VALIDATION"
    assert err.value.errors[0]["extensions"]["key"] == "huge"
    assert store.get(PREFS, "tea") is not None


def test_another_tenant_sees_nothing(
    store: GraphMemoryStore, server: str, make_key: KeyFactory
) -> None:
    store.put(PREFS, "food", {"text": "Alice is vegetarian"})
    other = GraphMemoryStore(server, make_key(f"t-{uuid.uuid4().hex[:10]}", "agent"))
    assert other.get(PREFS, "food") is None
    assert other.search(("user", "alice"), query="vegetarian") == []


async def test_async_forms_and_batch(store: GraphMemoryStore) -> None:
    await store.aput(("team", "support"), "runbook", {"text": "Escalate refunds above 500 EUR"})
    got = await store.aget(("team", "support"), "runbook")
    assert got is not None and got.value["text"].startswith("Escalate")
    res = await store.abatch(
        [
            GetOp(("team", "support"), "runbook"),
            SearchOp(("team", "support"), query="refund escalation"),
            PutOp(("tenant",), "faq", {"text": "Support hours are 9 to 17 CET on weekdays"}),
            GetOp(("tenant",), "faq"),
        ]
    )
    assert res[0] is not None and res[1] and res[1][0].key == "runbook"  # type: ignore[index,union-attr]
    assert res[2] is None and res[3] is not None
    assert await store.alist_namespaces(prefix=("team", "support")) == [("team", "support")]
    await store.adelete(("team", "support"), "runbook")
    assert await store.aget(("team", "support"), "runbook") is None
    assert await store.asearch(("team", "support"), query="refund escalation") == []


class State(TypedDict):
    user: str
    said: Annotated[list[str], operator.add]
    recalled: list[str]


def _graph(store: GraphMemoryStore) -> Any:
    """A memory agent without an LLM: remember what the user said, then recall for a question."""

    def remember(state: State, runtime: Runtime[None]) -> dict[str, Any]:
        assert runtime.store is not None
        for i, text in enumerate(state["said"]):
            runtime.store.put(("user", state["user"], "memories"), f"m{i}", {"text": text})
        return {}

    def recall(state: State, runtime: Runtime[None]) -> dict[str, Any]:
        assert runtime.store is not None
        hits = runtime.store.search(("user", state["user"]), query="which pet does the user own?")
        return {"recalled": [h.value["text"] for h in hits]}

    g = StateGraph(State)
    g.add_node("remember", remember)
    g.add_node("recall", recall)
    g.add_edge(START, "remember")
    g.add_edge("remember", "recall")
    g.add_edge("recall", END)
    return g.compile(store=store)


def test_a_langgraph_graph_remembers_and_recalls_through_the_store(
    store: GraphMemoryStore,
) -> None:
    said = ["Carol adopted a grey cat called Miso", "Carol works night shifts at the hospital"]
    out = _graph(store).invoke({"user": "carol", "said": said, "recalled": []})
    assert out["recalled"][0] == "Carol adopted a grey cat called Miso"
    # A second run (a later conversation) sees what the first one stored.
    again = _graph(store).invoke({"user": "carol", "said": [], "recalled": []})
    assert again["recalled"][0] == "Carol adopted a grey cat called Miso"


async def test_the_graph_runs_async_through_the_store(store: GraphMemoryStore) -> None:
    said = ["Dan keeps two parrots named Kiwi and Mango"]
    out = await _graph(store).ainvoke({"user": "dan", "said": said, "recalled": []})
    assert out["recalled"] == ["Dan keeps two parrots named Kiwi and Mango"]


async def test_the_sync_api_works_inside_a_running_event_loop(store: GraphMemoryStore) -> None:
    # A sync call from async code (a sync tool called by an async agent) must not deadlock.
    store.put(PREFS, "lang", {"text": "Alice prefers answers in German"})
    got = store.get(PREFS, "lang")
    assert got is not None and got.value["text"].endswith("German")


async def test_concurrent_puts_to_one_key_leave_one_value_and_delete_removes_it(
    store: GraphMemoryStore,
) -> None:
    # Each put's version is valid from its own episode's start, so racing writers land in
    # another order than they began: get, search and delete must still agree on one value.
    ns = ("user", "racer", "t0")
    values = [{"text": f"value number {i} of the race"} for i in range(6)]
    await asyncio.gather(*[store.aput(ns, "k", v) for v in values])
    got = await store.aget(ns, "k")
    listed = await store.asearch(ns)
    ranked = await store.asearch(ns, query="value number of the race")
    assert got is not None and got.value in values
    assert [h.value for h in listed] == [got.value]
    assert [h.value for h in ranked] == [got.value]
    # A put that starts after the race has returned wins, as a store's last write does.
    await store.aput(ns, "k", {"text": "the value written after the race"})
    got = await store.aget(ns, "k")
    assert got is not None and got.value == {"text": "the value written after the race"}
    assert [h.value for h in await store.asearch(ns)] == [got.value]
    await store.adelete(ns, "k")
    assert await store.aget(ns, "k") is None
    assert await store.asearch(ns) == []
    assert await store.asearch(ns, query="value number of the race") == []


def test_a_store_item_fact_that_is_no_json_object_does_not_hide_the_others(
    store: GraphMemoryStore, client: GraphMemoryClient
) -> None:
    # Anyone who may write the scope can assert a `store.item` fact by other means.
    store.put(PREFS, "food", {"text": "Alice is vegetarian and loves Thai curry"})
    episode = {
        "userId": "alice",
        "sessionId": "s-odd",
        "summary": "Alice shared a note.",
        "outcome": "SUCCESS",
    }
    odd = [
        {"subject": "store:prefs/odd", "predicate": PREDICATE, "object": "[not json"},
        {"subject": "store:prefs/list", "predicate": PREDICATE, "object": "[1, 2]"},
    ]
    facts = [{**f, "scope": "user:alice", "text": "a note about vegetarian curry"} for f in odd]
    client.remember(episode, facts)
    assert [h.key for h in store.search(PREFS)] == ["food"]
    assert [h.key for h in store.search(("user", "alice"), query="vegetarian curry")] == ["food"]
    assert store.get(PREFS, "odd") is None and store.get(PREFS, "list") is None
    assert store.get(PREFS, "food") is not None


def _episodes(client: GraphMemoryClient, scope: str, query: str) -> list[str]:
    found = client.recall(
        query, [scope], kinds=["EPISODE"], min_score=0.0, min_relevance=0.0, relative_relevance=0.0
    )
    return [it["episode"]["summary"] for it in found["items"]]


def test_a_refused_put_records_no_episode(
    store: GraphMemoryStore, client: GraphMemoryClient
) -> None:
    # The episode is what recall serves about the write: it must not claim a refused item.
    with pytest.raises(StoreWriteError, match="longer than 4000 bytes") as err:
        store.put(("user", "orph", "docs"), "report", {"text": "quarterly report " * 300})
    assert err.value.errors[0]["extensions"]["key"] == "report"
    assert store.get(("user", "orph", "docs"), "report") is None
    assert _episodes(client, "user:orph", "quarterly report") == []
    with pytest.raises(StoreWriteError):
        store.batch(
            [
                PutOp(("user", "orph"), "ok", {"text": "Orph reads the quarterly report"}),
                PutOp(("user", "orph"), "big", {"text": "quarterly report " * 300}),
            ]
        )
    assert [s.endswith(": ok") for s in _episodes(client, "user:orph", "quarterly report")] == [
        True
    ]


def test_puts_over_the_batch_limit_are_split_and_all_land(server: str, key: str) -> None:
    store = GraphMemoryStore(server, key, max_batch=2)
    ns = ("user", "bulk", "notes")
    store.batch([PutOp(ns, f"k{i}", {"text": f"note number {i} of five"}) for i in range(5)])
    assert sorted(h.key for h in store.search(ns)) == [f"k{i}" for i in range(5)]


def test_the_default_batch_is_written_within_the_clients_timeout(server: str, key: str) -> None:
    # 1000 puts a write (the service's own limit) took 34 s to embed where the client waited
    # 30: it reported UNAVAILABLE for a write that landed, and a retry wrote it all again.
    store = GraphMemoryStore(server, key)
    assert store.max_batch <= 100
    assert store._timeout >= WRITE_SECONDS_PER_ITEM * store.max_batch
    assert store._timeout >= 30.0
    big = GraphMemoryStore(server, key, max_batch=1000, timeout=30.0)
    assert big._timeout >= 1000 * WRITE_SECONDS_PER_ITEM


def test_a_nul_in_a_value_round_trips(store: GraphMemoryStore) -> None:
    store.put(PREFS, "nul", {"text": "a value with a \x00 NUL inside it"})
    got = store.get(PREFS, "nul")
    assert got is not None and got.value == {"text": "a value with a \x00 NUL inside it"}


def test_a_query_page_past_what_recall_serves_is_refused(store: GraphMemoryStore) -> None:
    store.put(PREFS, "food", {"text": "Alice is vegetarian and loves Thai curry"})
    with pytest.raises(ValueError, match="at most the scope's 100 best matches"):
        store.search(("user", "alice"), query="vegetarian", limit=200)
    with pytest.raises(ValueError, match="at most the scope's 100 best matches"):
        store.search(("user", "alice"), query="vegetarian", limit=10, offset=95)
    assert len(store.search(("user", "alice"), query="vegetarian", limit=100)) == 1
    assert len(store.search(("user", "alice"), limit=200)) == 1  # listing pages through all


@pytest.mark.parametrize(
    "value",
    [
        [1, 2],
        "a value that is a plain string",
        5,
        {"score": float("nan")},
        {"deep": [{"limit": float("inf")}]},
        {"low": -float("inf")},
    ],
    ids=["list", "str", "int", "nan", "nested inf", "-inf"],
)
def test_a_put_of_a_value_that_is_no_json_object_is_refused_before_anything_is_written(
    store: GraphMemoryStore, client: GraphMemoryClient, value: Any
) -> None:
    # Not a dict, get() could never give it back; NaN and infinity are no JSON, what the
    # store writes. The whole batch is refused before the write, its good sibling too.
    ns = ("user", "lg3", "docs")
    with pytest.raises(ValueError, match="value"):
        store.batch(
            [
                PutOp(ns, "good", {"text": "Lg3 reads the quarterly report"}),
                PutOp(ns, "bad", value),
            ]
        )
    assert store.get(ns, "good") is None and store.get(ns, "bad") is None
    assert _episodes(client, "user:lg3", "quarterly report") == []
    assert client.facts(["user:lg3"], predicate=PREDICATE)["edges"] == []


def test_a_negative_limit_or_offset_is_refused(store: GraphMemoryStore) -> None:
    # Python slicing read limit=-1 as "all but the last".
    for i in range(3):
        store.put(PREFS, f"k{i}", {"text": f"note number {i} of three"})
    for limit, offset in ((-1, 0), (10, -1)):
        with pytest.raises(ValueError, match="cannot be negative"):
            store.search(("user", "alice"), limit=limit, offset=offset)
        with pytest.raises(ValueError, match="cannot be negative"):
            store.search(("user", "alice"), query="note", limit=limit, offset=offset)
        with pytest.raises(ValueError, match="cannot be negative"):
            store.list_namespaces(prefix=("user", "alice"), limit=limit, offset=offset)
    assert len(store.search(("user", "alice"), limit=3)) == 3
