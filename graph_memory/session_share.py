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
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from contextvars import ContextVar

__all__ = [
    "DEFAULT_POOL",
    "SESSIONS_PER_OPERATION",
    "operation_sessions",
    "pool_size",
    "session_slot",
]

# The driver's pool for a process that bounds nothing (CLI commands, tools).
DEFAULT_POOL = 50

# Sessions one operation holds at once: a recall's searches (five) run in about two rounds.
SESSIONS_PER_OPERATION = 4
# Beside the operations: background work (ingest, consolidation, purges) and migrations.
_BACKGROUND_SESSIONS = 16

_SHARE: ContextVar[asyncio.Semaphore | None] = ContextVar("operation_sessions", default=None)
_HOLDING: ContextVar[bool] = ContextVar("holding_a_session", default=False)


def pool_size(max_inflight: int) -> int:
    """A connection pool no admitted operation waits on (DEFAULT_POOL when nothing bounds
    them)."""
    if not max_inflight:
        return DEFAULT_POOL
    return max(DEFAULT_POOL, max_inflight * SESSIONS_PER_OPERATION + _BACKGROUND_SESSIONS)


@contextlib.contextmanager
def operation_sessions(limit: int = SESSIONS_PER_OPERATION) -> Iterator[None]:
    """Within this block (one operation), at most ``limit`` sessions at once."""
    token = _SHARE.set(asyncio.Semaphore(limit) if limit else None)
    try:
        yield
    finally:
        _SHARE.reset(token)


@contextlib.asynccontextmanager
async def session_slot() -> AsyncIterator[None]:
    """Held around every session the database layer opens."""
    share = _SHARE.get()
    if share is None or _HOLDING.get():
        yield
        return
    async with share:
        held = _HOLDING.set(True)
        try:
            yield
        finally:
            _HOLDING.reset(held)
