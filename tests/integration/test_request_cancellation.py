"""A read whose client went away stops costing the server: its task is cancelled at once,
the process goes idle, and Neo4j is left running nothing of it."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.limits import Limits
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, episode, fact, serving


@pytest.fixture(scope="module")
def patient_server(settings: Settings) -> Iterator[str]:
    """Shape limits lifted and a long budget: only the client's leaving can stop a read."""
    lifted = Limits(max_aliases=10**4, max_cost=10**12, max_query_seconds=120)
    with serving(replace(settings, limits=lifted)) as url:
        yield url


def _heavy(n: int) -> str:
    return (
        "{ "
        + " ".join(
            f'r{i}: recall(query: "where did person {i} live in {1900 + i}", '
            f'scopes: ["user:alice", "tenant"], k: 20, overRecall: 60) {{ considered }}'
            for i in range(n)
        )
        + " }"
    )


def _running(settings: Settings, tenant: str) -> int:
    async def go() -> int:
        db = Database.connect(settings.neo4j())
        try:
            rows = await db.run_raw(
                "SHOW TRANSACTIONS YIELD parameters WHERE parameters.tenant = $t "
                "RETURN count(*) AS n",
                {"t": tenant},
            )
            return int(rows[0]["n"])
        finally:
            await db.close()

    return asyncio.run(go())


def _cpu_over(seconds: float) -> float:
    before = time.process_time()
    time.sleep(seconds)
    return time.process_time() - before


def test_a_disconnected_clients_read_is_cancelled(
    patient_server: str, settings: Settings, tenant: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="graph_memory")
    key = _create_key(settings, tenant, "agent")
    headers = {"Authorization": f"Bearer {key}"}
    with GraphMemoryClient(patient_server, key) as c:  # candidates for every recall to rank
        eps = c.record_episodes(
            [episode("alice", summary=f"alice told of trip {i} to city {i}") for i in range(100)]
        )
        c.assert_facts([fact("alice", "visited", f"city {i}", [eps[i]["id"]]) for i in range(100)])
    outcome: dict[str, Any] = {}

    def impatient() -> None:
        # 180 wide recalls (the parser's token limit allows ~200): seconds of work even on a
        # fast, warm machine (150 narrow ones once finished inside the client's 1.5 s in CI,
        # and the test failed for want of a disconnect, not of a cancellation).
        try:
            r = httpx.post(
                patient_server, json={"query": _heavy(180)}, headers=headers, timeout=1.5
            )
            outcome["answered"] = (r.status_code, r.text[:300])
        except httpx.TimeoutException as e:  # gives up and closes the connection
            outcome["gone"] = e

    client = threading.Thread(target=impatient)
    client.start()
    time.sleep(0.5)
    busy = _cpu_over(0.8)  # the read is at work
    client.join(timeout=30)
    assert "gone" in outcome, f"the read ended before the client left: {outcome}"
    left_at = time.perf_counter()
    deadline = left_at + 5
    while not any("client went away" in r.getMessage() for r in caplog.records):
        assert time.perf_counter() < deadline, "the read was not cancelled"
        time.sleep(0.05)
    noticed = time.perf_counter() - left_at
    idle = _cpu_over(1.0)
    running = _running(settings, tenant)
    print(
        f"cpu {busy / 0.8:.2f} s/s while the read ran, cancelled {noticed * 1000:.0f} ms after "
        f"the client left, then {idle:.2f} s/s; Neo4j transactions left: {running}"
    )
    # The read shares the work with Neo4j (another process), so its share of this process's
    # CPU swings with the machine's load: 0.5-0.7 s/s here, 0.33 once in CI beside other
    # work. Idle is 0.00 s/s on both. The guard asks for a clear gap, not a fixed level.
    assert busy / 0.8 > 0.1, "the read did not keep the server busy: the test proves nothing"
    assert noticed < 1.5
    assert idle < 0.05
    assert running == 0
    # The server answers as before.
    r = httpx.post(patient_server, json={"query": "{ __typename }"}, headers=headers, timeout=10)
    assert r.json() == {"data": {"__typename": "Query"}}
