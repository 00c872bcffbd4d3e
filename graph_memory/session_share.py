"""At most a few Neo4j sessions at once for one GraphQL operation.

Why: admission (admission.py) bounds the operations in flight and gives each tenant a share
of them, but one operation can fan out: sibling fields resolve concurrently, so a query of
60 ``recall`` aliases asks for hundreds of sessions at once. The driver's pool is shared by
every operation of the process; once one request has taken all of it, every other request,
of any tenant, waits for a connection behind that request's queries, and the share admission
gave them is worth nothing. Capping each operation's sessions (``operation_sessions``, set
around an operation by the app) keeps the pool larger than the operations admitted times
their share (``pool_size``), so an admitted operation always finds a connection, and a
fanned-out query only queues its own queries.

A session opened while the same task already holds one (a read inside a transaction's
function) takes no second share: it would wait on itself.

Database turns: the same fairness one level down, process-wide. Admission gives a tenant a
share of the operations, but an operation's cost is not bounded by being one: a query of
eight aliased recalls at overRecall 500 runs tens of seconds of Cypher, and six such
operations of one tenant put dozens of queries on Neo4j's cores (two here) beside another
tenant's page of five facts, which then took 0.5-1.5 s instead of 13 ms. So every read
session (an auto-commit read, a read transaction) also takes a turn of the Database's
``turns`` (admission.Admission, ``GRAPH_MEMORY_DB_TURNS``), queued per tenant and served in
turns, no tenant holding more than all turns but one: another tenant's read waits at most for
one read to end, then runs beside a few rather than dozens (bench/load.py --heavy --victim).
Write transactions take none: one holds its session through Python work and lock waits, so
counting it would leave turns idle (at 32 clients of the mixed load, 22% less throughput).
Credential lookups take none either (``without_turn``): made before the tenant is known, one
index seek each.
Reads take no locks, so a read holding a turn never waits on a writer and every turn comes
back (a read inside a write transaction may wait for one without a deadlock). Writes are
bounded by admission, batch limits and their scope locks instead. The tenant is the
operation's (``operation_sessions``), or the one background work is done for
(``working_for``); a session opened while the task holds one takes no second turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar

from graph_memory import metrics
from graph_memory.admission import Admission

__all__ = [
    "DEFAULT_POOL",
    "SESSIONS_PER_OPERATION",
    "operation_sessions",
    "pool_size",
    "session_slot",
    "without_turn",
    "working_for",
]

# The driver's pool for a process that bounds nothing (CLI commands, tools).
DEFAULT_POOL = 50

# Sessions one operation holds at once: a recall's searches (five) run in about two rounds.
SESSIONS_PER_OPERATION = 4
# Beside the operations: background work (ingest, consolidation, purges) and migrations.
_BACKGROUND_SESSIONS = 16

_SHARE: ContextVar[asyncio.Semaphore | None] = ContextVar("operation_sessions", default=None)
_HOLDING: ContextVar[bool] = ContextVar("holding_a_session", default=False)
# Whose database turn a session takes ("": work done for no one tenant).
_TENANT: ContextVar[str] = ContextVar("sessions_for_tenant", default="")


def pool_size(max_inflight: int) -> int:
    """A connection pool no admitted operation waits on (DEFAULT_POOL when nothing bounds
    them)."""
    if not max_inflight:
        return DEFAULT_POOL
    return max(DEFAULT_POOL, max_inflight * SESSIONS_PER_OPERATION + _BACKGROUND_SESSIONS)


@contextlib.contextmanager
def operation_sessions(limit: int = SESSIONS_PER_OPERATION, tenant: str = "") -> Iterator[None]:
    """Within this block (one operation of ``tenant``), at most ``limit`` sessions at once,
    each taking ``tenant``'s database turns."""
    token = _SHARE.set(asyncio.Semaphore(limit) if limit else None)
    try:
        with working_for(tenant):
            yield
    finally:
        _SHARE.reset(token)


@contextlib.contextmanager
def working_for(tenant: str) -> Iterator[None]:
    """Within this block, sessions take ``tenant``'s database turns (background work: a
    purge, an ingest job, a consolidation run queues behind its own tenant's work)."""
    token = _TENANT.set(tenant)
    try:
        yield
    finally:
        _TENANT.reset(token)


@contextlib.contextmanager
def without_turn() -> Iterator[None]:
    """Within this block, sessions take no database turn: a credential lookup, one index seek
    made before the request's tenant is known. Queued as the tenant "" it put every tenant's
    first request behind the lookups of every other tenant's (a flood's included), and its
    wait counted in the request's dbturn. The key cache (good keys) and the failed-key
    throttle (bad ones) bound these lookups instead."""
    token = _HOLDING.set(True)  # as a session held already: no share, no turn
    try:
        yield
    finally:
        _HOLDING.reset(token)


@contextlib.asynccontextmanager
async def session_slot(turns: Admission | None = None) -> AsyncIterator[None]:
    """Held around every session the database layer opens: the operation's share, then the
    tenant's turn of ``turns`` (the Database's)."""
    share = _SHARE.get()
    if _HOLDING.get() or (share is None and turns is None):
        yield
        return
    async with contextlib.AsyncExitStack() as held:
        if share is not None:
            await held.enter_async_context(share)
        if turns is not None:
            began = time.perf_counter()
            await held.enter_async_context(turns.turn(_TENANT.get()))
            metrics.observe_turn(time.perf_counter() - began)
        token = _HOLDING.set(True)
        try:
            yield
        finally:
            _HOLDING.reset(token)
