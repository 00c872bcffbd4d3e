"""Review: TTL expiry against belief time and re-assertion. The clock is advanced by moving a
fact's expires_at into the past in the real database (the TTL floor is one day)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import neo4j

from graph_memory.client import GraphMemoryClient
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact


def _elapse_ttl(settings: Settings, fact_id: str) -> None:
    conn = settings.neo4j()
    with neo4j.GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as drv:
        drv.execute_query(
            "MATCH (f:Fact {id: $id}) SET f.expires_at = datetime() - duration('PT1S')",
            {"id": fact_id},
            database_=conn.database,
        )


def _objects(client: GraphMemoryClient, **kw: Any) -> list[str]:
    page = client.facts(["user:alice"], subject="alice", predicate="on_call_for", **kw)
    return [x["node"]["object"] for x in page["edges"]]


def _setup(client: GraphMemoryClient, settings: Settings) -> tuple[str, str, datetime]:
    e = client.record_episode(**episode("alice"))
    r = client.assert_facts(
        [fact("alice", "on_call_for", "payments", [e], cardinality="ONE", ttlDays=1)]
    )
    fid = r["results"][0]["factId"]
    believed_at = datetime.now(UTC)
    time.sleep(1.2)
    _elapse_ttl(settings, fid)
    return e, fid, believed_at


def test_expired_fact_was_still_believed_before_expiry(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings
) -> None:
    _, _, believed_at = _setup(client, settings)
    assert _objects(client) == []
    assert _objects(client, as_of=believed_at) == ["payments"]
    admin.execute("mutation { expireFacts { expired } }")
    # The sweep only makes the expiry explicit; what we believed before it is unchanged.
    assert _objects(client, as_of=believed_at) == ["payments"], "sweep rewrote past belief"


def test_reasserting_an_expired_fact_serves_it_again(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings
) -> None:
    e, _, _ = _setup(client, settings)
    admin.execute("mutation { expireFacts { expired } }")
    r = client.assert_facts([fact("alice", "on_call_for", "payments", [e])])
    assert r["results"][0]["ok"]
    assert _objects(client) == ["payments"], r["results"][0]
