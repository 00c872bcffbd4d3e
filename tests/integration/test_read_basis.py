"""An answer as of a moment is final: asked again after any later write, it is the same.

A writer stamps its changes under its scope's lock and commits a little later; a read as of a
moment after that stamp waits for the commit instead of answering without the write and then,
asked again, with it (services/read_basis.py). A read as of a moment the scope's writers have
already passed answers at once and writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from graph_memory.container import Services, build_services
from graph_memory.db import Database, Tx
from graph_memory.domain import (
    Citation,
    EpisodeInput,
    FactInput,
    Outcome,
    Principal,
    Role,
    as_datetime,
    utcnow,
)
from graph_memory.embeddings import Embedder
from graph_memory.services.facts.reads import FactFilter
from graph_memory.services.facts.results import ItemResult
from graph_memory.services.recall.request import RecallRequest
from graph_memory.settings import Settings
from tests.integration.conftest import bolt

T = TypeVar("T")
SCOPE = "user:alice"
LIVES = FactFilter(scopes=(SCOPE,), subject="alice", predicate="lives_in")


def _run(settings: Settings, embedder: Embedder, go: Callable[[Services], Awaitable[T]]) -> T:
    async def main() -> T:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        try:
            return await go(services)
        finally:
            await services.db.close()

    return asyncio.run(main())


async def _episode(services: Services, agent: Principal, session: str) -> str:
    [(ep, _)] = await services.episodes.record(
        agent,
        [
            EpisodeInput(
                user_id="alice",
                session_id=session,
                started_at=None,
                ended_at=None,
                summary=f"Alice said where she lives now ({session}).",
                outcome=Outcome.SUCCESS,
                source="user",
            )
        ],
    )
    assert ep is not None
    return ep


def _lives(city: str, ep: str) -> FactInput:
    return FactInput("alice", "lives_in", city, (Citation(ep),), source="user")


async def _in_flight(
    services: Services, agent: Principal, item: FactInput
) -> tuple[asyncio.Task[list[ItemResult]], datetime, asyncio.Event]:
    """A write stamped and held open before its commit until the returned event is set."""
    batch = await services.facts.prepare(agent, [item])
    stamped: asyncio.Future[datetime] = asyncio.get_running_loop().create_future()
    release = asyncio.Event()

    async def work(tx: Tx) -> list[ItemResult]:
        out = await services.facts.write_prepared(tx, batch)
        assert tx.stamp is not None
        if not stamped.done():
            stamped.set_result(tx.stamp)
        await release.wait()
        return out

    writer = asyncio.create_task(services.db.write_tx(work))
    return writer, await stamped, release


async def _waits_for_the_write(
    services: Services,
    agent: Principal,
    read: Callable[[datetime], Coroutine[Any, Any, Any]],
    city: str = "Berlin",
) -> tuple[Any, Any, list[ItemResult]]:
    """Read as of a moment just after an in-flight write's stamp: the read must wait for the
    commit and answer with the write; asked again, it answers the same."""
    ep = await _episode(services, agent, f"told {city}")
    writer, stamp, release = await _in_flight(services, agent, _lives(city, ep))
    await asyncio.sleep(0.02)
    as_of = utcnow()
    assert as_of > stamp
    reader = asyncio.create_task(read(as_of))
    await asyncio.sleep(0.5)
    waited = not reader.done()
    release.set()
    written = await writer
    first = await reader
    again = await read(as_of)
    assert waited, "the read answered while a write stamped before its asOf was in flight"
    return first, again, written


def test_facts_and_history_as_of_a_moment_wait_for_a_write_stamped_before_it(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    agent = Principal(tenant, Role.AGENT, "k-test")

    async def go(services: Services) -> list[tuple[list[str], list[str]]]:
        ep = await _episode(services, agent, "s1")
        assert (await services.facts.assert_facts(agent, [_lives("Paris", ep)]))[0].ok

        async def facts(as_of: datetime) -> list[str]:
            rows = await services.reads.list_facts(
                agent, LIVES, as_of=as_of, valid_at=None, first=10, after=None
            )
            return [r.object for r in rows]

        async def history(as_of: datetime) -> list[str]:
            rows = await services.reads.history(agent, [SCOPE], "alice", "lives_in", as_of)
            return [r.object for r in rows]

        out = []
        for read, city in ((facts, "Berlin"), (history, "Rome")):
            first, again, written = await _waits_for_the_write(services, agent, read, city)
            assert written[0].ok
            out.append((first, again))
        return out

    (facts_first, facts_again), (history_first, history_again) = _run(settings, embedder, go)
    assert facts_first == facts_again == ["Berlin"]
    assert history_first == history_again == ["Paris", "Berlin", "Rome"]


def test_recall_as_of_a_moment_waits_for_a_write_stamped_before_it(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    agent = Principal(tenant, Role.AGENT, "k-test")

    async def go(services: Services) -> tuple[list[str], list[str]]:
        ep = await _episode(services, agent, "s1")
        assert (await services.facts.assert_facts(agent, [_lives("Paris", ep)]))[0].ok

        async def recall(as_of: datetime) -> list[str]:
            assert services.recall is not None
            result = await services.recall.recall(
                agent,
                RecallRequest(
                    query="where does alice live",
                    scopes=(SCOPE,),
                    kinds=("fact",),
                    as_of=as_of,
                    min_score=0.0,
                    min_relevance=0.0,
                    relative_relevance=0.0,
                ),
            )
            return [s.fact.object for s in result.items if s.fact is not None]

        first, again, _ = await _waits_for_the_write(services, agent, recall)
        return first, again

    first, again = _run(settings, embedder, go)
    assert first == again == ["Berlin"]


def test_a_read_of_a_moment_the_scope_has_passed_writes_nothing_and_a_later_one_pins_it(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    agent = Principal(tenant, Role.AGENT, "k-test")
    lock = (
        "MATCH (l:ScopeLock {tenant: $t, scope: $s}) "
        "RETURN l.pins AS pins, toString(l.stamp) AS stamp"
    )

    async def go(services: Services) -> dict[str, Any]:
        # A moment more than a second back, before the scope's first write (a moment just past
        # goes straight to the pin: read_basis.RECENT).
        before = utcnow() - timedelta(seconds=2)
        ep = await _episode(services, agent, "s1")
        await services.facts.assert_facts(agent, [_lives("Paris", ep)])

        async def facts(as_of: datetime | None) -> list[str]:
            rows = await services.reads.list_facts(
                agent, LIVES, as_of=as_of, valid_at=None, first=10, after=None
            )
            return [r.object for r in rows]

        seen: dict[str, Any] = {}
        seen["past"] = await facts(before)
        seen["after_past"] = (await services.db.run_raw(lock, {"t": tenant, "s": SCOPE}))[0]
        seen["now_unpinned"] = await facts(None)
        seen["after_now"] = (await services.db.run_raw(lock, {"t": tenant, "s": SCOPE}))[0]
        pinned_at = utcnow()
        seen["pinned"] = await facts(pinned_at)
        seen["pinned_at"] = pinned_at
        seen["after_pin"] = (await services.db.run_raw(lock, {"t": tenant, "s": SCOPE}))[0]
        # Asked again: settled, nothing written.
        await facts(pinned_at)
        seen["after_again"] = (await services.db.run_raw(lock, {"t": tenant, "s": SCOPE}))[0]
        ep2 = await _episode(services, agent, "s2")
        seen["next"] = (await services.facts.assert_facts(agent, [_lives("Rome", ep2)]))[0]
        # A scope nobody wrote: answered empty, no lock left behind.
        empty = FactFilter(scopes=("user:nobody",), subject="nobody", predicate="lives_in")
        seen["nobody"] = await services.reads.list_facts(
            agent, empty, as_of=utcnow(), valid_at=None, first=10, after=None
        )
        return seen

    seen = _run(settings, embedder, go)
    assert seen["past"] == []
    assert seen["after_past"]["pins"] is None
    assert seen["now_unpinned"] == ["Paris"] and seen["after_now"]["pins"] is None
    assert seen["pinned"] == ["Paris"]
    assert seen["after_pin"]["pins"] == 1
    assert as_datetime(seen["after_pin"]["stamp"]) == seen["pinned_at"]
    assert seen["after_again"]["pins"] == 1
    rome = bolt(
        settings,
        "MATCH (f:Fact {id: $id}) RETURN f.recorded_at AS at",
        {"id": seen["next"].fact_id},
    )[0]["at"].to_native()
    assert rome > seen["pinned_at"]
    assert seen["nobody"] == []
    left = bolt(
        settings,
        "MATCH (l:ScopeLock {tenant: $t, scope: 'user:nobody'}) RETURN count(l) AS n",
        {"t": tenant},
    )
    assert left[0]["n"] == 0


def test_an_as_of_just_ahead_of_the_clock_is_waited_for_and_one_far_ahead_is_not_pinned(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    agent = Principal(tenant, Role.AGENT, "k-test")

    async def go(services: Services) -> tuple[float, datetime, float, datetime | None]:
        ep = await _episode(services, agent, "s1")
        await services.facts.assert_facts(agent, [_lives("Paris", ep)])
        ahead = utcnow() + timedelta(milliseconds=150)
        began = asyncio.get_running_loop().time()
        await services.reads.list_facts(
            agent, LIVES, as_of=ahead, valid_at=None, first=10, after=None
        )
        waited = asyncio.get_running_loop().time() - began
        far = datetime(2999, 1, 1, tzinfo=UTC)
        began = asyncio.get_running_loop().time()
        await services.reads.list_facts(
            agent, LIVES, as_of=far, valid_at=None, first=10, after=None
        )
        far_took = asyncio.get_running_loop().time() - began
        stamp = as_datetime(
            (
                await services.db.run_raw(
                    "MATCH (l:ScopeLock {tenant: $t, scope: $s}) RETURN toString(l.stamp) AS s",
                    {"t": tenant, "s": SCOPE},
                )
            )[0]["s"]
        )
        return waited, ahead, far_took, stamp

    waited, ahead, far_took, stamp = _run(settings, embedder, go)
    assert stamp is not None
    assert waited >= 0.1
    assert stamp == ahead  # pinned once reached; the far moment left the stamp alone
    assert far_took < 1.0
