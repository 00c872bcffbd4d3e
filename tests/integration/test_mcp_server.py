"""`graph-memory mcp` end to end: the SDK's own client (mcp.ClientSession) over stdio and over
streamable HTTP, against `graph-memory mcp` run as a real process in front of the real
service. What an agent sees: the tools, their results, and the service's rules (tenant from the
key, forget for admins only) coming back as tool errors."""

from __future__ import annotations

import base64
import json
import os
import re
import select
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact
from tests.integration.test_session_tokens import mint

KeyFactory = Callable[..., str]
TOOLS = {"remember", "recall", "context", "history", "forget", "ingest", "ingest_status"}


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "graph_memory.cli", "mcp", *args]


@asynccontextmanager
async def stdio_session(url: str, key: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=_cli("--url", url, "--api-key", key)[1:],
        env={"PATH": os.environ.get("PATH", ""), "GRAPH_MEMORY_API_KEY": ""},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def mcp_http(server: str, make_key: KeyFactory, tenant: str) -> Iterator[str]:
    """`graph-memory mcp --transport http`, bound to an agent key of the test's tenant."""
    port = _free_port()
    proc = subprocess.Popen(
        _cli(
            "--transport",
            "http",
            "--port",
            str(port),
            "--url",
            server,
            "--api-key",
            make_key(tenant, "agent"),
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(url, timeout=1)
            break
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                err = proc.stderr.read() if proc.stderr else b""
                raise RuntimeError(f"mcp http did not start: {err!r}") from None
            time.sleep(0.1)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@asynccontextmanager
async def http_session(
    url: str, key: str | None = None, headers: list[tuple[str, str]] | None = None
) -> AsyncIterator[ClientSession]:
    """An MCP client session; ``key`` goes as a Bearer header, ``headers`` as given."""
    sent = [("Authorization", f"Bearer {key}")] if key else []
    async with (
        httpx.AsyncClient(headers=sent + (headers or []), timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def data(result: CallToolResult) -> Any:
    assert not result.isError, result.content
    assert result.structuredContent is not None
    return result.structuredContent


def error_text(result: CallToolResult) -> str:
    assert result.isError
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


MOVE = {
    "user_id": "alice",
    "summary": "Alice said she moved from Paris to Berlin in January and now works at Acme.",
    "started_at": "2026-03-01T10:00:00Z",
    "facts": [
        {
            "subject": "alice",
            "predicate": "lives_in",
            "object": "Berlin",
            "valid_from": "2026-01-01T00:00:00Z",
        },
        {"subject": "alice", "predicate": "works_at", "object": "Acme"},
    ],
}


async def test_stdio_agent_remembers_recalls_and_reads_history(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    async with stdio_session(server, make_key(tenant, "agent")) as s:
        assert {t.name for t in (await s.list_tools()).tools} == TOOLS
        first = data(await s.call_tool("remember", MOVE))
        assert (first["accepted"], first["rejected"]) == (2, 0)
        assert all(f["ok"] for f in first["facts"])

        found = data(
            await s.call_tool("recall", {"query": "where does alice live?", "user_id": "alice"})
        )
        assert "Berlin" in found["items"][0]["text"]
        assert first["episodeId"] in found["items"][0]["episodes"]

        ctx = data(
            await s.call_tool(
                "context", {"query": "plan alice's trip", "user_id": "alice", "token_budget": 200}
            )
        )
        assert "Berlin" in ctx["text"] and ctx["tokens"] <= 200

        await s.call_tool(
            "remember",
            {
                "user_id": "alice",
                "summary": "Alice told us she has moved on to Munich in May.",
                "started_at": "2026-05-10T09:00:00Z",
                "facts": [
                    {
                        "subject": "alice",
                        "predicate": "lives_in",
                        "object": "Munich",
                        "valid_from": "2026-05-01T00:00:00Z",
                    }
                ],
            },
        )
        hist = data(
            await s.call_tool(
                "history", {"subject": "alice", "predicate": "lives_in", "user_id": "alice"}
            )
        )
        assert [v["object"] for v in hist["versions"]] == ["Berlin", "Munich"]
        then = data(
            await s.call_tool(
                "recall",
                {
                    "query": "where does alice live?",
                    "user_id": "alice",
                    "valid_at": "2026-02-01T00:00:00Z",
                },
            )
        )
        assert "Berlin" in then["items"][0]["text"]


async def test_stdio_a_bad_fact_is_reported_and_its_siblings_land(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    facts = [
        {"subject": "bob", "predicate": "likes", "object": "tea"},
        {
            "subject": "bob",
            "predicate": "lives_in",
            "object": "Oslo",
            "valid_from": "2026-02-01T00:00:00Z",
            "valid_to": "2025-01-01T00:00:00Z",
        },
    ]
    async with stdio_session(server, make_key(tenant, "agent")) as s:
        out = data(
            await s.call_tool(
                "remember",
                {
                    "user_id": "bob",
                    "summary": "Bob said he likes tea and mentioned Oslo.",
                    "facts": facts,
                },
            )
        )
        assert (out["accepted"], out["rejected"]) == (1, 1)
        bad = out["facts"][1]
        assert not bad["ok"] and bad["error"]["code"] == "VALIDATION"


async def test_stdio_remember_is_one_call_refused_whole_and_idempotent_under_a_key(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    key = make_key(tenant, "agent")
    many = [{"subject": "dora", "predicate": "likes", "object": f"tea {i}"} for i in range(1001)]
    dora = {"user_id": "dora", "summary": "Dora listed every tea she likes, one by one."}
    async with stdio_session(server, key) as s:
        refused = error_text(await s.call_tool("remember", {**dora, "facts": many}))
        assert "VALIDATION" in refused
        first = data(
            await s.call_tool("remember", {**dora, "facts": many[:2], "idempotency_key": "dora-s1"})
        )
        again = data(
            await s.call_tool("remember", {**dora, "facts": many[:2], "idempotency_key": "dora-s1"})
        )
    assert first["accepted"] == 2 and again == first
    with GraphMemoryClient(server, key) as c:
        eps = c.execute('{ episodes(scopes: ["user:dora"]) { id } }')["episodes"]
    assert [e["id"] for e in eps] == [first["episodeId"]]


async def test_stdio_recall_with_k_out_of_range_says_the_documented_bound(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    async with stdio_session(server, make_key(tenant, "agent")) as s:
        for k in (0, 101, 100_000):
            refused = error_text(await s.call_tool("recall", {"query": "anything", "k": k}))
            assert "VALIDATION" in refused and "k must be in 1..100" in refused, (k, refused)


async def test_stdio_forget_is_refused_for_an_agent_key(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    async with stdio_session(server, make_key(tenant, "agent")) as s:
        data(await s.call_tool("remember", MOVE))
        refused = error_text(await s.call_tool("forget", {"user_id": "alice"}))
        assert refused.startswith("forget failed: FORBIDDEN: ") and "admin" in refused, refused
        still = data(
            await s.call_tool("recall", {"query": "where does alice live?", "user_id": "alice"})
        )
        assert still["items"]


async def test_stdio_every_failed_call_reads_tool_failed_code_why(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    # The service's refusals too, which the SDK prefixed with "Error executing tool <name>: ".
    async with stdio_session(server, make_key(tenant, "agent")) as s:
        for tool, args, starts in (
            ("recall", {"query": "q", "scopes": ["galaxy:far"]}, "VALIDATION: bad scope"),
            ("recall", {"query": "", "user_id": "alice"}, "VALIDATION: query is empty"),
            (
                "remember",
                {"user_id": "alice", "summary": "a naive start", "started_at": "2026-03-01T10:00"},
                "VALIDATION: startedAt must carry a timezone",
            ),
            ("ingest_status", {"job_id": "job_none"}, "NOT_FOUND: no ingest job"),
            ("forget", {"user_id": "alice"}, "FORBIDDEN: "),
            ("no_such_tool", {}, "NOT_FOUND: no tool 'no_such_tool'"),
        ):
            refused = error_text(await s.call_tool(tool, args))
            assert refused.startswith(f"{tool} failed: {starts}"), refused
            assert re.fullmatch(rf"{tool} failed: [A-Z_]+: \S.*", refused, re.DOTALL), refused


async def test_stdio_a_wrong_key_is_a_clear_tool_error(server: str) -> None:
    async with stdio_session(server, "gm_not_a_key") as s:
        assert "UNAUTHENTICATED" in error_text(await s.call_tool("recall", {"query": "anything"}))


def test_stdio_without_a_key_exits_with_a_hint(server: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRAPH_MEMORY_API_KEY"}
    out = subprocess.run(
        _cli("--url", server), capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert out.returncode == 2 and "--api-key" in out.stderr and out.stdout == ""


async def test_http_agent_remembers_and_recalls(mcp_http: str) -> None:
    async with http_session(mcp_http) as s:
        assert {t.name for t in (await s.list_tools()).tools} == TOOLS
        out = data(await s.call_tool("remember", MOVE))
        assert out["accepted"] == 2
        found = data(
            await s.call_tool("recall", {"query": "where does alice work?", "user_id": "alice"})
        )
        assert any("Acme" in i["text"] for i in found["items"])


def _tools_call(arguments: bytes, id_: int = 7) -> bytes:
    return (
        b'{"jsonrpc": "2.0", "id": %d, "method": "tools/call", '
        b'"params": {"name": "recall", "arguments": %s}}' % (id_, arguments)
    )


async def test_http_a_malformed_body_is_a_json_rpc_400_and_the_server_serves_on(
    mcp_http: str,
) -> None:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    bodies = {
        "not UTF-8": _tools_call(b'{"query": "\xff\xfe"}'),
        "3,000 deep": _tools_call(b'{"query": "q", "scopes": ' + b"[" * 3000 + b"]" * 3000 + b"}"),
        "a lone surrogate": _tools_call(b'{"query": "\\ud800"}'),
        "not JSON": b'{"jsonrpc": "2.0", "id": 7, "method": ',
        # Python refuses to convert an integer of more than 4300 digits (a quadratic-time
        # guard): the body is refused, not an ASGI 500.
        "a 5,000-digit id": b'{"jsonrpc": "2.0", "id": '
        + b"1" * 5000
        + b', "method": "tools/list"}',
    }
    async with httpx.AsyncClient(timeout=30) as http:
        for what, body in bodies.items():
            r = await http.post(mcp_http, content=body, headers=headers)
            assert r.status_code == 400, (what, r.status_code, r.text)
            out = r.json()
            assert out["jsonrpc"] == "2.0" and out["error"]["code"] == -32700, (what, out)
            assert out["error"]["data"]["code"] == "VALIDATION", (what, out)
            assert out["id"] == (None if what == "a 5,000-digit id" else 7), (what, out)
    async with http_session(mcp_http) as s:
        out = data(await s.call_tool("remember", MOVE))
        assert out["accepted"] == 2


# Ids no MCP request may carry (a string or an integer only): the SDK read a request with one
# as a notification, since it has a method and no id the SDK accepts, and never answered it.
NO_REQUEST_IDS = [b'{"a": 1}', b"[1]", b"1.5", b"true", b"null"]


async def test_http_a_request_whose_id_is_no_json_rpc_id_is_a_json_rpc_400(mcp_http: str) -> None:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as http:
        for id_ in NO_REQUEST_IDS:
            body = b'{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % id_
            r = await http.post(mcp_http, content=body, headers=headers)
            assert r.status_code == 400, (id_, r.status_code, r.text)
            out = r.json()
            assert out["id"] is None and out["error"]["code"] == -32600, (id_, out)
            assert out["error"]["data"]["code"] == "VALIDATION", (id_, out)


def _peak_rss_kb(pid: int) -> int:
    """The process's peak resident memory so far (Linux), in KiB."""
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmHWM:"):
            return int(row.split()[1])
    raise AssertionError("no VmHWM")


@contextmanager
def _stdio_lines() -> Iterator[tuple[subprocess.Popen[bytes], Callable[[bytes], dict[str, Any]]]]:
    """`graph-memory mcp` over stdio, initialized, and a function that writes one line and
    reads the next line out (an answer must come within 30 s); the server must exit cleanly
    when its stdin closes."""
    proc = subprocess.Popen(
        _cli("--url", f"http://127.0.0.1:{_free_port()}/graphql", "--api-key", "gm_unused"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout

    def ask(line: bytes) -> dict[str, Any]:
        stdin.write(line + b"\n")
        stdin.flush()
        ready, _, _ = select.select([stdout], [], [], 30)
        assert ready, f"no answer to {line[:80]!r}"
        answer: dict[str, Any] = json.loads(stdout.readline())
        return answer

    try:
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
        assert "result" in ask(json.dumps(init).encode())
        stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        yield proc, ask
    finally:
        stdin.close()
        assert proc.wait(timeout=30) == 0


def test_stdio_a_line_the_sdk_cannot_parse_is_answered_and_the_server_reads_on() -> None:
    # The SDK's stdio transport only logs such a line: the client waited for good.
    def call(id_: int, arguments: bytes) -> bytes:
        return _tools_call(arguments, id_)

    with _stdio_lines() as (proc, ask):
        assert proc.stdin is not None
        stdin = proc.stdin
        lines = {
            "a lone surrogate": (call(2, b'{"query": "x \\ud800 y"}'), 2, -32700),
            "3,000 deep": (
                call(3, b'{"query": "q", "scopes": ' + b"[" * 3000 + b"]" * 3000 + b"}"),
                3,
                -32700,
            ),
            "a 5,000-digit integer": (
                call(4, b'{"query": "q", "k": ' + b"9" * 5000 + b"}"),
                4,
                -32700,
            ),
            "not UTF-8": (call(5, b'{"query": "\xff\xfe"}'), 5, -32700),
            "not JSON": (b"this is not json", None, -32700),
            "no JSON-RPC message": (b'{"id": 6, "hello": "there"}', 6, -32600),
        }
        for what, (line, id_, code) in lines.items():
            out = ask(line)
            assert out["jsonrpc"] == "2.0" and out["id"] == id_, (what, out)
            assert out["error"]["code"] == code, (what, out)
            assert out["error"]["data"]["code"] == "VALIDATION", (what, out)
        # A line past the body bound (2 MiB) is refused with the id it starts with, and the
        # server never holds it whole: 64 MiB without a newline until the end costs it no
        # more than a few chunks of memory.
        peak = _peak_rss_kb(proc.pid)
        huge = call(8, b'{"query": "' + b"x" * (64 << 20) + b'"}')
        out = ask(huge)
        assert out["id"] == 8 and out["error"]["data"]["code"] == "PAYLOAD_TOO_LARGE", out
        assert _peak_rss_kb(proc.pid) - peak < 16 << 10, (peak, _peak_rss_kb(proc.pid))
        # The TypeScript SDK writes the id last: past the kept start, it is answered with id
        # null rather than taken for a notification.
        late = (
            b'{"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "recall", '
            b'"arguments": {"query": "' + b"y" * (3 << 20) + b'"}}, "id": 9}'
        )
        out = ask(late)
        assert out["id"] is None and out["error"]["data"]["code"] == "PAYLOAD_TOO_LARGE", out
        # A refused notification, or a refused response of the client's (its id numbers the
        # client's own requests), gets no answer: the next line out answers tools/list.
        stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/x", "params": "\\ud800"}\n')
        stdin.write(b'{"jsonrpc": "2.0", "id": 7, "result": {"q": "\\ud800"}}\n')
        listed = ask(b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}')
        assert listed["id"] == 7 and {t["name"] for t in listed["result"]["tools"]} == TOOLS


def test_stdio_a_request_whose_id_is_no_json_rpc_id_is_answered_and_the_server_reads_on() -> None:
    with _stdio_lines() as (_, ask):
        for id_ in NO_REQUEST_IDS:
            out = ask(b'{"jsonrpc": "2.0", "id": %s, "method": "ping"}' % id_)
            assert out["id"] is None and out["error"]["code"] == -32600, (id_, out)
            assert out["error"]["data"]["code"] == "VALIDATION", (id_, out)
        listed = ask(b'{"jsonrpc": "2.0", "id": "x", "method": "tools/list"}')
        assert listed["id"] == "x" and {t["name"] for t in listed["result"]["tools"]} == TOOLS


async def test_http_a_request_key_replaces_the_bound_one(
    mcp_http: str, make_key: KeyFactory, tenant: str
) -> None:
    async with http_session(mcp_http) as s:
        data(await s.call_tool("remember", MOVE))
    # Another tenant's key sees nothing of this tenant's memory through the same endpoint.
    other = f"t-{uuid.uuid4().hex[:10]}"
    async with http_session(mcp_http, make_key(other, "agent")) as s:
        found = data(
            await s.call_tool("recall", {"query": "where does alice live?", "user_id": "alice"})
        )
        assert found["items"] == []
    # An admin key of the tenant may forget; the bound agent key then recalls nothing.
    async with http_session(mcp_http, make_key(tenant, "admin")) as s:
        receipt = data(await s.call_tool("forget", {"user_id": "alice"}))
        assert receipt["episodesDeleted"] == 1 and receipt["factVersionsDeleted"] == 2
    async with http_session(mcp_http) as s:
        gone = data(
            await s.call_tool("recall", {"query": "where does alice live?", "user_id": "alice"})
        )
        assert gone["items"] == []
        assert "FORBIDDEN" in error_text(await s.call_tool("forget", {"user_id": "alice"}))


async def test_http_a_session_tokens_recall_serves_past_a_link_it_may_not_read(
    mcp_http: str, server: str, make_key: KeyFactory, tenant: str
) -> None:
    with GraphMemoryClient(server, make_key(tenant, "agent")) as key:
        lunch = "Bob says the cafeteria serves lunch at noon daily."
        bob = key.record_episode(**episode("bob", summary=lunch))
        said = fact("cafeteria", "lunch_time", "noon", [bob], scope="tenant", cardinality="ONE")
        assert key.assert_facts([said])["accepted"] == 1
        token = mint(key)["token"]
    async with http_session(mcp_http, token) as s:
        out = data(
            await s.call_tool(
                "recall", {"query": "when is lunch served in the cafeteria", "user_id": "alice"}
            )
        )
    assert [i["text"] for i in out["items"] if "noon" in i["text"]], out
    assert all(bob not in i["episodes"] for i in out["items"]), out


def test_tools_describe_their_arguments() -> None:
    from graph_memory.integrations.mcp_server import McpConfig, build_server
    from graph_memory.policy import DEFAULT_POLICY
    from graph_memory.services.recall.context_pack import MAX_BUDGET
    from graph_memory.services.recall.request import MAX_K

    server = build_server(McpConfig(url="http://127.0.0.1:1/graphql", api_key="gm_x"))
    tools = {t.name: t for t in server._tool_manager.list_tools()}
    remember = tools["remember"].parameters
    assert remember["required"] == ["user_id", "summary"]
    assert "ctx" not in remember["properties"]
    fact = json.dumps(remember)
    assert "valid_from" in fact and "predicate" in fact
    undescribed = [
        f"{name}.{arg}"
        for name, tool in tools.items()
        for arg, prop in tool.parameters["properties"].items()
        if not prop.get("description")
    ]
    assert undescribed == []
    source = remember["properties"]["source"]["description"]
    assert all(s in source for s in DEFAULT_POLICY.source_tiers), source
    # The ranges the descriptions state are the ones the service enforces.
    assert f"1..{MAX_K}" in tools["recall"].parameters["properties"]["k"]["description"]
    budget = tools["context"].parameters["properties"]["token_budget"]["description"]
    assert f"1..{MAX_BUDGET}" in budget
    assert "offset" in remember["properties"]["started_at"]["description"]


async def test_stdio_bad_arguments_are_a_validation_error_naming_each(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    async with stdio_session(server, make_key(tenant, "agent")) as s:
        for args, says in (
            ({"query": "q", "k": True}, "argument 'k': must be an integer, not a boolean"),
            ({"query": "q", "k": "five"}, "argument 'k': "),
            ({"query": "q", "as_of": "yesterday"}, "argument 'as_of': "),
            ({"k": 3}, "argument 'query' is required"),
            # An empty list is no scope to read, not the default ones.
            ({"query": "q", "scopes": []}, "at least one scope"),
        ):
            refused = error_text(await s.call_tool("recall", args))
            assert refused.startswith("recall failed: VALIDATION: "), refused
            assert says in refused and "pydantic" not in refused, refused
        refused = error_text(await s.call_tool("context", {"query": "q", "token_budget": False}))
        assert "VALIDATION: argument 'token_budget': must be an integer" in refused, refused
        refused = error_text(
            await s.call_tool(
                "remember",
                {
                    "user_id": "alice",
                    "summary": "Alice said something worth keeping today.",
                    "outcome": "MEH",
                    "facts": [{"predicate": "likes", "object": "tea"}],
                },
            )
        )
        assert "argument 'facts[0].subject' is required" in refused, refused
        assert "argument 'outcome': Input should be 'SUCCESS'" in refused, refused


async def test_stdio_an_unreachable_service_is_unavailable_naming_its_url_only() -> None:
    url = f"http://someone:hunter2@127.0.0.1:{_free_port()}/graphql?token=t0ps3cret"
    async with stdio_session(url, "gm_do_not_show_me") as s:
        refused = error_text(await s.call_tool("recall", {"query": "anything"}))
    assert refused.startswith("recall failed: UNAVAILABLE: "), refused
    assert f"{url.split('@')[1].split('?')[0]}" in refused, refused
    for secret in ("hunter2", "someone", "t0ps3cret", "gm_do_not_show_me"):
        assert secret not in refused, refused


async def test_http_an_x_api_key_is_honoured_as_a_bearer_is(
    mcp_http: str, server: str, make_key: KeyFactory, tenant: str
) -> None:
    async with http_session(mcp_http) as s:
        data(await s.call_tool("remember", MOVE))
    other = f"t-{uuid.uuid4().hex[:10]}"
    other_key = make_key(other, "agent")
    # Another tenant's key in X-Api-Key reads and writes that tenant, never the bound key's.
    async with http_session(mcp_http, headers=[("X-Api-Key", other_key)]) as s:
        found = data(
            await s.call_tool("recall", {"query": "where does alice live?", "user_id": "alice"})
        )
        assert found["items"] == []
        wrote = data(
            await s.call_tool(
                "remember",
                {
                    "user_id": "alice",
                    "summary": "Alice said she lives in Lisbon now and loves it there.",
                    "facts": [{"subject": "alice", "predicate": "lives_in", "object": "Lisbon"}],
                },
            )
        )
        assert wrote["accepted"] == 1
    with GraphMemoryClient(server, other_key) as c:
        mine = c.history("alice", "lives_in", ["user:alice"])
    assert [v["object"] for v in mine["versions"]] == ["Lisbon"]
    async with http_session(mcp_http) as s:
        bound = data(
            await s.call_tool(
                "history", {"subject": "alice", "predicate": "lives_in", "user_id": "alice"}
            )
        )
    assert [v["object"] for v in bound["versions"]] == ["Berlin"]


async def test_http_a_credential_in_a_form_not_accepted_is_refused_401(
    mcp_http: str, make_key: KeyFactory, tenant: str
) -> None:
    async with http_session(mcp_http) as s:
        data(await s.call_tool("remember", MOVE))
    mine, other = make_key(tenant, "agent"), make_key(f"t-{uuid.uuid4().hex[:10]}", "agent")
    basic = "Basic " + base64.b64encode(b"alice:pw").decode()
    cases: dict[str, tuple[list[tuple[str, str]], str]] = {
        "Basic": ([("Authorization", basic)], "'Basic' is not accepted"),
        "a bare key": ([("Authorization", other)], "is not 'Bearer <key>'"),
        "an empty Bearer": ([("Authorization", "Bearer")], "holds no key"),
        "an empty X-Api-Key": ([("X-Api-Key", "")], "X-Api-Key header is empty"),
        "two X-Api-Keys": ([("X-Api-Key", other), ("X-Api-Key", mine)], "exactly one"),
        "Bearer and X-Api-Key": (
            [("Authorization", f"Bearer {mine}"), ("X-Api-Key", other)],
            "exactly one",
        ),
    }
    for what, (headers, says) in cases.items():
        refusals: list[httpx.Response] = []

        async def keep(response: httpx.Response) -> None:
            if response.status_code == 401:
                await response.aread()
                refusals.append(response)  # noqa: B023 - read within this iteration

        with pytest.raises(ExceptionGroup) as refused:
            async with (
                httpx.AsyncClient(
                    headers=headers, timeout=30, event_hooks={"response": [keep]}
                ) as http,
                streamable_http_client(mcp_http, http_client=http) as (read, write, _),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await session.call_tool("recall", {"query": "where does alice live?"})
        # The client sees the 401 (never a session run as the bound key), with why in its body.
        assert refused.group_contains(httpx.HTTPStatusError), (what, refused.value)
        assert refusals, (what, refused.value)
        body = refusals[0].json()
        assert refusals[0].headers["www-authenticate"] == "Bearer", what
        assert body["error"]["data"]["code"] == "UNAUTHENTICATED", (what, body)
        assert says in body["error"]["message"], (what, body)
        assert other not in body["error"]["message"] and mine not in body["error"]["message"]
