"""The MCP stdio transport, with every line held to the body rules before the SDK reads it.

The SDK's own transport (``mcp.server.stdio.stdio_server``) hands a line it cannot parse (a
lone surrogate escape, arrays 3,000 deep, a 5,000-digit integer, or no JSON at all) to the
session as an exception, which only logs "Internal Server Error": the request is never
answered and the client waits for good. Here such a line is answered with a JSON-RPC error
(graph_memory/integrations/mcp_refusals.py, the HTTP transport's rules and wording) carrying
the request's id when it can be recovered, and the server reads on. A line that is JSON but no
JSON-RPC message the SDK knows, or a request whose id is no JSON-RPC id (which the SDK reads
as a notification), is answered likewise (-32600, ``VALIDATION``).

A line is read in chunks and never held past ``max_body_bytes``: a longer one is skipped to its
end and refused (``PAYLOAD_TOO_LARGE``, with the id its first bytes carry), so a client that
sends a gigabyte without a newline costs the server a chunk's memory, not a gigabyte's.

This is the SDK's transport otherwise: the same message types, one line a message, UTF-8.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import mcp.types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.server.fastmcp import FastMCP
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from graph_memory.http_guard import Refusal
from graph_memory.integrations.mcp_refusals import (
    InvalidRequest,
    check_message,
    expects_answer,
    refusal_message,
    request_id,
    too_large,
)
from graph_memory.limits import Limits

__all__ = ["guarded_stdio", "serve_stdio"]

log = logging.getLogger(__name__)

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


# Bytes read at a time; the first bytes of a line too long to take are kept to answer it with
# its id (a JSON-RPC message names it near the start).
_CHUNK = 64 * 1024
_HEAD = 4 * 1024


@dataclass(frozen=True)
class _TooLong:
    """A line longer than the limit, skipped: its first bytes only."""

    head: bytes


async def _lines(source: anyio.AsyncFile[bytes], limit: int) -> AsyncIterator[bytes | _TooLong]:
    """The lines of ``source`` (without their newline), each at most ``limit`` bytes held; a
    longer one comes as `_TooLong` once its end was read past."""
    line = bytearray()
    head: bytes | None = None  # set while a line too long is skipped
    while chunk := await source.read1(_CHUNK):  # what is there: a pipe need not fill it
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if head is None:
                line += chunk[start:] if end < 0 else chunk[start:end]
                if len(line) > limit:
                    head = bytes(line[:_HEAD])
                    line.clear()
            if end < 0:
                break
            if head is not None:
                yield _TooLong(head)
                head = None
            else:
                yield bytes(line)
                line.clear()
            start = end + 1
    if head is not None:
        yield _TooLong(head)
    elif line:
        yield bytes(line)


@asynccontextmanager
async def guarded_stdio(
    limits: Limits,
    stdin: anyio.AsyncFile[bytes] | None = None,
    stdout: anyio.AsyncFile[bytes] | None = None,
) -> AsyncIterator[Streams]:
    """The session's read and write streams over stdin and stdout (binary: a line that is not
    UTF-8 is refused, as an HTTP body is, rather than read with replacement characters)."""
    source = stdin or anyio.wrap_file(sys.stdin.buffer)
    sink = stdout or anyio.wrap_file(sys.stdout.buffer)
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    lock = anyio.Lock()  # the session's answers and the refusals share one stdout

    async def emit(line: str) -> None:
        async with lock:
            await sink.write(line.encode("utf-8") + b"\n")
            await sink.flush()

    async def refuse(line: bytes, r: Refusal, whole: bool = True) -> None:
        if not expects_answer(line, whole):  # a notification, or a response of the client's
            log.warning("mcp stdio: a message refused unanswered: %s: %s", r.code, r.message)
            return
        answer = refusal_message(r, request_id(line))
        await emit(json.dumps(answer, ensure_ascii=False))

    async def reader() -> None:
        async with read_writer:
            async for line in _lines(source, limits.max_body_bytes):
                if isinstance(line, _TooLong):
                    await refuse(line.head, too_large(limits), whole=False)
                    continue
                if not line.strip():
                    continue
                try:
                    check_message(line, limits)
                except Refusal as r:
                    await refuse(line, r)
                    continue
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except ValidationError:
                    why = "the message is no JSON-RPC request, notification or response"
                    await refuse(line, InvalidRequest(400, "VALIDATION", why))
                    continue
                await read_writer.send(SessionMessage(message))

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                await emit(
                    session_message.message.model_dump_json(by_alias=True, exclude_none=True)
                )

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        yield read_stream, write_stream


async def serve_stdio(server: FastMCP, limits: Limits) -> None:
    """``server.run("stdio")``, over `guarded_stdio`."""
    lowlevel: Any = server._mcp_server  # the SDK's own run_stdio_async does the same
    async with guarded_stdio(limits) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
