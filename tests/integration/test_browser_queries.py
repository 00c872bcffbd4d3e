"""The saved analyst queries in cypher/browser/ run against the real graph and answer."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact


def _run(settings: Settings, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        db = Database.connect(settings.neo4j())
        try:
            return await db.read(name, params)
        finally:
            await db.close()

    return asyncio.run(go())


def test_saved_queries_answer_for_a_small_story(
    client: GraphMemoryClient, tenant: str, settings: Settings
) -> None:
    start = datetime.now(UTC) - timedelta(minutes=1)
    e1 = client.record_episode(**episode("alice", "s1"))
    e2 = client.record_episode(**episode("alice", "s2"))
    paris = client.assert_facts([fact("Alice", "lives_in", "Paris", [e1])])["results"][0]
    client.assert_facts([fact("Alice", "lives_in", "Berlin", [e2])])
    premise = client.assert_facts([fact("Alice", "works_at", "ACME", [e1])])["results"][0]
    client.assert_facts(
        [
            fact(
                "Alice",
                "commutes_to",
                "ACME campus",
                [e1],
                cardinality="ONE",
                dependsOn=[premise["factId"]],
            )
        ]
    )
    client.retract_fact(premise["factId"], reason="left the company")

    history = _run(settings, "browser.subject_history", {"tenant": tenant, "subject": "Alice"})
    triples = [r["triple"] for r in history]
    assert "Alice · lives_in · Paris" in triples and "Alice · lives_in · Berlin" in triples
    assert any(r["graph"] is not None for r in history)  # the SUPERSEDES path to expand

    window = _run(
        settings,
        "browser.changes_in_window",
        {"tenant": tenant, "from": start, "to": datetime.now(UTC) + timedelta(1)},
    )
    assert {"record", "created", "superseded", "retract"} <= {r["action"] for r in window}

    prov = _run(settings, "browser.fact_provenance", {"tenant": tenant, "fact_id": paris["factId"]})
    assert [(r["fact"], r["contributor"]) for r in prov] == [("Alice · lives_in · Paris", "alice")]

    mine = _run(settings, "browser.user_contributions", {"tenant": tenant, "user_id": "alice"})
    assert {"Alice · lives_in · Paris", "Alice · lives_in · Berlin"} <= {
        c for r in mine for c in r["facts"]
    }

    flagged = _run(settings, "browser.needs_verification", {"tenant": tenant})
    assert [r["conclusion"] for r in flagged] == ["Alice · commutes_to · ACME campus"]
    assert "retracted" in flagged[0]["reason"]


def test_other_tenants_see_nothing(client: GraphMemoryClient, settings: Settings) -> None:
    e1 = client.record_episode(**episode("alice", "s1"))
    client.assert_facts([fact("Alice", "lives_in", "Paris", [e1])])
    assert _run(settings, "browser.subject_history", {"tenant": "nobody", "subject": "Alice"}) == []
