"""A rollback leaves the stored timeline of every slot a run changed exactly as it was: the
run's journal holds every timeline write it made (an entity merge's relabels, creations and
deletions, a rule-settled step's (dedupe) ended and opened segments), and a quiet rollback
inverts them, the very segments, ids and all; a rollback after someone else wrote the scope
recomputes from the versions instead of trusting the journal, keeping the later write."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database, Tx
from graph_memory.domain import Principal, Role
from graph_memory.embeddings import LocalEmbedder
from graph_memory.errors import Conflict
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.similarity import SimilarityRepository
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.consolidation.entities import EntityResolver
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode, fact
from tests.integration.consolidation_helpers import M_ROLLBACK, M_RUN

CORE = "team:core"
T = TypeVar("T")
SEGMENTS = (
    "MATCH (s:Segment) WHERE s.tenant = $tenant "
    "RETURN s.id AS id, s.subject AS subject, s.predicate AS predicate, s.fact_id AS fact, "
    "s.view AS view, toString(s.sys_from) AS sys_from, toString(s.sys_to) AS sys_to, "
    "toString(s.valid_from) AS valid_from, toString(s.valid_to) AS valid_to"
)
Segments = list[tuple[Any, ...]]


def _segments(settings: Settings, tenant: str) -> tuple[Segments, Segments]:
    """Every stored segment of the tenant: with ids, and as content only (sorted)."""
    rows = bolt(settings, SEGMENTS, {"tenant": tenant})
    with_ids = sorted(tuple(r.values()) for r in rows)
    return with_ids, sorted(t[1:] for t in with_ids)


FACTS = (
    "MATCH (f:Fact) WHERE f.tenant = $tenant OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode) "
    "OPTIONAL MATCH (f)-[:ABOUT]->(x:Entity) "
    "RETURN f.id AS id, properties(f) AS props, collect(DISTINCT [e.id, d.weight]) AS evidence, "
    "collect(DISTINCT x.key) AS about"
)
USAGE = {"embedding", "retrieval_count", "last_retrieved_at"}


def _facts(settings: Settings, tenant: str) -> dict[str, Any]:
    """Every version of the tenant whole: properties (usage aside), evidence, entity."""
    return {
        r["id"]: (
            {k: str(v) for k, v in r["props"].items() if k not in USAGE},
            sorted(r["evidence"], key=str),
            r["about"],
        )
        for r in bolt(settings, FACTS, {"tenant": tenant})
    }


def _build(client: GraphMemoryClient) -> dict[str, str]:
    ep = client.record_episode(**episode("alice", scope=CORE))
    rows = [
        ("Acme Corp", "headquartered_in", "Berlin"),
        ("Acme Corp", "ceo", "Ann Lee"),
        ("Acme Corp.", "ceo", "Ann Lee"),  # merged into Acme Corp's slot, then deduped there
        ("Acme Corp.", "customer_since", "2019"),  # a slot only the merge changes
        ("Initech Ltd", "headquartered_in", "Austin"),
        ("Initech Ltd", "ceo", "Bill Lumbergh"),
        ("Initech Ltd.", "founded", "1989"),  # a second merge: a batch of its own
    ]
    out = client.assert_facts(
        [fact(s, p, o, [ep], scope=CORE, cardinality="ONE") for s, p, o in rows]
    )
    assert out["accepted"] == len(rows), out
    return {"since": out["results"][3]["factId"]}


def _run(admin: GraphMemoryClient) -> Any:
    done = admin.execute(M_RUN, {"s": [CORE], "steps": ["ENTITIES", "DEDUPE"], "dry": False})
    run = done["runConsolidation"]
    actions = {c["action"] for c in run["changes"]}
    assert {"merge_entity", "merge_duplicate"} <= actions, actions
    return run


def test_rollback_restores_the_stored_segments_of_merged_and_deduped_slots(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    ids = _build(client)
    before, content = _segments(settings, tenant)
    facts = _facts(settings, tenant)
    run = _run(admin)
    assert _segments(settings, tenant)[1] != content  # the run moved and ended segments
    admin.execute(M_ROLLBACK, {"id": run["id"]})
    after, content_after = _segments(settings, tenant)
    assert content_after == content
    # Every version whole again, also the merged one a later batch deduped (its copy-on-write
    # snapshot of the merge's three properties widened by the dedupe batch).
    assert _facts(settings, tenant) == facts
    # The slot only the merge touched got its very segments back from the journal.
    since = [s for s in before if s[3] == ids["since"]]
    assert since and since == [s for s in after if s[3] == ids["since"]]
    # So did every other slot: the dedupe's settles are journaled too, so a quiet rollback
    # recomputes no slot (a recomputation would give equal segments under new ids).
    assert after == before
    assert (
        bolt(settings, "MATCH (j:ConsolidationJournal {tenant: $t}) RETURN j", {"t": tenant}) == []
    )


def test_rollback_after_another_write_recomputes_and_keeps_that_write(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    _build(client)
    _, content = _segments(settings, tenant)
    run = _run(admin)
    ep = client.record_episode(**episode("bob", scope=CORE))
    # Another slot of the run's scope: written by someone else after the run.
    later = client.assert_facts([fact("Globex", "ceo", "Bob Stone", [ep], scope=CORE)])
    assert later["accepted"] == 1, later
    later_id = later["results"][0]["factId"]
    back = admin.execute(M_ROLLBACK, {"id": run["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK"
    _, content_after = _segments(settings, tenant)
    assert [s for s in content_after if s[2] != later_id] == content
    assert [s for s in content_after if s[2] == later_id]  # the later write is still answered


class Crash(BaseException):
    """The process dies between two transactions."""


class DiesAfter(Database):
    """The real database, for a process that dies after ``commits`` write transactions."""

    def __init__(self, settings: Settings, commits: int) -> None:
        real = Database.connect(settings.neo4j())
        super().__init__(real.driver, real.database)
        self.left = commits

    async def write_tx(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        if self.left == 0:
            raise Crash("died")
        self.left -= 1
        return await super().write_tx(fn)


def _service(db: Database, settings: Settings) -> ConsolidationService:
    resolver = EntityResolver(
        ResolutionRepository(db), SimilarityRepository(settings.neo4j()), LocalEmbedder()
    )
    # One memory per batch: the run and its rollback take many transactions.
    return ConsolidationService(
        db, PolicyStore(TrustRepository(db)).policy_for, resolver=resolver, batch_size=1
    )


def test_a_rollback_that_died_part_way_is_finished_by_a_second_call(
    settings: Settings, tenant: str, client: GraphMemoryClient
) -> None:
    _build(client)
    _, content = _segments(settings, tenant)
    facts = _facts(settings, tenant)
    who = Principal(tenant=tenant, role=Role.ADMIN, key_id="k", name="ops")

    async def go() -> str:
        db = Database.connect(settings.neo4j())
        try:
            done = await _service(db, settings).run(who, [CORE], ["entities", "dedupe"])
        finally:
            await db.close()
        assert done.batches >= 3
        dying = DiesAfter(settings, 3)  # the checks, then two of the run's batches undone
        try:
            with pytest.raises(Crash):
                await _service(dying, settings).rollback(who, done.id)
            (stopped,) = await _service(dying, settings).runs(who, first=1)
            assert stopped.status == "rolling_back" and stopped.restored > 0
        finally:
            await dying.close()
        db = Database.connect(settings.neo4j())
        try:
            back = await _service(db, settings).rollback(who, done.id)
        finally:
            await db.close()
        return back.status

    assert asyncio.run(go()) == "rolled_back"
    assert _segments(settings, tenant)[1] == content
    assert _facts(settings, tenant) == facts


class WrittenAfter(Database):
    """The real database, and someone else's write right after its first ``commits`` write
    transactions (between two transactions of a rollback)."""

    def __init__(self, settings: Settings, commits: int, write: Callable[[], object]) -> None:
        real = Database.connect(settings.neo4j())
        super().__init__(real.driver, real.database)
        self.left, self.foreign = commits, write

    async def write_tx(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        result = await super().write_tx(fn)
        self.left -= 1
        if self.left == 0:
            self.foreign()
        return result


def test_a_write_during_a_rollback_to_a_memory_not_restored_yet_stops_it(
    settings: Settings, tenant: str, client: GraphMemoryClient
) -> None:
    _build(client)
    who = Principal(tenant=tenant, role=Role.ADMIN, key_id="k", name="ops")

    async def go() -> tuple[str, str]:
        db = Database.connect(settings.neo4j())
        try:
            done = await _service(db, settings).run(who, [CORE], ["entities", "dedupe"])
        finally:
            await db.close()
        # The copy of a version the run's first batch carried over (not deduped after): that
        # batch is undone last, transactions after the one that first sees the write.
        copies = [
            json.loads(c.after or "{}").get("merged_into")
            for c in done.changes or ()
            if c.action == "merge_entity"
        ]
        oldest = next(
            i
            for i in copies
            if i and client.fact(i)["status"] == "ACTIVE"  # type: ignore[index]
        )
        assert done.batches >= 3
        racing = WrittenAfter(settings, 1, lambda: client.retract_fact(oldest, "wrong"))
        try:
            with pytest.raises(Conflict) as err:
                await _service(racing, settings).rollback(who, done.id)
        finally:
            await racing.close()
        return oldest, err.value.message

    oldest, refused = asyncio.run(go())
    assert oldest in refused
    assert client.fact(oldest)["status"] == "RETRACTED"  # type: ignore[index]
