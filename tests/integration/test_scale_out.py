"""`graph-memory serve --workers 2`: two service processes behind one port on one Neo4j.
Requests are spread over both, /metrics adds both up whichever answers, and nothing one
process holds in memory is needed by the other: a revoked key is refused by both at once
(with the key cache off) and writes made through one are read through the other."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.integration.conftest import episode
from tests.integration.serve_process import GM, Served, serve_process

RECORD = "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok id } }"
READ = "query($id: ID!) { episode(id: $id) { id summary } }"


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory, server: str) -> Iterator[Served]:
    del server  # a migrated store
    log = tmp_path_factory.mktemp("scale") / "stderr.log"
    with serve_process(log, "--workers", "2", GRAPH_MEMORY_AUTH_CACHE_SECONDS="0") as running:
        yield running


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def requests_counted(served: Served, operation: str) -> float:
    text = httpx.get(f"{served.base}/metrics").text
    return sum(
        s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
        if s.name == "graph_memory_requests_total" and s.labels.get("operation") == operation
    )


def post(served: Served, key: str, query: str, variables: dict[str, object]) -> httpx.Response:
    # A new connection each time, so the kernel may hand it to either process.
    return httpx.post(
        served.url,
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {key}", "Connection": "close"},
    )


def test_two_processes_share_one_port_and_one_store(
    pair: Served, make_key: Callable[..., str], tenant: str
) -> None:
    assert len(children(pair.pid)) >= 2, "uvicorn should run two worker processes"
    key = make_key(tenant)
    ep = {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in episode().items()}
    before = requests_counted(pair, "episode")
    written = post(pair, key, RECORD, {"e": [ep]}).json()["data"]["recordEpisodes"][0]
    assert written["ok"]
    # Whichever process answers, it reads what the other may have written.
    for _ in range(12):
        resp = post(pair, key, READ, {"id": written["id"]}).json()
        assert resp["data"]["episode"]["id"] == written["id"], resp
    # Every process's requests are counted, whichever process is scraped.
    assert requests_counted(pair, "episode") - before == 12


def test_a_revoked_key_is_refused_by_every_process(
    pair: Served, make_key: Callable[..., str], tenant: str
) -> None:
    key = make_key(tenant)
    probe = '{ facts(filter: {scopes: ["user:alice"]}) { edges { cursor } } }'
    assert all(post(pair, key, probe, {}).status_code == 200 for _ in range(6))
    listed = subprocess.run(
        [GM, "keys", "list", "--tenant", tenant, "--json"],
        capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    (key_id,) = [k["id"] for k in json.loads(listed.stdout) if k["state"] == "active"]
    subprocess.run([GM, "keys", "revoke", key_id], check=True, capture_output=True, timeout=60)
    codes = {post(pair, key, probe, {}).status_code for _ in range(12)}
    assert codes == {401}
