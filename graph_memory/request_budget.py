"""A read's time budget, and its end when the client goes away.

A read whose client has disconnected (an agent that timed out, a closed tab) would otherwise
run to the end of its budget for nobody. The read runs as a task next to a watcher of the
ASGI ``receive`` channel: whichever ends first, the budget, the client or the read, decides.
Cancelling the task cancels the driver's awaits, which closes their Bolt connections, and
Neo4j ends a transaction whose connection closed: the database stops working on it too
(tests/integration/test_request_cancellation.py watches ``SHOW TRANSACTIONS``).

Mutations are not run through this: one cancelled between two of its transactions would be
half applied; their batch limits bound them instead.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, TypeVar

__all__ = ["ClientGone", "bounded"]

T = TypeVar("T")
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class ClientGone(Exception):
    """The client disconnected before the answer was ready."""


async def _until_disconnected(receive: Receive) -> None:
    # The body has been read whole before the read starts: what remains on the channel is
    # the disconnect (uvicorn sends it when the connection drops, or once the response is
    # complete, by which time this watcher is gone).
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def _cancel(task: asyncio.Future[Any]) -> None:
    task.cancel()
    with contextlib.suppress(BaseException):
        await task


async def bounded(work: Awaitable[T], receive: Receive, seconds: float) -> T:
    """``work``'s result; raises TimeoutError past ``seconds`` and ClientGone when the client
    disconnects first, ``work`` cancelled in both cases."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_until_disconnected(receive))
    try:
        done, _ = await asyncio.wait(
            {task, watcher}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done:
            return task.result()
        await _cancel(task)
        if watcher in done:
            raise ClientGone
        raise TimeoutError
    finally:
        # Also when this coroutine itself is cancelled (server shutdown): nothing left behind.
        if not task.done():
            await _cancel(task)
        if not watcher.done():
            await _cancel(watcher)
