"""One operation's Neo4j sessions: at most its share at once, nested ones free, the pool sized
so that admitted operations never wait on it; across operations and background work, database
turns served per tenant in turns."""

from __future__ import annotations

import asyncio

from graph_memory.admission import Admission
from graph_memory.session_share import (
    SESSIONS_PER_OPERATION,
    operation_sessions,
    pool_size,
    session_slot,
    without_turn,
    working_for,
)


def _peak(limit: int | None, n: int) -> int:
    async def go() -> int:
        running = peak = 0

        async def query() -> None:
            nonlocal running, peak
            async with session_slot():
                running += 1
                peak = max(peak, running)
                await asyncio.sleep(0.01)
                running -= 1

        if limit is None:  # outside any operation (background work): no share
            await asyncio.gather(*(query() for _ in range(n)))
        else:
            with operation_sessions(limit):
                await asyncio.gather(*(query() for _ in range(n)))
        return peak

    return asyncio.run(go())


def test_an_operation_fanning_out_holds_at_most_its_share() -> None:
    assert _peak(3, 40) == 3
    assert _peak(None, 40) == 40


def test_a_session_opened_inside_a_held_one_takes_no_second_share() -> None:
    async def go() -> list[str]:
        done: list[str] = []

        async def transaction(name: str) -> None:
            async with session_slot():
                await asyncio.sleep(0.01)
                async with session_slot():  # a read inside the transaction's function
                    done.append(name)

        with operation_sessions(1):
            await asyncio.wait_for(asyncio.gather(transaction("a"), transaction("b")), 2)
        return done

    assert sorted(asyncio.run(go())) == ["a", "b"]


def test_the_pool_outgrows_the_admitted_operations_shares() -> None:
    assert pool_size(0) == 50
    assert pool_size(8) == 50  # 8 x 4 + 16 background
    assert pool_size(64) == 64 * SESSIONS_PER_OPERATION + 16


def test_a_tenant_flooding_the_database_leaves_a_turn_another_tenant_takes_next() -> None:
    """Six operations of tenant a, each fanning out four queries, against four turns: a's
    queries never hold more than three; b's single query, arriving last, runs as soon as one
    of a's ends (b's is the next query to start), not after a's queue drains."""

    async def go() -> tuple[int, int, list[str]]:
        turns = Admission(4)
        running: dict[str, int] = {"a": 0, "b": 0}
        peak = {"a": 0, "b": 0}
        started: list[str] = []

        async def query(tenant: str) -> None:
            async with session_slot(turns):
                started.append(tenant)
                running[tenant] += 1
                peak[tenant] = max(peak[tenant], running[tenant])
                await asyncio.sleep(0.02)
                running[tenant] -= 1

        async def operation(tenant: str, queries: int) -> None:
            with operation_sessions(SESSIONS_PER_OPERATION, tenant=tenant):
                await asyncio.gather(*(query(tenant) for _ in range(queries)))

        flood = [asyncio.create_task(operation("a", 4)) for _ in range(6)]
        await asyncio.sleep(0.005)  # a holds its turns, 21 of its queries wait
        await operation("b", 1)
        await asyncio.gather(*flood)
        return peak["a"], peak["b"], started

    peak_a, peak_b, started = asyncio.run(go())
    assert peak_a == 3  # all turns but one
    assert peak_b == 1
    # b's query started at once (the free turn), before any of a's 21 waiting queries.
    assert started.index("b") == 3


def test_background_work_takes_turns_as_its_tenant() -> None:
    """A purge or ingest job runs ``working_for`` its tenant: its sessions wait behind that
    tenant's share, while another tenant's query still finds the free turn."""

    async def go() -> list[str]:
        turns = Admission(2)
        started: list[str] = []
        release = asyncio.Event()

        async def session(tenant: str) -> None:
            with working_for(tenant):
                async with session_slot(turns):
                    started.append(tenant)
                    await release.wait()

        jobs = [asyncio.create_task(session("a")) for _ in range(3)]
        await asyncio.sleep(0.01)
        other = asyncio.create_task(session("b"))
        await asyncio.sleep(0.01)
        release.set()
        await asyncio.gather(*jobs, other)
        return started

    assert asyncio.run(go())[:2] == ["a", "b"]


def test_a_transaction_holding_a_turn_opens_sessions_without_waiting_for_another() -> None:
    """A read inside a transaction's function while every turn is held: no second turn (it
    would wait for itself or for holders that wait on its Neo4j locks)."""

    async def go() -> int:
        turns = Admission(1)
        inner = 0

        async def transaction() -> None:
            nonlocal inner
            async with session_slot(turns):
                await asyncio.sleep(0.01)  # the other transaction waits for the one turn
                async with session_slot(turns):  # a read inside the transaction's function
                    inner += 1

        await asyncio.wait_for(asyncio.gather(transaction(), transaction()), 2)
        return inner

    assert asyncio.run(go()) == 2


def test_a_credential_lookup_waits_for_no_turn() -> None:
    """Before its tenant is known a request looks its key up: those lookups take no turn, so
    one waits neither for other tenants' lookups nor for reads holding every turn."""

    async def go() -> list[str]:
        turns = Admission(2)
        started: list[str] = []
        release = asyncio.Event()

        async def read(tenant: str) -> None:
            with working_for(tenant):
                async with session_slot(turns):
                    started.append(tenant)
                    await release.wait()

        async def lookup() -> None:
            with without_turn():
                async with session_slot(turns):
                    started.append("lookup")

        held = [asyncio.create_task(read(t)) for t in ("a", "b", "c")]  # c waits for a turn
        await asyncio.sleep(0.01)
        await asyncio.wait_for(asyncio.gather(lookup(), lookup()), 1)
        release.set()
        await asyncio.gather(*held)
        return started

    assert asyncio.run(go()) == ["a", "b", "lookup", "lookup", "c"]
