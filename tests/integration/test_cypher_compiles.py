"""Every named query, as the catalog sends it (comments stripped, fragments included),
compiles on the real Neo4j: a query that only a rare path runs fails here, not in use."""

from __future__ import annotations

import asyncio

from graph_memory.cypher import catalog
from graph_memory.db import Database
from graph_memory.settings import Settings


def test_every_named_query_compiles(settings: Settings) -> None:
    queries = catalog()

    async def go() -> list[str]:
        db = Database.connect(settings.neo4j())
        failed: list[str] = []
        try:
            for name in queries.names():
                query = queries[name]
                try:
                    # EXPLAIN plans without running; parameters are bound null, since a plan
                    # does not depend on their values.
                    await db.run_raw(f"EXPLAIN {query.text}", dict.fromkeys(query.params))
                except Exception as e:  # every failure is collected and shown
                    failed.append(f"{name}: {type(e).__name__}: {str(e)[:300]}")
        finally:
            await db.close()
        return failed

    failed = asyncio.run(go())
    assert failed == [], "\n".join(failed)
    assert len(queries.names()) > 200
