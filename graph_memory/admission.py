"""At most N GraphQL operations of this process run at once, no tenant holds more than its
share of them, and waiting tenants take turns (``GRAPH_MEMORY_MAX_INFLIGHT``, default four
per core; 0: no limit; ``GRAPH_MEMORY_MAX_INFLIGHT_PER_TENANT``, default all but one slot).

Why a cap: on a saturated machine every operation admitted at once shares the same cores, so
each one's Neo4j round trips (a recall makes five, a fact write fifteen inside its
transaction) queue behind everyone else's. A write holds its scope lock across all of them,
so its lock is held for the sum of those queues and the next writer of that scope waits on
top. Past the point where the cores are busy, admitting more does not raise throughput; it
only spreads each operation over more time, in an order nobody chose. Waiting in a queue
instead keeps the work in progress small (short lock holds, short Neo4j queues), which is
what bounds the slowest operations (bench/load.py).

Why per tenant: one queue served first come first served lets a tenant that sends a thousand
requests at once put every other tenant behind all of them. Here each tenant has a queue of
its own (ordered by deadline, below), a freed slot goes to the next tenant in turn that has one
waiting, and a tenant never holds more than its share, so there is always a slot another
tenant's request can take as soon as one finishes: a flood slows the tenant that sends it.

Why deadlines within a tenant: reads (recall above all) are on an agent's critical path, a
write mostly is not, and each kind has its own latency objective (``GRAPH_MEMORY_READ_
OBJECTIVE_MS``, 500; ``GRAPH_MEMORY_WRITE_OBJECTIVE_MS``, 1,500). A tenant's queue runs earliest
deadline first, a request's deadline its arrival plus its kind's objective: a read that came
after a queued write goes first while the write still has time left, and a write whose
objective is nearly spent goes before every read that came later, so no kind starves (only
reads that came within the objectives' difference after a write go before it). Equal
objectives are arrival order.

The wait counts toward a read's time budget (request_budget.py) and ends if the client goes
away; it is reported per request (``queue_ms`` in the request log line, and
graph_memory_request_queue_seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from graph_memory import metrics

__all__ = ["Admission", "default_tenant_share"]

T = TypeVar("T")
# A waiter: its deadline (monotonic seconds), its arrival number, the future its turn sets.
_Waiter = tuple[float, int, asyncio.Future[None]]


def default_tenant_share(limit: int) -> int:
    """All slots but one: a second tenant always finds one free within one operation."""
    return max(1, limit - 1)


class Admission:
    def __init__(
        self,
        limit: int,
        per_tenant: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if limit < 0:
            raise ValueError(f"the in-flight limit must be >= 0 (0: none), got {limit}")
        if per_tenant is not None and per_tenant < 1:
            raise ValueError(f"a tenant's share must be >= 1, got {per_tenant}")
        # A share above the cap is the cap: no tenant is held back while others wait for none.
        share = default_tenant_share(limit) if per_tenant is None else min(per_tenant, limit)
        self.limit = limit
        self.per_tenant = share
        self._total = 0
        self._running: Counter[str] = Counter()
        # Tenants with waiters, in the order they get their next turn (dict order is the ring);
        # each tenant's waiters a heap by deadline (then arrival: the counter breaks ties).
        self._waiting: dict[str, list[_Waiter]] = {}
        self._arrivals = itertools.count()
        self._clock = clock

    async def run(
        self, work: Callable[[], Awaitable[T]], tenant: str = "", within: float = 0.0
    ) -> T:
        """``work()``'s result, started once ``tenant`` has a slot (made only then, so a
        waiter cancelled in the queue leaves nothing half begun); ``within``: the seconds its
        kind's latency objective allows, which orders it among its tenant's waiters."""
        began = time.perf_counter()
        async with self.turn(tenant, within):
            if self.limit:
                metrics.observe_queue(time.perf_counter() - began)
            return await work()

    @contextlib.asynccontextmanager
    async def turn(self, tenant: str = "", within: float = 0.0) -> AsyncIterator[None]:
        """Held while ``tenant``'s slot is: entered once its turn comes."""
        if not self.limit:
            yield
            return
        await self._acquire(tenant, within)
        try:
            yield
        finally:
            self._release(tenant)

    def _may_start(self, tenant: str) -> bool:
        return self._total < self.limit and self._running[tenant] < self.per_tenant

    def _take(self, tenant: str) -> None:
        self._total += 1
        self._running[tenant] += 1

    async def _acquire(self, tenant: str, within: float) -> None:
        # _dispatch runs after every release, so whenever a slot is free no waiter that may
        # take it is left: a newcomer allowed to start is not jumping anyone's turn.
        if tenant not in self._waiting and self._may_start(tenant):
            self._take(tenant)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        deadline = self._clock() + within
        heapq.heappush(self._waiting.setdefault(tenant, []), (deadline, next(self._arrivals), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release(tenant)  # granted just as its client went away: pass it on
            else:
                self._forget_waiter(tenant, turn)
            raise

    def _forget_waiter(self, tenant: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(tenant)
        if queue is None:
            return
        kept = [w for w in queue if w[2] is not turn]  # _dispatch may have skipped it already
        heapq.heapify(kept)
        queue[:] = kept
        if not queue:
            del self._waiting[tenant]

    def _release(self, tenant: str) -> None:
        self._total -= 1
        self._running[tenant] -= 1
        if not self._running[tenant]:
            del self._running[tenant]
        self._dispatch()

    def _dispatch(self) -> None:
        while self._total < self.limit:
            tenant = next((t for t in self._waiting if self._running[t] < self.per_tenant), None)
            if tenant is None:
                return
            queue = self._waiting.pop(tenant)
            turn = heapq.heappop(queue)[2]
            while turn.done() and queue:  # cancelled without leaving the queue: skip it
                turn = heapq.heappop(queue)[2]
            if queue:
                self._waiting[tenant] = queue  # to the back of the ring: the others go first
            if turn.done():
                continue
            self._take(tenant)
            turn.set_result(None)
