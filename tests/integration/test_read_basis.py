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

import pytest
from prometheus_client import REGISTRY

from graph_memory import db as db_module
from graph_memory.container import Services, build_services
from graph_memory.db import Database, Tx
from graph_memory.domain import (
    Cardinality,
    Citation,
    FactInput,
    Principal,
    Role,
    as_datetime,
    utcnow,
)
from graph_memory.embeddings import Embedder
from graph_memory.errors import StoreUnavailable
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services import read_basis
from graph_memory.services.facts.expiry import ExpiryService
from graph_memory.services.facts.reads import FactFilter
from graph_memory.services.facts.results import ItemResult
from graph_memory.services.recall.request import RecallRequest
from graph_memory.services.trust.outcomes import Outcome as VerdictOutcome
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, record_episode_in_process

T = TypeVar("T")
SCOPE = "user:alice"
ONE = Cardinality.ONE
LIVES = FactFilter(scopes=(SCOPE,), subject="alice", predicate="lives_in")


def _run(settings: Settings, embedder: Embedder, go: Callable[[Services], Awaitable[T]]) -> T:
    async def main() -> T:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        try:
            return await go(services)
        finally:
            await services.db.close()

    return asyncio.run(main())


async def _episode(
    services: Services,
    agent: Principal,
    session: str,
    user: str = "alice",
    scope: str | None = None,
) -> str:
    """An episode of ``user`` (in their own scope unless ``scope`` is given)."""
    summary = f"{user.title()} said where they live now ({session})."
    return await record_episode_in_process(
        services, agent, session, summary, user_id=user, scope=scope
    )


async def _conclusion(services: Services, admin: Principal, ep: str, premise: str) -> ItemResult:
    """Alice works in Paris, drawn from ``premise``."""
    [d] = await services.facts.assert_facts(
        admin,
        [
            FactInput(
                "alice",
                "works_in",
                "Paris",
                (Citation(ep),),
                depends_on=(premise,),
                cardinality=ONE,
            )
        ],
    )
    return d


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
    # Raised to the moment asked, or to when the pin ran, whichever is later.
    pinned = as_datetime(seen["after_pin"]["stamp"])
    assert pinned is not None and pinned >= seen["pinned_at"]
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
    # Pinned once reached (to the moment asked, or a little later, when the pin ran); the far
    # moment left the stamp alone.
    assert ahead <= stamp < ahead + timedelta(seconds=2)
    assert far_took < 1.0


def test_a_change_reaching_another_scope_waits_for_it_and_a_read_of_it_waits_for_the_change(
    settings: Settings, embedder: Embedder, tenant: str, monkeypatch: Any
) -> None:
    """Retracting a tenant-scope premise flags a user-scope conclusion: the retraction takes the
    user scope's lock too, so a read of the user scope as of a moment after its stamp waits
    for it, and asked again answers the same."""
    admin = Principal(tenant, Role.ADMIN, "k-test")

    async def go(services: Services) -> tuple[list[tuple[str, bool]], list[tuple[str, bool]]]:
        ep_t = await _episode(services, admin, "s0", scope="tenant")
        ep = await _episode(services, admin, "s1")
        [p] = await services.facts.assert_facts(
            admin,
            [
                FactInput(
                    "acme", "hq_in", "Paris", (Citation(ep_t),), scope="tenant", cardinality=ONE
                )
            ],
        )
        assert p.ok and p.fact_id is not None
        d = await _conclusion(services, admin, ep, p.fact_id)
        assert d.ok
        works = FactFilter(scopes=(SCOPE,), subject="alice", predicate="works_in")

        async def read(at: datetime) -> list[tuple[str, bool]]:
            rows = await services.reads.list_facts(
                admin, works, as_of=at, valid_at=None, first=10, after=None
            )
            return [(r.object, r.needs_verification) for r in rows]

        # The retraction held open just before its commit (its changes made and stamped).
        stamped: asyncio.Future[datetime] = asyncio.get_running_loop().create_future()
        release = asyncio.Event()
        seal = Tx.seal

        async def held(self: Tx) -> None:
            if not stamped.done() and self.stamp is not None:
                stamped.set_result(self.stamp)
                await release.wait()
            await seal(self)

        monkeypatch.setattr(Tx, "seal", held)
        writer = asyncio.create_task(services.facts.retract(admin, p.fact_id, "wrong"))
        stamp = await stamped
        await asyncio.sleep(0.02)
        at = utcnow()
        assert at > stamp
        reader = asyncio.create_task(read(at))
        await asyncio.sleep(0.5)
        waited = not reader.done()
        release.set()
        await writer
        first = await reader
        assert waited, "the read answered while a change reaching its scope was in flight"
        return first, await read(at)

    first, again = _run(settings, embedder, go)
    assert first == again == [("Paris", True)]


def test_expiry_and_outcome_reports_land_after_a_moment_already_answered(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    """The expiry sweep stamps under its locks (not with the sweep's due moment), and an
    outcome report adds a verdict instead of rewriting one: what a read as of a moment answered
    stays (flags, and the outcome counts recall's salience reads)."""
    admin = Principal(tenant, Role.ADMIN, "k-test")

    async def go(services: Services) -> dict[str, Any]:
        ep = await _episode(services, admin, "s1")
        [p] = await services.facts.assert_facts(
            admin, [FactInput("alice", "badge", "B1", (Citation(ep),), ttl_days=1, cardinality=ONE)]
        )
        assert p.fact_id is not None
        d = await _conclusion(services, admin, ep, p.fact_id)
        assert p.ok and d.ok and d.fact_id is not None
        assert services.outcomes is not None and services.recall is not None
        recall, outcomes = services.recall, services.outcomes
        await outcomes.report(admin, [d.fact_id], VerdictOutcome.HELPFUL, ep)
        await services.db.run_raw(
            "MATCH (f:Fact {id: $id}) SET f.expires_at = datetime() - duration('PT1H')",
            {"id": p.fact_id},
        )
        due = utcnow()  # the sweep's moment, taken before its locks
        await asyncio.sleep(0.05)
        at = utcnow()
        works = FactFilter(scopes=(SCOPE,), subject="alice", predicate="works_in")

        async def read() -> tuple[list[tuple[str, bool]], Any]:
            rows = await services.reads.list_facts(
                admin, works, as_of=at, valid_at=None, first=5, after=None
            )
            counts = await recall.repo.outcomes_at(tenant, [d.fact_id or ""], at)
            return [(r.object, r.needs_verification) for r in rows], counts

        seen: dict[str, Any] = {"first": await read()}
        await ExpiryService(TrustRepository(services.db)).sweep(tenant, None, due)
        await outcomes.report(admin, [d.fact_id], VerdictOutcome.HARMFUL, ep)
        seen["again"] = await read()
        return {**seen, "now": await recall.repo.outcomes_at(tenant, [d.fact_id], utcnow())}

    seen = _run(settings, embedder, go)
    assert seen["first"] == seen["again"]
    assert seen["first"][0] == [("Paris", False)]
    assert seen["now"] != seen["first"][1]  # the later report counts from its moment on


def test_a_lock_taken_after_the_clock_on_a_scope_already_past_it_runs_the_write_again(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    """A write that locks a scope only after reading its clock, and finds a read pinned that
    scope past the clock meanwhile, runs again with the scope locked first: its stamp then
    comes after the pin (db.LockedLate)."""
    agent = Principal(tenant, Role.AGENT, "k-test")

    async def go(services: Services) -> tuple[list[set[tuple[str, str]]], datetime, datetime]:
        # Both scopes written once, so both have locks that carry stamps.
        await _episode(services, agent, "s1")
        await _episode(services, agent, "b1", user="bob")
        attempts: list[set[tuple[str, str]]] = []
        clocked, go_on = asyncio.Event(), asyncio.Event()

        async def work(tx: Tx) -> datetime:
            attempts.append(set(tx.early))
            await WriteLocks.scopes(tx, tenant, [SCOPE])
            now = tx.clock(utcnow())
            if len(attempts) == 1:
                clocked.set()
                await go_on.wait()
            await WriteLocks.scopes(tx, tenant, ["user:bob"])  # after the clock
            return now

        writer = asyncio.create_task(services.db.write_tx(work))
        await clocked.wait()
        await asyncio.sleep(0.01)
        bobs = FactFilter(scopes=("user:bob",), subject="bob", predicate="lives_in")
        await services.reads.list_facts(
            agent, bobs, as_of=utcnow(), valid_at=None, first=1, after=None
        )
        pinned = as_datetime(
            (
                await services.db.run_raw(
                    "MATCH (l:ScopeLock {tenant: $t, scope: 'user:bob'}) "
                    "RETURN toString(l.stamp) AS s",
                    {"t": tenant},
                )
            )[0]["s"]
        )
        assert pinned is not None
        go_on.set()
        return attempts, await writer, pinned

    reruns = REGISTRY.get_sample_value("graph_memory_write_reruns_total") or 0.0
    attempts, stamp, pinned = _run(settings, embedder, go)
    assert attempts == [set(), {(tenant, "user:bob")}]
    assert stamp > pinned
    # Counted, for operators: how often a write learns its reach late.
    assert REGISTRY.get_sample_value("graph_memory_write_reruns_total") == reruns + 1


def test_a_moment_older_than_any_write_in_flight_is_answered_without_the_locks(
    settings: Settings, embedder: Embedder, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No write in flight can stamp before a moment older than the write limit (with the
    clocks' skew): a read as of one answers at once, even after the scope's last stamp and
    while a writer of the scope is in flight, and pins nothing (read_basis.FINAL_AFTER,
    shortened here so the test need not wait minutes)."""
    monkeypatch.setattr(read_basis, "FINAL_AFTER", timedelta(seconds=1.5))
    agent = Principal(tenant, Role.AGENT, "k-test")

    async def go(services: Services) -> tuple[list[str], bool, Any, list[str]]:
        ep = await _episode(services, agent, "s1")
        await services.facts.assert_facts(agent, [_lives("Paris", ep)])
        ep2 = await _episode(services, agent, "s2")
        await asyncio.sleep(2.0)
        # After the scope's last stamp (so not final by the lock's stamp) and past FINAL_AFTER.
        as_of = utcnow() - timedelta(seconds=1.6)
        writer, _, release = await _in_flight(services, agent, _lives("Berlin", ep2))
        reader = asyncio.create_task(
            services.reads.list_facts(
                agent, LIVES, as_of=as_of, valid_at=None, first=10, after=None
            )
        )
        await asyncio.sleep(0.5)
        answered = reader.done()
        release.set()
        await writer
        first = [r.object for r in await reader]
        lock = await services.db.run_raw(
            "MATCH (l:ScopeLock {tenant: $t, scope: $s}) RETURN l.pins AS pins",
            {"t": tenant, "s": SCOPE},
        )
        again = await services.reads.list_facts(
            agent, LIVES, as_of=as_of, valid_at=None, first=10, after=None
        )
        return first, answered, lock[0]["pins"], [r.object for r in again]

    first, answered, pins, again = _run(settings, embedder, go)
    assert answered, "a read as of a moment older than any write in flight waited for one"
    assert first == again == ["Paris"]
    assert pins is None


def test_a_write_holding_its_clock_past_the_limit_is_rolled_back(
    settings: Settings, embedder: Embedder, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that would commit longer than db.WRITE_TX_LIMIT (shortened here) after reading
    its clock is rolled back: the caller gets a typed error and nothing of the write is saved.
    The bound is what lets a read as of an older moment skip the locks."""
    monkeypatch.setattr(db_module, "WRITE_TX_LIMIT", timedelta(seconds=1))
    agent = Principal(tenant, Role.AGENT, "k-test")

    async def go(services: Services) -> tuple[str, list[str]]:
        ep = await _episode(services, agent, "s1")
        batch = await services.facts.prepare(agent, [_lives("Paris", ep)])

        async def slow(tx: Tx) -> None:
            await services.facts.write_prepared(tx, batch)
            await asyncio.sleep(1.5)

        try:
            await services.db.write_tx(slow)
            code = "none"
        except StoreUnavailable as e:
            code = e.code
        rows = await services.reads.list_facts(
            agent, LIVES, as_of=None, valid_at=None, first=10, after=None
        )
        return code, [r.object for r in rows]

    code, left = _run(settings, embedder, go)
    assert code == "STORE_UNAVAILABLE"
    assert left == []
