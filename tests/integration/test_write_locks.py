"""Write locks are per scope: a writer of one user's facts never waits on another user's.

A transaction of the test holds alice's scope lock (as a long batch of hers would); a write of
bob's facts in the same tenant lands meanwhile, and one of alice's waits until it is released,
then lands after it with a later clock.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient
from graph_memory.db import Database, Tx
from graph_memory.repositories.locks import WriteLocks
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact


def _async(client: GraphMemoryClient) -> AsyncGraphMemoryClient:
    key = client._http.headers["Authorization"].split(" ", 1)[1]
    return AsyncGraphMemoryClient(client.url, key)


async def test_a_held_scope_lock_holds_back_only_its_own_scope(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    ep_a = client.record_episode(**episode("alice"))
    ep_b = client.record_episode(**episode("bob"))
    # Registered first: a first use of a predicate takes the tenant lock, by design.
    client.assert_facts([fact("alice", "lives_in", "Paris", [ep_a], cardinality="ONE")])
    client.assert_facts([fact("bob", "lives_in", "Paris", [ep_b])])

    db = Database.connect(settings.neo4j())
    ac = _async(client)
    holding, release = asyncio.Event(), asyncio.Event()
    released_at: list[datetime] = []

    async def hold(tx: Tx) -> None:
        await WriteLocks.scopes(tx, tenant, ["user:alice"])
        holding.set()
        await release.wait()
        released_at.append(datetime.now().astimezone())

    holder = asyncio.create_task(db.write_tx(hold))
    try:
        await asyncio.wait_for(holding.wait(), 30)
        bob = await asyncio.wait_for(ac.assert_facts([fact("bob", "lives_in", "Rome", [ep_b])]), 30)
        assert bob["accepted"] == 1
        alice = asyncio.create_task(ac.assert_facts([fact("alice", "lives_in", "Rome", [ep_a])]))
        await asyncio.sleep(1.5)
        assert not alice.done(), "alice's write did not wait for her scope's lock"
        release.set()
        await holder
        assert (await asyncio.wait_for(alice, 30))["accepted"] == 1
    finally:
        release.set()
        await ac.aclose()
        await db.close()
    (current,) = [
        v
        for v in client.history("alice", "lives_in", ["user:alice"])["versions"]
        if v["supersededAt"] is None
    ]
    assert current["object"] == "Rome"
    # The clock is read under the lock: her write is recorded after the holder let go.
    assert datetime.fromisoformat(current["recordedAt"]) >= released_at[0]
