"""The full-text side of recall uses the English analyzer: inflections match."""

from __future__ import annotations

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact


def test_plural_and_verb_forms_match_by_keyword(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    client.assert_facts(
        [
            fact(
                "alice",
                "prefers",
                "refunds to store credit",
                [e],
                text="Alice prefers refunds over store credit when an order is cancelled",
            ),
        ]
    )
    res = client.recall("refund cancellation", ["user:alice"], kinds=["FACT"])
    assert res["items"], "stemming should connect refund/refunds and cancel/cancelled"
    assert res["items"][0]["score"]["keyword"] > 0


def test_a_long_chinese_question_is_answered_not_refused_by_lucene(
    client: GraphMemoryClient,
) -> None:
    """Lucene makes a clause of every ideograph: 1,100 of them used to pass the query's clause
    budget as one word, and Lucene's refusal (over 1,024 clauses) failed the whole recall as
    INTERNAL. The words within the budget are searched; every kind answers."""
    e = client.record_episode(
        **episode("alice", summary="Alice says she \u559c\u6b22\u65c5\u884c very much")
    )
    client.assert_facts([fact("alice", "likes", "\u65c5\u884c", [e])])
    question = "\u65c5\u884c" + "".join(chr(0x4E00 + i) for i in range(1100))
    res = client.recall(question, ["user:alice"], min_relevance=0.0, k=10)
    hits = [i for i in res["items"] if i["score"]["keyword"] > 0]
    assert hits, res["items"]
