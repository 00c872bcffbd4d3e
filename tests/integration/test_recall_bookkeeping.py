"""Retrieval bookkeeping: counts and last-retrieved times, written off the hot path."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.repositories.recall import RecallRepository
from graph_memory.services.recall.bookkeeping import RetrievalBookkeeper
from graph_memory.settings import Settings
from tests.integration.conftest import fact
from tests.integration.recall_helpers import SCOPES, ids, new_ep, one


def test_retrievals_are_counted_in_the_background(client: GraphMemoryClient) -> None:
    e = new_ep(client)
    fid = one(
        client,
        fact(
            "Alice",
            "speaks",
            "Portuguese",
            [e],
            cardinality="MANY",
            text="Alice speaks fluent Portuguese",
        ),
    )
    for _ in range(2):
        assert ids(client.recall("which languages does Alice speak", SCOPES))[0] == fid
    q = "query($id: ID!) { fact(id: $id) { retrievalCount lastRetrievedAt } }"
    deadline = time.monotonic() + 10
    while True:
        got = client.execute(q, {"id": fid})["fact"]
        if got["retrievalCount"] == 2 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert got["retrievalCount"] == 2 and got["lastRetrievedAt"] is not None
    # Asked as of now (a client's clock): a use like any other.
    client.recall("which languages does Alice speak", SCOPES, as_of=datetime.now(UTC))
    deadline = time.monotonic() + 10
    while client.execute(q, {"id": fid})["fact"]["retrievalCount"] < 3:
        assert time.monotonic() < deadline
        time.sleep(0.2)


async def test_bookkeeper_batches_flushes_and_flushes_on_close(
    client: GraphMemoryClient, tenant: str, settings: Settings
) -> None:
    e = new_ep(client)
    fid = one(
        client,
        fact("Alice", "speaks", "Greek", [e], cardinality="MANY", text="Alice speaks some Greek"),
    )
    db = Database.connect(settings.neo4j())
    try:
        keeper = RetrievalBookkeeper(RecallRepository(db), interval=3600)
        first, last = datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 2, tzinfo=UTC)
        keeper.record(tenant, [("fact", fid)] * 3, first)
        keeper.record(f"{tenant}-other", [("fact", fid)], last)  # not that tenant's fact
        assert keeper.pending == 2
        assert await keeper.flush() == 1 and keeper.pending == 0
        keeper.record(tenant, [("fact", fid)], last)
        await keeper.close()  # what is pending is written on shutdown
    finally:
        await db.close()
    q = "query($id: ID!) { fact(id: $id) { retrievalCount lastRetrievedAt } }"
    got = client.execute(q, {"id": fid})["fact"]
    assert got["retrievalCount"] == 4
    assert datetime.fromisoformat(got["lastRetrievedAt"]) == last
