"""Every failed MCP tool call reads ``<tool> failed: <CODE>: <why>``, whatever raised it, and
never with the SDK's "Error executing tool" prefix."""

from __future__ import annotations

import asyncio

import pytest
from mcp.server.fastmcp.exceptions import ToolError

from graph_memory.client import GraphMemoryClientError
from graph_memory.integrations.mcp_errors import GraphMemoryMCP


def _server() -> GraphMemoryMCP:
    mcp = GraphMemoryMCP("http://127.0.0.1:9/graphql", "test")

    @mcp.tool()
    async def service_refuses() -> str:
        raise GraphMemoryClientError([{"message": "no", "extensions": {"code": "FORBIDDEN"}}])

    @mcp.tool()
    async def tool_refuses() -> str:
        raise ToolError("UNAUTHENTICATED: no credential")

    @mcp.tool()
    async def breaks() -> str:
        values: dict[str, str] = {}
        return values["missing"]

    @mcp.tool()
    async def takes_an_int(k: int) -> int:
        return k

    return mcp


@pytest.mark.parametrize(
    ("tool", "arguments", "text"),
    [
        ("service_refuses", {}, "service_refuses failed: FORBIDDEN: no"),
        ("tool_refuses", {}, "tool_refuses failed: UNAUTHENTICATED: no credential"),
        ("breaks", {}, "breaks failed: INTERNAL: an unexpected KeyError; the server's log has it"),
        ("takes_an_int", {}, "takes_an_int failed: VALIDATION: argument 'k' is required"),
        ("no_such_tool", {}, "no_such_tool failed: NOT_FOUND: no tool 'no_such_tool'"),
    ],
)
def test_a_failed_call_reads_tool_failed_code_why(
    tool: str, arguments: dict[str, object], text: str
) -> None:
    with pytest.raises(ToolError) as failed:
        asyncio.run(_server().call_tool(tool, dict(arguments)))
    assert str(failed.value) == text
