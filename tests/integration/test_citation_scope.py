"""Citations and premises stay inside the scopes a fact is visible to (issue 14, item 4).

A read scoped to alice must never serve bob's words through a fact's provenance or dependsOn:
a fact may cite only episodes (and depend only on facts) its readers may see anyway."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.container import build_services
from graph_memory.db import Database, Tx
from graph_memory.domain import Citation, EpisodeInput, FactInput, Outcome, Principal, Role
from graph_memory.embeddings import Embedder
from graph_memory.services.facts.citation_scope import may_cite
from graph_memory.services.facts.results import ItemResult
from graph_memory.services.remember import episode_id_for
from graph_memory.settings import Settings
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


def _bobs_episode(session: str) -> EpisodeInput:
    return EpisodeInput(
        user_id="bob",
        session_id=session,
        started_at=None,
        ended_at=None,
        summary="Bob told the agent his salary and his home address.",
        outcome=Outcome.SUCCESS,
        source="user",
    )


def test_an_episode_recorded_between_the_check_and_the_write_is_checked_under_the_lock(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    # remember derives its episode's id from the key (and bob's contributor), so a writer
    # that knows both can cite bob's episode before it exists: the scope read before the
    # locks finds nothing to refuse, and the episode is there by the time the batch reads
    # its citations under the lock.
    async def go() -> tuple[list[ItemResult], list[ItemResult]]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        assert services.remember is not None
        agent = Principal(tenant, Role.AGENT, "k-test")
        try:
            bob_key = await services.remember.episodes.contributor(agent, "bob")
            bobs = episode_id_for(tenant, "bob-s1", bob_key)
            items = [
                FactInput("alice", "likes", "tea", (Citation(bobs),), scope="user:alice"),
                FactInput("alice", "likes", "chess", (Citation(bobs),), scope="team:x"),
            ]
            batch = await services.facts.prepare(agent, items)
            bob = _bobs_episode("s1")
            got = await services.remember.remember(agent, bob, [], "bob-s1")
            assert got.episode_id == bobs

            async def write(tx: Tx) -> list[ItemResult]:
                return await services.facts.write_prepared(tx, batch)

            late = await services.db.write_tx(write)
            again = await services.facts.assert_facts(agent, items)
            return late, again
        finally:
            await services.db.close()

    late, again = asyncio.run(go())
    # Under the lock as before it: user:alice may not serve bob's words, team:x may.
    assert [(r.ok, r.error_field) for r in again] == [(False, "episodes"), (True, None)]
    assert [(r.ok, r.error_field) for r in late] == [(False, "episodes"), (True, None)]


def test_a_token_citing_an_episode_recorded_since_its_check_stays_in_its_scopes(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    # A token bound to alice checks the scopes of the episodes it cites before the write; one
    # recorded in bob's scope after that check (its id derived from a remember key) is seen
    # only under the lock, where it is refused too: a fact left to its default scope would
    # otherwise land in user:bob, and a tenant fact would rest on bob's words.
    async def go() -> tuple[list[ItemResult], int]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        assert services.remember is not None
        agent = Principal(tenant, Role.AGENT, "k-test")
        token = Principal(
            tenant,
            Role.AGENT,
            "k-test",
            scopes=frozenset({"user:alice", "tenant"}),
            user_id="alice",
        )
        try:
            bob_key = await services.remember.episodes.contributor(agent, "bob")
            bobs = episode_id_for(tenant, "bob-s2", bob_key)
            items = [
                FactInput("alice", "likes", "tea", (Citation(bobs),)),
                FactInput("acme", "uses", "Linux", (Citation(bobs),), scope="tenant"),
            ]
            batch = await services.facts.prepare(token, items)
            bob = _bobs_episode("s2")
            await services.remember.remember(agent, bob, [], "bob-s2")

            async def write(tx: Tx) -> list[ItemResult]:
                return await services.facts.write_prepared(tx, batch)

            late = await services.db.write_tx(write)
            rows = await services.db.run_raw(
                "MATCH (f:Fact {tenant: $t}) RETURN count(f) AS n", {"t": tenant}
            )
            return late, int(rows[0]["n"])
        finally:
            await services.db.close()

    late, stored = asyncio.run(go())
    assert [(r.ok, r.error_code) for r in late] == [(False, "FORBIDDEN"), (False, "FORBIDDEN")]
    assert stored == 0
