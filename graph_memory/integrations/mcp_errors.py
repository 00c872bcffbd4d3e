"""How a failed MCP tool call reads: ``<tool> failed: <CODE>: <why>``, whatever failed,
written in one place (``GraphMemoryMCP.call_tool``).

The tools raise the service's errors (``GraphMemoryClientError``, ``"FORBIDDEN: ..."``) or a
``ToolError`` of their own written ``"<CODE>: <why>"``; the SDK would prefix either with
"Error executing tool <tool>: ". It reports two failures of its own as bare text: arguments
its model refuses (a pydantic dump with errors.pydantic.dev links) and a service it cannot
reach (httpx's "All connection attempts failed"). Those are typed here: ``VALIDATION`` naming
each argument, and ``UNAVAILABLE`` naming the service's URL as configured, without its
userinfo or query (where a credential could sit); the key itself is only ever in a header. An
unknown tool is ``NOT_FOUND``; anything else is ``INTERNAL``, its detail in the server's log.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import httpx
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ContentBlock
from pydantic import ValidationError

from graph_memory.client import GraphMemoryClientError, shown_url

__all__ = ["GraphMemoryMCP", "shown_url", "validation_message"]

_SHOWN_INPUT = 60
_log = logging.getLogger(__name__)


def _transport_error(e: BaseException | None) -> httpx.TransportError | None:
    """The transport error at the root of ``e``'s chain of causes, if any."""
    while e is not None:
        if isinstance(e, httpx.TransportError):
            return e
        e = e.__cause__
    return None


def _where(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def validation_message(e: ValidationError) -> str:
    """One clause per refused argument: ``argument 'k': must be ... (got true)``."""
    clauses = []
    for err in e.errors(include_url=False):
        if err["type"] == "missing":
            clauses.append(f"argument {_where(tuple(err['loc']))!r} is required")
            continue
        why = str(err["msg"]).removeprefix("Value error, ")
        got = ""
        if not isinstance(err.get("input"), dict | list):
            shown = json.dumps(err.get("input"), ensure_ascii=False, default=str)
            got = f" (got {shown[:_SHOWN_INPUT]}{'...' if len(shown) > _SHOWN_INPUT else ''})"
        clauses.append(f"argument {_where(tuple(err['loc']))!r}: {why}{got}")
    return "VALIDATION: " + "; ".join(clauses)


class GraphMemoryMCP(FastMCP):
    """FastMCP whose tool errors carry a code, with ``url`` the service the tools call."""

    def __init__(self, url: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._service_url = url

    async def call_tool(
        self, name: str, arguments: dict[str, Any]
    ) -> Sequence[ContentBlock] | dict[str, Any]:
        try:
            return await super().call_tool(name, arguments)
        except ToolError as e:
            # Raised here, outside the SDK's Tool.run, the text is the result's text as is:
            # the SDK's own "Error executing tool <name>: " prefix is dropped.
            raise ToolError(f"{name} failed: {self._why(name, e)}") from e.__cause__

    def _why(self, name: str, e: ToolError) -> str:
        """``<CODE>: <why>`` for a failed call; Tool.run wraps what the tool raised."""
        cause = e.__cause__
        if cause is None:  # the SDK's own refusal, not a tool's: the one it raises is this
            return f"NOT_FOUND: no tool {name!r}" if str(e) == f"Unknown tool: {name}" else str(e)
        # The SDK names its argument model "<tool>Arguments"; a ValidationError from
        # anywhere else is this server's own fault and reads as INTERNAL below.
        if isinstance(cause, ValidationError) and cause.title == f"{name}Arguments":
            return validation_message(cause)
        # The client raises UNAVAILABLE with the transport error as its cause (and the tool
        # may wrap that again); this message adds the server's own setting to check.
        transport = _transport_error(cause)
        if transport is not None:
            return (
                f"UNAVAILABLE: the graph_memory service at {shown_url(self._service_url)} "
                f"did not answer ({type(transport).__name__}: {transport or 'no detail'}); "
                "is it running there, and is --url (GRAPH_MEMORY_URL) right?"
            )
        # The service's errors ("CODE: message") and the tools' own ToolErrors, written so.
        if isinstance(cause, GraphMemoryClientError | ToolError):
            return str(cause)
        _log.error("tool %s failed unexpectedly", name, exc_info=cause)
        return f"INTERNAL: an unexpected {type(cause).__name__}; the server's log has it"
