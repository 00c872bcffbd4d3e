"""One operation's Neo4j sessions: at most its share at once, nested ones free, the pool sized
so that admitted operations never wait on it."""

from __future__ import annotations

import asyncio

from graph_memory.session_share import (
    SESSIONS_PER_OPERATION,
    operation_sessions,
    pool_size,
    session_slot,
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
