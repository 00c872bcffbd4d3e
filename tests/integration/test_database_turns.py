"""GRAPH_MEMORY_DB_TURNS: reads take database turns per tenant, so one tenant's costly reads
queue behind each other while another tenant's read takes the turn left free; writes, purges
and reads inside them go on beside the turns without a deadlock."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import httpx
import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.limits import Limits
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, episode, serving


@pytest.fixture(scope="module")
def two_turns(settings: Settings) -> Iterator[str]:
    lifted = Limits(max_aliases=10**4, max_cost=10**12, max_query_seconds=120)
    # Many operations in flight, few reads at once: the turns, not admission, are what queue.
    with serving(replace(settings, limits=lifted, max_inflight=16, db_turns=2)) as url:
        yield url


def _recalls(n: int) -> str:
    return (
        "{ "
        + " ".join(
            f'r{i}: recall(query: "where did alice go in {1900 + i}", '
            f'scopes: ["user:alice", "user:bob"], k: 50, overRecall: 200) {{ considered }}'
            for i in range(n)
        )
        + " }"
    )


def _timing(r: httpx.Response) -> dict[str, float]:
    """Server-Timing: queue;dur=<ms>, dbturn;dur=<ms>."""
    out = {}
    for part in r.headers["server-timing"].split(","):
        name, dur = part.strip().split(";dur=")
        out[name] = float(dur)
    return out


def test_a_tenant_flooding_reads_waits_for_its_turns_and_another_tenant_does_not(
    two_turns: str, settings: Settings, tenant: str
) -> None:
    flooder = _create_key(settings, tenant, "agent")
    admin = _create_key(settings, tenant, "admin")
    other = _create_key(settings, f"{tenant}-other", "agent")
    with GraphMemoryClient(two_turns, flooder) as c:
        c.record_episodes([episode("alice", summary=f"alice went to city {i}") for i in range(30)])
        bobs = c.record_episodes(
            [episode("bob", summary=f"bob went to town {i}") for i in range(5)]
        )
    with GraphMemoryClient(two_turns, other) as c:
        mine = c.record_episodes([episode("alice", summary="alice of the other tenant")])
    failed: list[str] = []
    flood_turns: list[float] = []
    jobs: list[str] = []

    def send(key: str, body: dict[str, object]) -> httpx.Response:
        r = httpx.post(
            two_turns, json=body, headers={"Authorization": f"Bearer {key}"}, timeout=120
        )
        if r.status_code != 200 or "errors" in r.json():
            failed.append(f"{r.status_code} {r.text[:300]}")
        return r

    def flood() -> None:
        flood_turns.append(_timing(send(flooder, {"query": _recalls(40)}))["dbturn"])

    def write() -> None:
        with GraphMemoryClient(two_turns, flooder) as c:
            for i in range(5):
                if not c.record_episodes([episode("carol", summary=f"carol said {i}")])[0]["ok"]:
                    failed.append(f"carol's episode {i}")

    def forget() -> None:
        # A purge (write transactions reading inside them) of the flooding tenant meanwhile.
        r = send(
            admin,
            {"query": 'mutation { forgetContributor(userId: "bob", waitSeconds: 5) { jobId } }'},
        )
        jobs.append(r.json()["data"]["forgetContributor"]["jobId"])

    workers = [threading.Thread(target=flood) for _ in range(4)]
    workers += [threading.Thread(target=write), threading.Thread(target=forget)]
    for t in workers:
        t.start()
    # While the flood holds its one turn and queues the rest: the other tenant's read.
    r = send(other, {"query": '{ episodes(scopes: ["user:alice"]) { id } }'})
    for t in workers:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in workers)
    assert not failed, failed
    assert [e["id"] for e in r.json()["data"]["episodes"]] == [mine[0]["id"]]
    assert _timing(r)["dbturn"] < 50, r.headers["server-timing"]
    # The flood's reads queued behind each other for its single turn.
    assert len(flood_turns) == 4 and sum(flood_turns) > 100, flood_turns
    # What the flooding tenant wrote meanwhile landed; the forgotten user's purge finished.
    said = send(flooder, {"query": '{ episodes(scopes: ["user:carol"]) { id } }'})
    assert len(said.json()["data"]["episodes"]) == 5
    gone = send(flooder, {"query": '{ episodes(scopes: ["user:bob"]) { id } }'})
    assert gone.json()["data"]["episodes"] == [] and len(bobs) == 5
    # The purge queued its reads behind the flood's (one tenant, one turn); it ends once the
    # flood is served, however slow the machine.
    (job,) = jobs
    deadline = time.monotonic() + 120
    while (state := _job_state(send, admin, job)) != "DONE":
        assert time.monotonic() < deadline, state
        time.sleep(0.2)


def _job_state(send: Callable[[str, dict[str, object]], httpx.Response], key: str, job: str) -> str:
    query = "query($id: ID!) { forgetJob(id: $id) { state } }"
    r = send(key, {"query": query, "variables": {"id": job}})
    return str(r.json()["data"]["forgetJob"]["state"])
