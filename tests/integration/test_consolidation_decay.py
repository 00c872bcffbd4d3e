"""The decay step collects weak memories nobody uses: a live fact with confidence below 0.3
unretrieved for 90 days stops being believed (retracted with the reason, its history kept),
one retrieved recently or believed more strongly stays, and a rollback brings it back."""

from __future__ import annotations

import asyncio

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.settings import Settings
from tests.integration.conftest import fact
from tests.integration.consolidation_helpers import M_ROLLBACK, M_RUN
from tests.integration.recall_helpers import SCOPES, new_ep, one


def _age(settings: Settings, tenant: str, ids: list[str], days: int, confidence: float) -> None:
    """Months pass and belief weakened: no API does that, so moved over Bolt."""

    async def go() -> None:
        db = Database.connect(settings.neo4j())
        try:
            await db.run_raw(
                "MATCH (f:Fact) WHERE f.id IN $ids AND f.tenant = $tenant "
                "SET f.last_retrieved_at = datetime() - duration({days: $days}), "
                "    f.confidence = $confidence",
                {"ids": ids, "tenant": tenant, "days": days, "confidence": confidence},
            )
        finally:
            await db.close()

    asyncio.run(go())


def test_weak_unused_memories_are_collected_and_a_rollback_restores_them(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    ep = new_ep(client)
    weak, used, strong = (
        one(client, fact("Alice", "likes", obj, [ep], cardinality="MANY"))
        for obj in ("opera", "jazz", "techno")
    )
    _age(settings, tenant, [weak, strong], 120, 0.2)
    _age(settings, tenant, [used], 10, 0.2)  # weak, but retrieved ten days ago
    _age(settings, tenant, [strong], 120, 0.6)  # unused, but believed
    done = admin.execute(M_RUN, {"s": SCOPES, "steps": ["DECAY"], "dry": False})["runConsolidation"]
    (step,) = done["steps"]
    assert step["step"] == "DECAY"
    assert step["counts"] == [{"name": "collected", "value": 1}]
    assert [(c["action"], c["targetId"]) for c in done["changes"]] == [("collect", weak)]
    assert "confidence 0.20 < 0.3" in done["changes"][0]["reason"]
    gone = client.fact(weak)
    assert gone and gone["status"] == "RETRACTED"
    assert {client.fact(i)["status"] for i in (used, strong)} == {"ACTIVE"}  # type: ignore[index]
    served = {e["node"]["id"] for e in client.facts(SCOPES, first=20)["edges"]}
    assert weak not in served and {used, strong} <= served

    back = admin.execute(M_ROLLBACK, {"id": done["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK"
    assert client.fact(weak)["status"] == "ACTIVE"  # type: ignore[index]
    assert weak in {e["node"]["id"] for e in client.facts(SCOPES, first=20)["edges"]}
