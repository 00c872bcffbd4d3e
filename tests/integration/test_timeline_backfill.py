"""The stored timeline rebuilt from the versions alone (the backfill of a store written before
the timeline existed, and the repair of a tenant loaded behind the service's back): every
answer at every noted moment reads the same afterwards, and rebuilding twice is harmless."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.services.store.timeline_backfill import rebuild_tenant
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact
from tests.integration.timeline_check import timeline_mismatches

SCOPE = ["user:alice"]
VALID_ATS = [None, "2020-06-01T00:00:00Z", "2024-06-01T00:00:00Z", "2026-06-01T00:00:00Z"]


def _answers(c: GraphMemoryClient, moments: list[str]) -> list[Any]:
    out = []
    for as_of in moments:
        for valid_at in VALID_ATS:
            for cands in (False, True):
                conn = c.facts(
                    SCOPE,
                    as_of=as_of,
                    valid_at=valid_at,
                    subject="alice",
                    includeCandidates=cands,
                )
                out.append(
                    sorted((e["node"]["predicate"], e["node"]["object"]) for e in conn["edges"])
                )
    return out


def _run(settings: Settings, coro: Any) -> Any:
    async def go() -> Any:
        db = Database.connect(settings.neo4j())
        try:
            return await coro(db)
        finally:
            await db.close()

    return asyncio.run(go())


def test_rebuilding_a_tenant_timeline_keeps_every_past_answer(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    moments: list[str] = []

    def note() -> None:
        time.sleep(0.002)
        moments.append(datetime.now(UTC).isoformat())
        time.sleep(0.002)

    e1 = client.record_episode(
        **episode("alice", "s1", startedAt="2024-02-01T00:00:00Z", endedAt="2024-02-01T00:30:00Z")
    )
    e2 = client.record_episode(
        **episode("alice", "s2", startedAt="2025-03-01T00:00:00Z", endedAt="2025-03-01T00:30:00Z")
    )
    e3 = client.record_episode(
        **episode("alice", "s3", startedAt="2026-04-01T00:00:00Z", endedAt="2026-04-01T00:30:00Z")
    )
    client.assert_facts([fact("Alice", "lives_in", "Paris", [e1])])
    note()
    client.assert_facts(
        [fact("Alice", "lives_in", "Berlin", [e2], validFrom="2023-01-01T00:00:00Z")]
    )
    note()
    client.assert_facts([fact("Alice", "lives_in", "Paris", [e3])])  # told again later
    note()
    client.assert_facts(
        [
            fact(
                "Alice",
                "lives_in",
                "Rome",
                [e1],
                validFrom="2019-01-01T00:00:00Z",
                validTo="2021-01-01T00:00:00Z",
            )
        ]
    )
    note()
    client.assert_facts(
        [
            fact("Alice", "likes", "tea", [e1]),
            fact("Alice", "likes", "jazz", [e2]),
            fact("Alice", "prefers", "email", [e2], source="conversation"),
        ]
    )
    note()
    rome = client.facts(
        SCOPE, valid_at="2020-06-01T00:00:00Z", subject="alice", predicate="lives_in"
    )["edges"][0]["node"]["id"]
    client.retract_fact(rome, "wrong")
    note()
    before = _answers(client, moments)
    assert any(before), "the story answers something"

    async def wipe_and_rebuild(db: Database) -> int:
        await db.run_raw("MATCH (s:Segment {tenant: $t}) DETACH DELETE s", {"t": tenant})
        first = await rebuild_tenant(db, tenant)
        second = await rebuild_tenant(db, tenant)
        assert first.segments == second.segments
        return first.slots

    assert _run(settings, wipe_and_rebuild) == 3  # lives_in, likes, prefers
    assert _answers(client, moments) == before
    assert asyncio.run(timeline_mismatches(settings, tenant)) == []


def test_a_rebuild_rewrites_only_the_slots_whose_stored_timeline_differs(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """A slot whose stored segments already equal the recomputed ones keeps them as they are
    (a purge retells thousands of versions whose timeline does not move); a slot whose stored
    timeline lost a segment is written again. The autouse check then finds both right."""
    e1 = client.record_episode(**episode("alice", "s1"))
    client.assert_facts(
        [fact("Alice", "lives_in", "Paris", [e1]), fact("Alice", "likes", "tea", [e1])]
    )
    stored = "MATCH (s:Segment {tenant: $t}) RETURN s.predicate AS p, collect(s.id) AS ids"

    async def damage_and_rebuild(db: Database) -> tuple[dict[str, Any], dict[str, Any], int]:
        before = {r["p"]: sorted(r["ids"]) for r in await db.run_raw(stored, {"t": tenant})}
        await db.run_raw(
            "MATCH (s:Segment {tenant: $t, predicate: 'likes'}) DETACH DELETE s", {"t": tenant}
        )
        report = await rebuild_tenant(db, tenant)
        after = {r["p"]: sorted(r["ids"]) for r in await db.run_raw(stored, {"t": tenant})}
        return before, after, report.segments

    before, after, held = _run(settings, damage_and_rebuild)
    assert set(before) == {"lives_in", "likes"}
    assert after["lives_in"] == before["lives_in"]  # equal to the recomputed one: untouched
    assert after["likes"] and after["likes"] != before["likes"]  # lost a segment: rewritten
    assert held == len(after["lives_in"]) + len(after["likes"])
