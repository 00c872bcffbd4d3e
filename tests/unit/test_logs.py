"""The JSON log format, and which errors are logged how (a strawberry schema of our kind run
for real, no I/O)."""

from __future__ import annotations

import json
import logging

import pytest
import strawberry

from graph_memory import request_trace
from graph_memory.errors import NotFound
from graph_memory.graphql.errors import ErrorCodes, LoggedSchema
from graph_memory.logs import JsonFormatter, configure


@strawberry.type
class Query:
    @strawberry.field
    def boom(self) -> int:
        raise RuntimeError("a bug of ours")

    @strawberry.field
    def missing(self) -> int:
        raise NotFound("no such fact")


schema = LoggedSchema(query=Query, extensions=[ErrorCodes])


async def run(query: str, caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    trace = request_trace.RequestTrace("req-7", tenant="acme", operation="boom")
    token = request_trace.use(trace)
    try:
        with caplog.at_level(logging.DEBUG):
            caplog.clear()
            result = await schema.execute(query)
    finally:
        request_trace.reset(token)
    assert result.errors
    return [r for r in caplog.records if r.name.startswith(("graph_memory", "strawberry"))]


async def test_a_fault_of_ours_is_one_error_with_its_traceback_and_request_id(
    caplog: pytest.LogCaptureFixture,
) -> None:
    trace = request_trace.RequestTrace("req-7", tenant="acme", operation="boom")
    token = request_trace.use(trace)
    try:
        with caplog.at_level(logging.DEBUG):
            caplog.clear()
            result = await schema.execute("{ boom }")
            lines = [json.loads(JsonFormatter().format(r)) for r in caplog.records]
    finally:
        request_trace.reset(token)
    assert result.errors and result.errors[0].message == "Internal error"
    errors = [x for x in lines if x["level"] == "ERROR"]
    assert len(errors) == 1, lines
    assert errors[0]["request_id"] == "req-7"
    assert errors[0]["tenant"] == "acme" and errors[0]["operation"] == "boom"
    assert "RuntimeError: a bug of ours" in errors[0]["exc"]


@pytest.mark.parametrize("query", ["{ missing }", "{ noSuchField }", "{ boom(x: 1) }"])
async def test_a_client_error_is_debug_without_traceback(
    query: str, caplog: pytest.LogCaptureFixture
) -> None:
    records = await run(query, caplog)
    assert records, "the error is still logged, at DEBUG"
    assert all(r.levelno == logging.DEBUG for r in records)
    assert all(r.exc_info is None for r in records)


def test_the_format_is_one_json_object_with_extra_fields() -> None:
    record = logging.makeLogRecord(
        {
            "name": "graph_memory.request",
            "levelno": 20,
            "levelname": "INFO",
            "msg": "request",
            "status": 200,
            "duration_ms": 1.5,
            "color_message": "\x1b[1mrequest\x1b[0m",
        }
    )
    line = json.loads(JsonFormatter().format(record))
    assert line == {
        "ts": line["ts"],
        "level": "INFO",
        "logger": "graph_memory.request",
        "message": "request",
        "pid": line["pid"],
        "status": 200,
        "duration_ms": 1.5,
    }
    assert line["ts"].endswith("+00:00")
    assert isinstance(line["pid"], int)


def test_configure_sets_one_json_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    try:
        monkeypatch.setenv("GRAPH_MEMORY_LOG_LEVEL", "warning")
        configure()
        assert len(root.handlers) == 1
        assert isinstance(root.handlers[0].formatter, JsonFormatter)
        assert root.level == logging.WARNING
        assert logging.getLogger("uvicorn.access").propagate
        monkeypatch.setenv("GRAPH_MEMORY_LOG_LEVEL", "chatty")
        with pytest.raises(SystemExit, match="GRAPH_MEMORY_LOG_LEVEL"):
            configure()
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
