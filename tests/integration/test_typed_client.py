"""The typed client against the real service: snake_case in, frozen dataclasses out, refused
items raised as `ItemsRejected` after their siblings landed; and the dict client taking
snake_case keys too."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.client_types import EpisodeIn, Fact, FactIn, RecallResult
from graph_memory.typed_client import AsyncMemoryClient, ItemsRejected, MemoryClient

KeyFactory = Callable[..., str]
JAN = datetime(2026, 1, 1, tzinfo=UTC)
MARCH = datetime(2026, 3, 1, 10, tzinfo=UTC)


@pytest.fixture
def memory(server: str, make_key: KeyFactory, tenant: str) -> Iterator[MemoryClient]:
    with MemoryClient(server, make_key(tenant, "agent")) as m:
        yield m


def test_an_agent_loop_retrieve_inject_write(memory: MemoryClient) -> None:
    scopes = ["user:alice", "tenant"]
    assert memory.context("plan alice's trip", 300, scopes).text == ""
    ep = memory.record_episode(
        "alice", "s1", "Alice said she moved from Paris to Berlin in January.", started_at=MARCH
    )
    out = memory.assert_facts(
        [FactIn("alice", "lives_in", "Berlin", episodes=(ep,), valid_from=JAN)],
        idempotency_key="import-42",
    )
    assert (out.accepted, out.rejected) == (1, 0)
    first = out.results[0]
    assert first.ok and first.status == "ACTIVE" and first.fact_id and first.confidence == 0.7
    ctx = memory.context("plan alice's trip", 300, scopes)
    assert "Berlin" in ctx.text and ctx.tokens <= ctx.token_budget == 300
    fact = memory.fact(first.fact_id)
    assert isinstance(fact, Fact) and fact.valid_from == JAN
    assert fact.provenance[0].episode_id == ep and fact.provenance[0].user_id == "alice"
    with pytest.raises(dataclasses.FrozenInstanceError):
        fact.object = "Rome"  # type: ignore[misc]


def test_reads_are_typed(memory: MemoryClient) -> None:
    ep = memory.record_episode("bob", "s1", "Bob said he lived in Oslo and now lives in Rome.")
    memory.assert_facts([FactIn("bob", "lives_in", "Oslo", (ep,), valid_from=JAN)])
    memory.assert_facts(
        [FactIn("bob", "lives_in", "Rome", (ep,), valid_from=datetime(2026, 2, 1, tzinfo=UTC))]
    )
    page = memory.facts(["user:bob"], subject="bob", predicate="lives_in")
    assert [f.object for f in page.facts] == ["Rome"] and not page.has_next_page
    then = memory.facts(["user:bob"], subject="bob", valid_at=datetime(2026, 1, 15, tzinfo=UTC))
    assert [f.object for f in then.facts] == ["Oslo"]
    hist = memory.history("bob", "lives_in", ["user:bob"])
    assert [(v.object, v.version) for v in hist.versions] == [("Oslo", 1), ("Rome", 2)]
    assert isinstance(hist.versions[0].recorded_at, datetime)
    found = memory.recall("where does bob live?", ["user:bob"], kinds=["FACT"], k=3)
    assert isinstance(found, RecallResult) and "Rome" in found.items[0].text
    item = found.items[0]
    assert item.kind == "FACT" and item.score.total > 0 and item.fact_id
    assert item.provenance.episodes[0].episode_id == ep
    retracted = memory.retract_fact(page.facts[0].id, "moved again")
    assert retracted.status == "RETRACTED" and retracted.retract_reason == "moved again"


def test_refused_items_raise_after_their_siblings_land(memory: MemoryClient) -> None:
    ep = memory.record_episode("carol", "s1", "Carol talked about her cat and her city.")
    facts = [
        FactIn("carol", "has_pet", "a cat called Miso", (ep,), cardinality="MANY"),
        FactIn("carol", "lives_in", "Lima", (ep,), valid_from=MARCH, valid_to=JAN),
    ]
    with pytest.raises(ItemsRejected) as err:
        memory.assert_facts(facts)
    assert err.value.code == "VALIDATION"
    assert [r.index for r in err.value.failed] == [1]
    assert err.value.result.accepted == 1
    assert [f.object for f in memory.facts(["user:carol"]).facts] == ["a cat called Miso"]
    # Or read the per-item errors without an exception.
    out = memory.assert_facts(facts[1:], raise_on_error=False)
    assert out.rejected == 1 and out.results[0].error is not None
    assert out.results[0].error.field == "validFrom"
    bad = EpisodeIn("carol", "s2", "ok")
    with pytest.raises(ItemsRejected):
        memory.record_episodes([bad])
    assert not memory.record_episodes([bad], raise_on_error=False)[0].ok


def test_forget_is_typed_and_admin_only(
    memory: MemoryClient, server: str, make_key: KeyFactory, tenant: str
) -> None:
    ep = memory.record_episode("dan", "s1", "Dan said he keeps two parrots at home.")
    memory.assert_facts([FactIn("dan", "has_pet", "two parrots", (ep,), cardinality="MANY")])
    with pytest.raises(GraphMemoryClientError) as err:
        memory.forget_contributor("dan")
    assert err.value.code == "FORBIDDEN"
    with MemoryClient(server, make_key(tenant, "admin")) as admin:
        receipt = admin.forget_contributor("dan")
    assert (receipt.episodes_deleted, receipt.fact_versions_deleted) == (1, 1)
    assert {t.tier: t.count for t in receipt.facts_deleted_by_tier}["USER"] == 1


async def test_the_async_client_makes_the_same_calls(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    async with AsyncMemoryClient(server, make_key(tenant, "agent")) as m:
        ep = await m.record_episode("erin", "s1", "Erin said she works at Acme since 2024.")
        out = await m.assert_facts([FactIn("erin", "works_at", "Acme", (ep,))])
        assert out.results[0].ok
        assert (await m.history("erin", "works_at", ["user:erin"])).versions[0].object == "Acme"
        assert "Acme" in (await m.context("where does erin work?", 200, ["user:erin"])).text
        assert (await m.recall("where does erin work?", ["user:erin"])).items
    sync = {n for n in dir(MemoryClient) if not n.startswith("_")} - {"close"}
    assert sync <= {n for n in dir(AsyncMemoryClient) if not n.startswith("_")}


def test_the_dict_client_takes_snake_case_too(client: GraphMemoryClient) -> None:
    ep = client.record_episode(
        user_id="frank",
        session_id="s1",
        started_at=MARCH,
        summary="Frank said he moved to Quito last year.",
        outcome="SUCCESS",
    )
    out = client.assert_facts(
        [
            {
                "subject": "frank",
                "predicate": "lives_in",
                "object": "Quito",
                "episodes": [{"episode_id": ep}],
                "valid_from": JAN,
            }
        ]
    )
    assert out["accepted"] == 1
    page = client.facts(["user:frank"], subject="frank", include_candidates=True)
    assert [e["node"]["validFrom"][:10] for e in page["edges"]] == ["2026-01-01"]
