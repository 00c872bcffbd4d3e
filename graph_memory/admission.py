"""At most N GraphQL operations of this process run at once; the rest wait their turn, first
come first served (``GRAPH_MEMORY_MAX_INFLIGHT``; 0: no limit).

Why: on a saturated machine every operation admitted at once shares the same cores, so each
one's Neo4j round trips (a recall makes five, a fact write fifteen inside its transaction)
queue behind everyone else's. A write holds its scope lock across all of them, so its lock
is held for the sum of those queues and the next writer of that scope waits on top. Past the
point where the cores are busy, admitting more does not raise throughput; it only spreads
each operation over more time, in an order nobody chose. Waiting in a FIFO queue instead
keeps the work in progress small (short lock holds, short Neo4j queues) and serves
operations in the order they came, which is what bounds the slowest ones (bench/load.py).

The wait counts toward a read's time budget (request_budget.py) and ends if the client goes
away; it is reported per request (``queue_ms`` in the request log line, and
graph_memory_request_queue_seconds).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from graph_memory import metrics

__all__ = ["Admission"]

T = TypeVar("T")


class Admission:
    def __init__(self, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"the in-flight limit must be >= 0 (0: none), got {limit}")
        self.limit = limit
        # asyncio.Semaphore wakes waiters in the order they started waiting.
        self._slots = asyncio.Semaphore(limit) if limit else None

    async def run(self, work: Callable[[], Awaitable[T]]) -> T:
        """``work()``'s result, started once a slot is free (made only then, so a waiter
        cancelled in the queue leaves nothing half begun)."""
        if self._slots is None:
            return await work()
        began = time.perf_counter()
        async with self._slots:
            metrics.observe_queue(time.perf_counter() - began)
            return await work()
