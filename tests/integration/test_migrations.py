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
            # One full-text index over every kind since schema 150.
            assert not {"fact_text", "episode_text", "memo_text", "procedure_text"} & set(states)
            for name in ("fact_embedding", "memory_text", "fact_slot", "episode_embedding"):
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


def test_marks_written_before_acted_for_fields_get_them_from_the_actor(
    settings: Settings,
) -> None:
    """Schema 110: what a session token did for a user before the field existed is found by a
    forget afterwards (the user id after the last " for " of an agent's actor), and nothing
    else is marked: a key's own actor, an admin's, one already redacted."""
    tenant = "mig-acted-for"
    make = """
    CREATE (:AuditEvent {id: 'mig-a1', tenant: $t, actor: 'agent:bot key for ops for bob'})
    CREATE (:AuditEvent {id: 'mig-a2', tenant: $t, actor: 'agent:plainkey'})
    CREATE (:AuditEvent {id: 'mig-a3', tenant: $t, actor: 'admin:boss for bob'})
    CREATE (:AuditEvent {id: 'mig-a4', tenant: $t, actor: 'agent:k for [forgotten]'})
    CREATE (:Fact {id: 'mig-f1', tenant: $t, created_by: 'agent:k for bob',
                   retracted_by: 'agent:k for carol'})
    CREATE (:Memo {id: 'mig-m1', tenant: $t, closed_by: 'agent:k for dan'})
    """
    read = """
    MATCH (n) WHERE n.tenant = $t
    RETURN n.id AS id, n.acted_for AS acted, n.created_for AS created,
           n.retracted_for AS retracted, n.closed_for AS closed
    """

    async def go() -> dict[str, tuple[object, ...]]:
        db = Database.connect(settings.neo4j())
        try:
            await db.run_raw(make, {"t": tenant})
            (m110,) = [m for m in schema_migrations() if m.version == 110]
            for stmt in m110.statements:  # idempotent: applied again over a migrated store
                await db.run_raw(stmt)
            rows = await db.run_raw(read, {"t": tenant})
            return {
                str(r["id"]): (r["acted"], r["created"], r["retracted"], r["closed"]) for r in rows
            }
        finally:
            await db.run_raw("MATCH (n) WHERE n.tenant = $t DETACH DELETE n", {"t": tenant})
            await db.close()

    got = asyncio.run(go())
    assert got == {
        "mig-a1": ("bob", None, None, None),
        "mig-a2": (None, None, None, None),
        "mig-a3": (None, None, None, None),
        "mig-a4": (None, None, None, None),
        "mig-f1": (None, "bob", "carol", None),
        "mig-m1": (None, None, None, "dan"),
    }


def test_memories_written_before_one_text_index_are_found_by_their_kind(
    settings: Settings,
) -> None:
    """Schema 150: facts, episodes, memos and procedures written without the kind term get
    it, and a search of one kind finds only that kind, each in the one full-text index."""
    tenant = "mig-memory-text"
    make = """
    UNWIND [['Fact', 'mig-t-f'], ['Episode', 'mig-t-e'], ['Memo', 'mig-t-m'],
            ['Procedure', 'mig-t-p']] AS k
    CREATE (n:$(k[0]) {id: k[1], tenant: $t, text: 'the zanzibarian ledger', ft_scope: 'migtok'})
    """
    search = """
    CALL db.index.fulltext.queryNodes('memory_text',
      '+ft_kind:' + $kind + '^0 +ft_scope:(migtok)^0 +text:(zanzibarian)') YIELD node
    RETURN collect(node.id) AS ids
    """

    async def go() -> dict[str, list[str]]:
        db = Database.connect(settings.neo4j())
        try:
            await db.run_raw(make, {"t": tenant})
            (m150,) = [m for m in schema_migrations() if m.version == 150]
            for stmt in m150.statements:  # idempotent: applied again over a migrated store
                await db.run_raw(stmt)
            await db.run_raw("CALL db.awaitIndexes(60)")
            found = {}
            for kind in ("fact", "episode", "memo", "procedure"):
                rows = await db.run_raw(search, {"kind": kind})
                found[kind] = list(rows[0]["ids"])
            return found
        finally:
            await db.run_raw("MATCH (n) WHERE n.tenant = $t DETACH DELETE n", {"t": tenant})
            await db.close()

    assert asyncio.run(go()) == {
        "fact": ["mig-t-f"],
        "episode": ["mig-t-e"],
        "memo": ["mig-t-m"],
        "procedure": ["mig-t-p"],
    }
