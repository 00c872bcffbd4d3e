"""Migrations against the real database: idempotent, ordered, refusing a newer store."""

from __future__ import annotations

import asyncio

import pytest

from graph_memory.db import Database
from graph_memory.errors import MigrationError
from graph_memory.migrations import applied_versions, migrate, schema_migrations
from graph_memory.settings import Settings


def test_migrate_twice_applies_nothing_the_second_time(settings: Settings) -> None:
    async def go() -> None:
        db = Database.connect(settings.neo4j())
        try:
            await migrate(db, dimensions=384)
            assert await migrate(db, dimensions=384) == []
            assert {m.version for m in schema_migrations()} <= await applied_versions(db)
            indexes = await db.run_raw("SHOW INDEXES YIELD name, state RETURN name, state")
            states = {r["name"]: r["state"] for r in indexes}
            for name in ("fact_embedding", "fact_text", "fact_slot", "episode_embedding"):
                assert states[name] == "ONLINE"
        finally:
            await db.close()

    asyncio.run(go())


def test_refuses_a_database_migrated_by_newer_code(settings: Settings) -> None:
    async def go() -> None:
        db = Database.connect(settings.neo4j())
        try:
            await db.run_raw("CREATE (:SchemaMigration {version: 9999, name: 'from_the_future'})")
            with pytest.raises(MigrationError, match="9999"):
                await migrate(db, dimensions=384)
        finally:
            await db.run_raw("MATCH (m:SchemaMigration {version: 9999}) DELETE m")
            await db.close()

    asyncio.run(go())
