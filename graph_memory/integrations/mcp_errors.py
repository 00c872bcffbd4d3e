"""How a failed MCP tool call reads: ``<tool> failed: <CODE>: <why>``, as the service's own
errors already do (``recall failed: FORBIDDEN: ...``).

The SDK reports two failures of its own as bare text: arguments its model refuses (a pydantic
dump with errors.pydantic.dev links) and a service it cannot reach (httpx's "All connection
attempts failed"). ``GraphMemoryMCP.call_tool`` types them: ``VALIDATION`` naming each
argument, and ``UNAVAILABLE`` naming the service's URL as configured, without its userinfo or
query (where a credential could sit); the key itself is only ever in a header.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import httpx
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ContentBlock
from pydantic import ValidationError

__all__ = ["GraphMemoryMCP", "shown_url", "validation_message"]

_SHOWN_INPUT = 60


def shown_url(url: str) -> str:
    """``url`` without userinfo, query or fragment."""
    try:
        return str(httpx.URL(url).copy_with(userinfo=b"", query=None, fragment=None))
    except httpx.InvalidURL:
        return "(an invalid URL)"


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
            cause = e.__cause__
            # The SDK names its argument model "<tool>Arguments"; a ValidationError from
            # anywhere else is this server's own fault and keeps the SDK's wording.
            if isinstance(cause, ValidationError) and cause.title == f"{name}Arguments":
                raise ToolError(f"{name} failed: {validation_message(cause)}") from cause
            if isinstance(cause, httpx.TransportError):
                raise ToolError(
                    f"{name} failed: UNAVAILABLE: the graph_memory service at "
                    f"{shown_url(self._service_url)} did not answer "
                    f"({type(cause).__name__}: {cause or 'no detail'}); is it running there, "
                    "and is --url (GRAPH_MEMORY_URL) right?"
                ) from cause
            raise
