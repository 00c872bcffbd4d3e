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


def test_a_writer_waiting_for_a_scope_lock_that_is_deleted_goes_on_with_a_new_one(
    settings: Settings, tenant: str
) -> None:
    """What a purge's end relies on when it drops a forgotten user's own scope lock
    (forget/drop_scope_lock): a writer blocked on that lock is not failed by the delete; its
    MERGE makes the lock anew and it goes on."""

    async def go() -> list[dict[str, object]]:
        db = Database.connect(settings.neo4j())
        try:
            await db.write_tx(lambda tx: WriteLocks.scopes(tx, tenant, ["user:gone"]))
            async with db.driver.session(database=db.database) as held:
                tx = await held.begin_transaction()
                lock = "MATCH (l:ScopeLock {tenant: $t, scope: 'user:gone'}) "
                await tx.run(lock + "SET l.seq = l.seq + 1", t=tenant)
                waiter = asyncio.ensure_future(
                    db.write_tx(lambda w: WriteLocks.scopes(w, tenant, ["user:gone"]))
                )
                await asyncio.sleep(0.5)
                assert not waiter.done()  # it waits for the lock
                await tx.run(lock + "DELETE l", t=tenant)
                await tx.commit()
            await asyncio.wait_for(waiter, 10)
            return await db.run_raw(
                "MATCH (l:ScopeLock {tenant: $t}) RETURN l.scope AS scope, l.seq AS seq",
                {"t": tenant},
            )
        finally:
            await db.close()

    assert asyncio.run(go()) == [{"scope": "user:gone", "seq": 1}]
