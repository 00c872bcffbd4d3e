"""The MCP `ingest` and `ingest_status` tools end to end: mcp.ClientSession over stdio, the
real service with its own ingestion worker, a scripted OpenAI-compatible endpoint on loopback
(tests/integration/fake_llm.py), the real Neo4j."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from mcp import ClientSession

from graph_memory.settings import Settings
from tests.integration.fake_llm import FakeLLM
from tests.integration.ingest_helpers import llm_settings, moved_to_berlin, serve, session
from tests.integration.test_mcp_server import data, error_text, stdio_session

KeyFactory = Callable[..., str]


@pytest.fixture(scope="module")
def ingest_url(settings: Settings, fake: FakeLLM) -> Iterator[str]:
    yield from serve(llm_settings(settings, fake.url))  # with the app's own worker


def _turns(s: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"role": t["role"], "content": t["content"], "at": t["at"]} for t in s["turns"]]


async def _wait(s: ClientSession, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        job: dict[str, Any] = data(await s.call_tool("ingest_status", {"job_id": job_id}))
        if job["status"] not in ("QUEUED", "RUNNING") or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


async def test_an_agent_hands_over_a_session_and_follows_its_job(
    ingest_url: str, make_key: KeyFactory, fake: FakeLLM, tenant: str
) -> None:
    s = session()
    fake.script(s["sessionId"], moved_to_berlin())
    key = make_key(tenant, "agent")
    args = {"user_id": "alice", "session_id": s["sessionId"], "turns": _turns(s),
            "started_at": s["startedAt"], "ended_at": s["endedAt"]}  # fmt: skip
    async with stdio_session(ingest_url, key) as mcp:
        sub = data(await mcp.call_tool("ingest", args))
        assert sub["created"] is True and sub["status"] == "QUEUED"
        again = data(await mcp.call_tool("ingest", args))
        assert (again["created"], again["jobId"]) == (False, sub["jobId"])
        job = await _wait(mcp, sub["jobId"])
        assert job["status"] == "DONE", job
        assert job["episodeId"] and job["counts"]["facts"] == 1
        (written,) = [i for i in job["items"] if i["kind"] == "fact"]
        assert written["ok"] and written["status"] == "candidate"  # inferred: a candidate
        hist = data(await mcp.call_tool("history", {"subject": "alice", "predicate": "lives_in",
                                                    "user_id": "alice"}))  # fmt: skip
        assert [v["object"] for v in hist["versions"]] == ["Berlin"]


async def test_without_a_model_ingest_is_a_clear_tool_error(
    server: str, make_key: KeyFactory, tenant: str
) -> None:
    s = session()
    async with stdio_session(server, make_key(tenant, "agent")) as mcp:
        refused = error_text(
            await mcp.call_tool(
                "ingest", {"user_id": "alice", "session_id": s["sessionId"], "turns": _turns(s)}
            )
        )
        assert "LLM_NOT_CONFIGURED" in refused
