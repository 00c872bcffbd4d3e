"""The in-flight cap: never more than N operations at once; a tenant's waiters served by
deadline (arrival plus their kind's objective), equal objectives in arrival order."""

from __future__ import annotations

import asyncio
import functools

import pytest

from graph_memory.admission import Admission


def test_at_most_limit_run_at_once_and_waiters_go_in_arrival_order() -> None:
    async def go() -> tuple[int, list[int]]:
        gate = Admission(2, per_tenant=2)
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


def _peak(gate: Admission, n: int, tenant: str = "") -> int:
    """The most of ``n`` concurrent operations of ``tenant`` that ran at once."""

    async def go() -> int:
        running = peak = 0

        async def work() -> None:
            nonlocal running, peak
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            running -= 1

        await asyncio.gather(*(gate.run(work, tenant=tenant) for _ in range(n)))
        return peak

    return asyncio.run(go())


def test_no_limit_admits_everything_at_once() -> None:
    assert _peak(Admission(0), 20) == 20


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


def test_a_flooding_tenant_leaves_a_slot_and_waiting_tenants_take_turns() -> None:
    async def go() -> list[str]:
        gate = Admission(3)  # a tenant's share: 2
        started: list[str] = []
        release: dict[str, asyncio.Event] = {}

        async def work(name: str) -> None:
            started.append(name)
            release[name] = asyncio.Event()
            await release[name].wait()

        tasks = {}
        for name in ["a1", "a2", "a3", "a4", "b1", "b2", "c1"]:
            job = functools.partial(work, name)
            tasks[name] = asyncio.create_task(gate.run(job, tenant=name[0]))
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        # a holds its share (2) however much it sends; b's first takes the slot left over.
        assert started == ["a1", "a2", "b1"]
        # The freed slot goes to the next tenant in turn with a waiter that may take it:
        # b (it queued before c), not a, which holds its share.
        release["b1"].set()
        await asyncio.sleep(0.01)
        assert started[-1] == "b2"
        release["b2"].set()
        await asyncio.sleep(0.01)
        assert started[-1] == "c1"
        release["a1"].set()
        await asyncio.sleep(0.01)
        assert started[-1] == "a3"
        release["c1"].set()  # a slot free, but a holds its share (a2, a3) and nobody else waits
        await asyncio.sleep(0.01)
        assert started[-1] == "a3"
        release["a2"].set()
        await asyncio.sleep(0.01)
        assert started[-1] == "a4"
        for event in release.values():
            event.set()
        await asyncio.gather(*tasks.values())
        return started

    started = asyncio.run(go())
    assert sorted(started) == sorted(["a1", "a2", "a3", "a4", "b1", "b2", "c1"])


def test_a_tenant_alone_uses_its_share_and_a_share_above_the_cap_is_the_cap() -> None:
    assert _peak(Admission(4), 12, "t") == 3
    assert _peak(Admission(4, per_tenant=9), 12, "t") == 4
    assert _peak(Admission(1), 12, "t") == 1  # a cap of one is that tenant's share too


def test_a_granted_waiter_cancelled_before_it_runs_passes_its_slot_on() -> None:
    async def go() -> list[str]:
        gate = Admission(1)
        done: list[str] = []
        hold = asyncio.Event()

        async def work(name: str) -> None:
            await hold.wait()
            done.append(name)
            if name == "first":
                # Runs after first's release has granted "second" and before "second"
                # resumes: its client goes away with the slot already given to it.
                asyncio.get_running_loop().call_soon(second.cancel)

        first = asyncio.create_task(gate.run(lambda: work("first"), tenant="a"))
        await asyncio.sleep(0)
        second = asyncio.create_task(gate.run(lambda: work("second"), tenant="b"))
        third = asyncio.create_task(gate.run(lambda: work("third"), tenant="c"))
        await asyncio.sleep(0.01)
        hold.set()
        await asyncio.wait_for(third, 1)
        await first
        with pytest.raises(asyncio.CancelledError):
            await second
        return done

    assert asyncio.run(go()) == ["first", "third"]


def test_a_share_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 1"):
        Admission(4, per_tenant=0)


def _start_order(arrivals: list[tuple[str, float]], pause: float = 0.0) -> list[str]:
    """The order in which queued operations start behind one running one: ``arrivals`` are
    (name, objective seconds) in arrival order, ``pause`` seconds apart on the gate's clock."""

    async def go() -> list[str]:
        now = [0.0]
        gate = Admission(1, per_tenant=1, clock=lambda: now[0])
        started: list[str] = []
        release = asyncio.Event()

        async def hold() -> None:
            await release.wait()

        async def work(name: str) -> None:
            started.append(name)

        first = asyncio.create_task(gate.run(hold, "t"))
        await asyncio.sleep(0)
        tasks = []
        for name, within in arrivals:
            tasks.append(asyncio.create_task(gate.run(functools.partial(work, name), "t", within)))
            await asyncio.sleep(0)
            now[0] += pause
        await asyncio.sleep(0)
        release.set()
        await asyncio.gather(first, *tasks)
        return started

    return asyncio.run(go())


def test_a_read_that_came_after_a_queued_write_goes_first_while_the_write_has_time() -> None:
    order = _start_order([("write", 2.0), ("read 1", 0.5), ("read 2", 0.5), ("write 2", 2.0)])
    assert order == ["read 1", "read 2", "write", "write 2"]


def test_a_write_whose_objective_is_spent_goes_before_reads_that_came_later() -> None:
    # The write's deadline (0.05 s after it came) passes before the deadlines of the reads that
    # came more than 0.05 s after it (each read's objective 0: its deadline is its arrival, and
    # they came 0.03 s apart): no stream of reads starves it.
    order = _start_order([("write", 0.05), ("r1", 0.0), ("r2", 0.0), ("r3", 0.0)], pause=0.03)
    assert order == ["r1", "write", "r2", "r3"]


def test_equal_objectives_keep_arrival_order() -> None:
    names = [f"op {i}" for i in range(8)]
    assert _start_order([(n, 0.5) for n in names]) == names
