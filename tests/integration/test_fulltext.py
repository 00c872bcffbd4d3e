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
