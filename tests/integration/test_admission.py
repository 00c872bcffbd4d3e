"""GRAPH_MEMORY_MAX_INFLIGHT: operations beyond the cap wait their turn and are then served in
full; the wait is measured."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.limits import Limits
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, episode, serving


@pytest.fixture(scope="module")
def one_at_a_time(settings: Settings) -> Iterator[str]:
    lifted = Limits(max_aliases=10**4, max_cost=10**12, max_query_seconds=120)
    with serving(replace(settings, limits=lifted, max_inflight=1)) as url:
        yield url


def _queue_figures(url: str) -> tuple[float, float]:
    text = httpx.get(url.replace("/graphql", "/metrics")).text
    values = {
        line.split()[0]: float(line.split()[1])
        for line in text.splitlines()
        if line.startswith("graph_memory_request_queue_seconds_")
    }
    return (
        values.get("graph_memory_request_queue_seconds_count", 0.0),
        values.get("graph_memory_request_queue_seconds_sum", 0.0),
    )


def _recalls(n: int) -> str:
    return (
        "{ "
        + " ".join(
            f'r{i}: recall(query: "where did alice go in {1900 + i}", '
            f'scopes: ["user:alice"]) {{ considered }}'
            for i in range(n)
        )
        + " }"
    )


def test_operations_over_the_cap_wait_and_are_served_in_full(
    one_at_a_time: str, settings: Settings, tenant: str
) -> None:
    key = _create_key(settings, tenant, "agent")
    with GraphMemoryClient(one_at_a_time, key) as c:
        c.record_episodes([episode("alice", summary=f"alice went to city {i}") for i in range(20)])
    count_before, wait_before = _queue_figures(one_at_a_time)
    answers: list[Any] = []
    headers = {"Authorization": f"Bearer {key}"}

    def read() -> None:
        r = httpx.post(one_at_a_time, json={"query": _recalls(30)}, headers=headers, timeout=120)
        answers.append(r)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for t in readers:
        t.start()
    with GraphMemoryClient(one_at_a_time, key) as c:  # a write queues like a read
        written = c.record_episodes([episode("alice", summary="alice is back home")])
    for t in readers:
        t.join(timeout=120)
    assert written[0]["ok"]
    assert len(answers) == 3
    for r in answers:
        assert r.status_code == 200 and "errors" not in r.json(), r.text
        assert len(r.json()["data"]) == 30
    count_after, wait_after = _queue_figures(one_at_a_time)
    assert count_after - count_before >= 4
    # With one slot, at least one of four concurrent operations waited for another.
    assert wait_after - wait_before > 0.01
