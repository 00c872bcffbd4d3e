"""Group commit: concurrent submissions share one flush, each caller gets its own result."""

from __future__ import annotations

import asyncio

import pytest

from graph_memory.services.facts.group_commit import GroupCommit


async def test_concurrent_items_share_a_flush_and_keep_their_own_results() -> None:
    batches: list[list[int]] = []

    async def flush(items: list[int]) -> list[int]:
        batches.append(list(items))
        await asyncio.sleep(0.01)  # a transaction in flight: newcomers gather meanwhile
        return [i * 10 for i in items]

    gc: GroupCommit[int, int] = GroupCommit(flush, max_batch=50)
    results = await asyncio.gather(*(gc.submit(i) for i in range(120)))
    assert results == [i * 10 for i in range(120)]
    assert sum(len(b) for b in batches) == 120
    assert len(batches) < 120 and max(len(b) for b in batches) <= 50


async def test_a_failed_flush_fails_its_own_callers_only() -> None:
    calls = 0

    async def flush(items: list[int]) -> list[int]:
        nonlocal calls
        calls += 1
        await asyncio.sleep(0.01)
        if 0 in items:
            raise RuntimeError("store unavailable")
        return items

    gc: GroupCommit[int, int] = GroupCommit(flush)
    first = asyncio.ensure_future(gc.submit(0))
    await asyncio.sleep(0)  # the first batch (just item 0) is being written
    later = await asyncio.gather(*(gc.submit(i) for i in range(1, 5)))
    assert later == [1, 2, 3, 4]
    with pytest.raises(RuntimeError, match="unavailable"):
        await first
    assert calls == 2


async def test_an_idle_submission_is_written_at_once() -> None:
    async def flush(items: list[str]) -> list[str]:
        return [s.upper() for s in items]

    gc: GroupCommit[str, str] = GroupCommit(flush)
    assert await gc.submit("a") == "A"
    assert await gc.submit("b") == "B"


async def test_a_bad_item_fails_only_its_caller_and_its_batch_mates_land() -> None:
    batches: list[list[int]] = []

    async def flush(items: list[int]) -> list[int]:
        batches.append(list(items))
        await asyncio.sleep(0.01)
        if 3 in items:  # as the store refusing one row fails the whole transaction
            raise ValueError("item 3 cannot be stored")
        return [i * 10 for i in items]

    gc: GroupCommit[int, int] = GroupCommit(flush)
    first = asyncio.ensure_future(gc.submit(0))
    await asyncio.sleep(0)  # item 0 is being written: the next ones gather into one batch
    rest = await asyncio.gather(*(gc.submit(i) for i in range(1, 6)), return_exceptions=True)
    assert await first == 0
    assert rest[:2] == [10, 20] and rest[3:] == [40, 50]
    assert isinstance(rest[2], ValueError)
    assert [1, 2, 3, 4, 5] in batches  # tried together first, then one by one
    assert [b for b in batches if len(b) == 1 and b != [0]] == [[1], [2], [3], [4], [5]]
