"""Working memory over HTTP: facts, then episodes, then procedures, hard-capped by tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tokenizers import Tokenizer

import graph_memory.embeddings
from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode, fact

SCOPES = ["user:alice", "tenant"]
QUERY = "Alice's travel plans, flights and seating preferences"


def _tokens(text: str) -> int:
    """An independent count with the same local tokenizer (no truncation, no specials)."""
    path = Path(graph_memory.embeddings.__file__).parent / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return len(tok.encode(text, add_special_tokens=False).ids)


@pytest.fixture
def memory(client: GraphMemoryClient, admin: GraphMemoryClient) -> dict[str, Any]:
    eps = [
        client.record_episode(
            **episode(
                "alice",
                summary=f"Alice booked flight {n} to Lisbon and asked for a window seat, "
                "then changed her return date twice because of a conference.",
                topics=["travel"],
            )
        )
        for n in ("TP-101", "TP-202", "TP-303")
    ]
    facts = [
        fact(
            "Alice",
            "prefers",
            "window seats",
            eps[:1],
            cardinality="MANY",
            text="Alice prefers window seats on long flights",
        ),
        fact(
            "Alice",
            "prefers",
            "morning flights",
            eps[1:2],
            text="Alice prefers morning flights when travelling for work",
        ),
        fact(
            "Alice",
            "has_goal",
            "conference in Lisbon",
            eps[2:],
            cardinality="MANY",
            text="Alice plans to travel to a conference in Lisbon in the spring",
        ),
    ]
    ids = [r["factId"] for r in client.assert_facts(facts)["results"]]
    proc = admin.upsert_procedure(
        "book travel",
        "travel_agent",
        [
            "Check the traveller's seating and time preferences in memory",
            "Search flights that match them",
            "Confirm the booking with the traveller",
        ],
        "tenant",
        description="arranging flights for a traveller",
    )["procedure"]
    return {"facts": ids, "episodes": eps, "procedure": proc["id"]}


def test_facts_then_episodes_then_procedures_when_all_fit(
    client: GraphMemoryClient, memory: dict[str, Any]
) -> None:
    res = client.context(QUERY, 2000, SCOPES, intent="book_travel")
    kinds = [i["kind"] for i in res["included"]]
    assert kinds == sorted(kinds, key=["FACT", "EPISODE", "PROCEDURE"].index)
    assert {i["id"] for i in res["included"]} == {
        *memory["facts"],
        *memory["episodes"],
        memory["procedure"],
    }
    assert res["dropped"] == []
    text = res["text"]
    assert text.index("## Facts") < text.index("## Episodes") < text.index("## Procedures")
    assert "window seats" in text and "Search flights that match them" in text
    assert _tokens(text) <= res["tokens"] <= 2000


@pytest.mark.parametrize("budget", [1, 5, 12, 20, 40, 80, 150, 400])
def test_the_budget_is_never_exceeded_and_drops_are_reported(
    client: GraphMemoryClient, memory: dict[str, Any], budget: int
) -> None:
    res = client.context(QUERY, budget, SCOPES, intent="book_travel")
    assert _tokens(res["text"]) <= res["tokens"] <= budget
    everything = {*memory["facts"], *memory["episodes"], memory["procedure"]}
    included = {i["id"] for i in res["included"]}
    dropped = {d["id"] for d in res["dropped"]}
    assert included | dropped == everything and not included & dropped
    assert all(d["reason"] == "over_budget" for d in res["dropped"])
    for i in res["included"]:
        assert i["id"] in everything
    if budget <= 5:
        assert res["text"] == "" and res["included"] == []


def test_a_higher_priority_section_is_filled_first(
    client: GraphMemoryClient, memory: dict[str, Any]
) -> None:
    res = client.context(QUERY, 40, SCOPES, intent="book_travel")
    assert res["text"].startswith("## Facts\n- ")
    assert {i["kind"] for i in res["included"]} == {"FACT"}
    dropped = {d["id"] for d in res["dropped"]}
    assert {*memory["episodes"], memory["procedure"]} <= dropped


def test_budget_must_be_positive(client: GraphMemoryClient) -> None:
    with pytest.raises(GraphMemoryClientError) as err:
        client.context(QUERY, 0, SCOPES)
    assert err.value.code == "VALIDATION"


def test_nothing_relevant_is_an_empty_block(
    client: GraphMemoryClient, memory: dict[str, Any]
) -> None:
    res = client.context("photosynthesis in chloroplasts of algae", 500, SCOPES)
    assert res["text"] == "" and res["included"] == [] and res["dropped"] == []
