"""Group commit: concurrent single-item writes share one transaction.

A write transaction costs the same few round trips whether it carries one row or a hundred,
so the queue's acceptance rate is bounded by transactions, not rows. Callers submit one item
and await its own result; while one batch is being written, newcomers gather into the next.
An idle caller pays no extra latency (its batch of one is written at once). A batch that
fails is written again item by item, so a failure reaches only the caller whose item caused it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["GroupCommit"]

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")


class GroupCommit(Generic[ItemT, ResultT]):
    def __init__(
        self, flush: Callable[[list[ItemT]], Awaitable[list[ResultT]]], max_batch: int = 200
    ) -> None:
        self._flush = flush
        self._max = max_batch
        self._pending: list[tuple[ItemT, asyncio.Future[ResultT]]] = []
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def submit(self, item: ItemT) -> ResultT:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A new event loop (tests, a CLI run): nothing of the old one can be awaited here.
            self._loop, self._task, self._pending = loop, None, []
        future: asyncio.Future[ResultT] = loop.create_future()
        self._pending.append((item, future))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[: self._max], self._pending[self._max :]
            try:
                results = await self._flush([item for item, _ in batch])
            except asyncio.CancelledError as e:
                _fail(batch, e)
                raise
            except Exception as e:
                if len(batch) == 1:
                    _fail(batch, e)
                    continue
                # One caller's bad item must not fail the others (of any tenant) sharing its
                # transaction: each is written again on its own, and only its own fails.
                for n, one in enumerate(batch):
                    try:
                        await self._alone(one)
                    except asyncio.CancelledError as cancelled:
                        _fail(batch[n:], cancelled)
                        raise
                continue
            for (_, future), result in zip(batch, results, strict=True):
                if not future.done():
                    future.set_result(result)

    async def _alone(self, entry: tuple[ItemT, asyncio.Future[ResultT]]) -> None:
        item, future = entry
        try:
            [result] = await self._flush([item])
        except asyncio.CancelledError as e:
            _fail([entry], e)
            raise
        except Exception as e:
            _fail([entry], e)
        else:
            if not future.done():
                future.set_result(result)


def _fail(batch: list[tuple[ItemT, asyncio.Future[ResultT]]], error: BaseException) -> None:
    for _, future in batch:
        if not future.done():
            future.set_exception(error)
