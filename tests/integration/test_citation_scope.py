"""Citations and premises stay inside the scopes a fact is visible to (issue 14, item 4).

A read scoped to alice must never serve bob's words through a fact's provenance or dependsOn:
a fact may cite only episodes (and depend only on facts) its readers may see anyway."""

from __future__ import annotations

from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.services.facts.citation_scope import may_cite
from tests.integration.conftest import episode, fact


def _one(client: GraphMemoryClient, item: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = client.assert_facts([item])["results"][0]
    return result


@pytest.mark.parametrize(
    ("fact_scope", "source_scope", "allowed"),
    [
        ("user:alice", "user:alice", True),
        ("user:alice", "user:bob", False),
        ("user:alice", "team:x", True),
        ("user:alice", "tenant", True),
        ("team:x", "user:bob", True),
        ("team:x", "team:y", False),
        ("tenant", "user:bob", True),
        ("tenant", "team:x", True),
    ],
)
def test_the_rule(fact_scope: str, source_scope: str, allowed: bool) -> None:
    assert may_cite(fact_scope, source_scope) is allowed


def test_alice_fact_citing_bobs_episode_is_refused_and_siblings_land(
    client: GraphMemoryClient,
) -> None:
    alice = client.record_episode(**episode("alice"))
    bob = client.record_episode(
        **episode("bob", summary="Bob told the agent his salary and his home address.")
    )
    out = client.assert_facts(
        [
            fact("alice", "likes", "tea", [alice, bob], cardinality="MANY"),
            fact("alice", "likes", "jazz", [bob], cardinality="MANY", scope="user:alice"),
            fact("alice", "likes", "chess", [alice], cardinality="MANY"),
        ]
    )
    assert [r["ok"] for r in out["results"]] == [False, False, True]
    assert [r["index"] for r in out["results"]] == [0, 1, 2]
    assert {r["error"]["field"] for r in out["results"][:2]} == {"episodes"}
    assert {r["error"]["code"] for r in out["results"][:2]} == {"VALIDATION"}
    assert (out["accepted"], out["rejected"]) == (1, 2)
    page = client.facts(["user:alice"])
    served = [p["summary"] for e in page["edges"] for p in e["node"]["provenance"]]
    assert served and not any("salary" in (s or "") for s in served)


def test_a_premise_in_another_users_scope_is_refused(client: GraphMemoryClient) -> None:
    alice = client.record_episode(**episode("alice"))
    bob = client.record_episode(**episode("bob"))
    bobs = _one(client, fact("bob", "works_at", "ACME", [bob], cardinality="ONE"))["factId"]
    r = _one(
        client,
        fact("alice", "colleague_of", "bob", [alice], cardinality="MANY", dependsOn=[bobs]),
    )
    assert (r["ok"], r["error"]["code"], r["error"]["field"]) == (False, "VALIDATION", "dependsOn")


def test_facts_may_cite_across_kinds_and_tenant_evidence_is_shared(
    client: GraphMemoryClient,
) -> None:
    alice = client.record_episode(**episode("alice"))
    shared = client.record_episode(**episode("ops", scope="tenant"))
    team = client.record_episode(**episode("carol", scope="team:support"))
    other_team = client.record_episode(**episode("dan", scope="team:sales"))
    ok = [
        fact("acme", "office_in", "Berlin", [alice], cardinality="MANY", scope="tenant"),
        fact("support", "uses", "Zendesk", [alice], cardinality="MANY", scope="team:support"),
        fact("alice", "works_at", "ACME", [shared], cardinality="ONE", scope="user:alice"),
        fact("alice", "member_of", "support", [team], cardinality="MANY", scope="user:alice"),
    ]
    assert [r["ok"] for r in client.assert_facts(ok)["results"]] == [True] * 4
    r = _one(client, fact("support", "rival", "sales", [other_team], scope="team:support"))
    assert (r["ok"], r["error"]["field"]) == (False, "episodes")
