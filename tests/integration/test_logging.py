"""`graph-memory serve` logs one JSON object a line: request id, tenant, operation and
duration on each request's line; a client's errors at INFO or below without a traceback."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.integration.conftest import episode
from tests.integration.serve_process import Served, serve_process


def log_lines(served: Served) -> list[dict[str, Any]]:
    parsed = []
    for line in served.log.read_text().splitlines():
        assert line.startswith("{"), f"not a JSON line: {line!r}"
        parsed.append(json.loads(line))
    return parsed


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, server: str) -> Iterator[Served]:
    del server  # a migrated store
    log = tmp_path_factory.mktemp("serve") / "stderr.log"
    with serve_process(log, GRAPH_MEMORY_LOG_LEVEL="INFO") as running:
        yield running


def post(
    url: str,
    key: str,
    query: str,
    variables: dict[str, Any] | None = None,
    request_id: str | None = None,
) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"}
    if request_id:
        headers["X-Request-Id"] = request_id
    return httpx.post(url, json={"query": query, "variables": variables or {}}, headers=headers)


def request_line(served: Served, request_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        found = [
            x
            for x in log_lines(served)
            if x.get("request_id") == request_id and x["message"] == "request"
        ]
        if found:
            assert len(found) == 1, found
            return found[0]
        if time.monotonic() > deadline:
            raise AssertionError(f"no request line for {request_id}: {log_lines(served)[-5:]}")
        time.sleep(0.1)


RECORD = """mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok id } }"""


def test_each_request_has_one_structured_line(
    served: Served, make_key: Callable[..., str], tenant: str
) -> None:
    key = make_key(tenant)
    ep = episode()
    ep = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in ep.items()}
    resp = post(served.url, key, RECORD, {"e": [ep]}, request_id="write-1")
    assert resp.status_code == 200 and resp.json()["data"]["recordEpisodes"][0]["ok"], resp.text
    line = request_line(served, "write-1")
    assert line["level"] == "INFO"
    assert line["logger"] == "graph_memory.request"
    assert line["tenant"] == tenant
    assert line["operation"] == "recordEpisodes"
    assert line["kind"] == "mutation"
    assert line["status"] == 200
    assert line["duration_ms"] > 0
    assert line["neo4j_ms"] > 0 and line["neo4j_calls"] >= 1
    assert line["embed_ms"] > 0
    assert "errors" not in line
    assert line["ts"].endswith("+00:00")


def test_client_errors_are_info_without_a_traceback(
    served: Served, make_key: Callable[..., str], tenant: str
) -> None:
    key = make_key(tenant)
    missing = post(
        served.url, key, 'mutation { retractFact(id: "f_nope") { id } }', request_id="missing-1"
    )
    assert missing.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"
    bad = post(
        served.url,
        key,
        '{ recall(query: "x", scopes: ["no scope"]) { items { id } } }',
        request_id="bad-1",
    )
    assert bad.json()["errors"][0]["extensions"]["code"] == "VALIDATION"
    refused = post(
        served.url, "gm_not_a_key", "{ facts(scopes: []) { id } }", request_id="refused-1"
    )
    assert refused.status_code == 401

    assert request_line(served, "missing-1")["errors"] == ["NOT_FOUND"]
    assert request_line(served, "bad-1")["errors"] == ["VALIDATION"]
    refused_line = request_line(served, "refused-1")
    assert refused_line["errors"] == ["UNAUTHENTICATED"] and refused_line["status"] == 401
    assert "tenant" not in refused_line  # no key, no tenant
    ours = [
        x for x in log_lines(served) if x.get("request_id") in {"missing-1", "bad-1", "refused-1"}
    ]
    assert all(x["level"] in {"INFO", "DEBUG"} for x in ours), ours
    assert not any("exc" in x for x in ours), ours
    assert sum(len(json.dumps(x)) for x in ours) < 3_000  # was 3.6 KB for one NOT_FOUND


def test_every_line_is_json_from_start_up_on(served: Served) -> None:
    lines = log_lines(served)  # raises on any line that is not JSON
    assert any(x["logger"].startswith("uvicorn") for x in lines), lines[:5]
    assert all({"ts", "level", "logger", "message"} <= x.keys() for x in lines)
