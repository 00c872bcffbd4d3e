"""The in-flight cap: never more than N operations at once, waiters served in arrival order."""

from __future__ import annotations

import asyncio
import functools

import pytest

from graph_memory.admission import Admission


def test_at_most_limit_run_at_once_and_waiters_go_in_arrival_order() -> None:
    async def go() -> tuple[int, list[int]]:
        gate = Admission(2)
        running = peak = 0
        started: list[int] = []
        release = asyncio.Event()

        async def work(i: int) -> int:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            started.append(i)
            await release.wait()
            running -= 1
            return i

        tasks = []
        for i in range(6):
            tasks.append(asyncio.create_task(gate.run(functools.partial(work, i))))
            await asyncio.sleep(0)  # arrival order is creation order
        await asyncio.sleep(0.01)
        assert started == [0, 1]
        release.set()
        assert await asyncio.gather(*tasks) == list(range(6))
        return peak, started

    peak, started = asyncio.run(go())
    assert peak == 2
    assert started == list(range(6))


def test_no_limit_admits_everything_at_once() -> None:
    async def go() -> int:
        gate = Admission(0)
        running = peak = 0

        async def work() -> None:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            running -= 1

        await asyncio.gather(*(gate.run(work) for _ in range(20)))
        return peak

    assert asyncio.run(go()) == 20


def test_a_cancelled_waiter_gives_up_its_turn() -> None:
    async def go() -> list[str]:
        gate = Admission(1)
        done: list[str] = []
        hold = asyncio.Event()

        async def work(name: str) -> None:
            await hold.wait()
            done.append(name)

        first = asyncio.create_task(gate.run(lambda: work("first")))
        await asyncio.sleep(0)
        gone = asyncio.create_task(gate.run(lambda: work("gone")))
        last = asyncio.create_task(gate.run(lambda: work("last")))
        await asyncio.sleep(0.01)
        gone.cancel()  # its client went away while it queued
        hold.set()
        await asyncio.gather(first, last)
        return done

    assert asyncio.run(go()) == ["first", "last"]


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        Admission(-1)
