"""Review: idempotency replays and concurrent batches on one slot (through the async client)."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import ClientFactory, episode, fact


def _async(client: GraphMemoryClient) -> AsyncGraphMemoryClient:
    key = client._http.headers["Authorization"].split(" ", 1)[1]
    return AsyncGraphMemoryClient(client.url, key)


def _dt(s: str) -> datetime:
    return datetime.fromisoformat(s)


def test_idempotent_replay_after_partial_failure(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    batch = [
        fact("alice", "lives_in", "Paris", [e], cardinality="ONE"),
        fact("alice", "lives_in", "Berlin", ["ep_missing"]),
        fact("alice", "note", "ok", [e], cardinality="MANY"),
    ]
    first = client.assert_facts(batch, idempotency_key="k1")
    again = client.assert_facts(batch, idempotency_key="k1")
    assert first == again
    assert [r["ok"] for r in first["results"]] == [True, False, False]
    assert len(client.history("alice", "lives_in", ["user:alice"])["versions"]) == 1
    try:
        client.assert_facts(batch[:1], idempotency_key="k1")
    except GraphMemoryClientError as err:
        assert err.code == "CONFLICT"
    else:
        raise AssertionError("a reused key with another payload must be CONFLICT")


async def test_concurrent_same_key_returns_the_first_result(client: GraphMemoryClient) -> None:
    e = client.record_episode(**episode("alice"))
    # A batch big enough that both requests pass the key check before either commits.
    batch = [fact("alice", "likes", f"thing {k}", [e], cardinality="MANY") for k in range(40)]
    ac = _async(client)
    try:
        for i in range(4):
            key = f"same-{i}"
            a, b = await asyncio.gather(ac.assert_facts(batch, key), ac.assert_facts(batch, key))
            assert a == b, (a["results"][0]["action"], b["results"][0]["action"])
    finally:
        await ac.aclose()


async def test_concurrent_batches_on_one_slot_keep_one_coherent_chain(
    client: GraphMemoryClient,
) -> None:
    """Two gathered batches on the same single-valued slot: one current version, versions
    1..n, and belief time never runs backwards along the SUPERSEDES chain."""
    eps = [client.record_episode(**episode("alice", f"s{i}")) for i in range(2)]
    client.assert_facts([fact("alice", "mood", "calm", [eps[0]], cardinality="ONE")])
    ac = _async(client)
    try:
        for round_ in range(8):
            objs = [f"mood {round_}-{j} {uuid.uuid4().hex[:4]}" for j in range(2)]
            # Different batch sizes so the two embed/compute their clocks at different moments.
            await asyncio.gather(
                ac.assert_facts(
                    [fact("alice", "mood", objs[0], [eps[0]])]
                    + [
                        fact("alice", "hobby", f"h{round_}-{k}", [eps[0]], cardinality="MANY")
                        for k in range(30)
                    ]
                ),
                ac.assert_facts([fact("alice", "mood", objs[1], [eps[1]])]),
            )
    finally:
        await ac.aclose()
    versions: list[dict[str, Any]] = client.history("alice", "mood", ["user:alice"])["versions"]
    current = [v for v in versions if v["supersededAt"] is None]
    assert len(current) == 1
    assert sorted(v["version"] for v in versions) == list(range(1, len(versions) + 1))
    by_id = {v["id"]: v for v in versions}
    for v in versions:
        if v["supersededBy"]:
            succ = by_id[v["supersededBy"]]
            assert succ["version"] == v["version"] + 1
            assert _dt(v["supersededAt"]) >= _dt(v["recordedAt"]), "belief ends before it began"
            assert _dt(succ["recordedAt"]) >= _dt(v["recordedAt"]), "successor recorded earlier"


def test_concurrent_cross_tenant_writes_stay_isolated(make_client: ClientFactory) -> None:
    tenants = [f"t-{uuid.uuid4().hex[:10]}" for _ in range(2)]
    clients = [make_client(t) for t in tenants]
    eps = [c.record_episode(**episode("alice")) for c in clients]

    async def go() -> None:
        acs = [_async(c) for c in clients]
        try:
            await asyncio.gather(
                *[
                    ac.assert_facts(
                        [fact("alice", "lives_in", f"City{i}", [ep], cardinality="ONE")]
                    )
                    for i, (ac, ep) in enumerate(zip(acs, eps, strict=True))
                ]
            )
        finally:
            for ac in acs:
                await ac.aclose()

    asyncio.run(go())
    for i, c in enumerate(clients):
        objs = [x["node"]["object"] for x in c.facts(["user:alice"])["edges"]]
        assert objs == [f"City{i}"]


def test_a_batch_heavy_on_one_slot_does_not_stall_another_tenant(
    client: GraphMemoryClient, make_client: ClientFactory
) -> None:
    # 300 overlapping stays in one slot: the time rule over them is seconds of pure Python in
    # the write. Another tenant's read meanwhile answers as usual (it waited the whole batch
    # out while the rule ran on the event loop).
    other = make_client(f"t-{uuid.uuid4().hex[:10]}")
    e = client.record_episode(**episode("alice"))
    start = datetime(2000, 1, 1, tzinfo=UTC)
    batch = [
        fact(
            "alice",
            "lives_in",
            f"city {i}",
            [e],
            cardinality="ONE",
            validFrom=(start + timedelta(days=3 * i)).isoformat(),
            validTo=(start + timedelta(days=3 * i + 400)).isoformat(),
        )
        for i in range(300)
    ]

    async def go() -> tuple[float, list[float]]:
        writer, reader = _async(client), _async(other)
        waits: list[float] = []
        try:
            write = asyncio.create_task(writer.assert_facts(batch))
            began = time.monotonic()
            await asyncio.sleep(0.3)  # the batch is being decided and settled
            while not write.done():
                t = time.monotonic()
                await reader.facts(["tenant"])
                waits.append(time.monotonic() - t)
                await asyncio.sleep(0.2)
            out = await write
            assert out["accepted"] == 300
            return time.monotonic() - began, waits
        finally:
            await writer.aclose()
            await reader.aclose()

    took, waits = asyncio.run(go())
    assert waits, f"the batch took {took:.1f}s: too fast to measure anything"
    assert max(waits) < 2.0, (took, waits)
