"""Schema migrations: ``cypher/schema/NNN_name.cypher`` applied in order, recorded in the graph.

Each file is idempotent DDL (``IF NOT EXISTS``); the applied version lives on a
``(:SchemaMigration)`` node per file. A database whose recorded version is newer than any file
here was migrated by newer code: we refuse to touch it rather than guess.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from graph_memory.cypher import cypher_root
from graph_memory.db import Database
from graph_memory.errors import MigrationError
from graph_memory.services.store.speaker_backfill import backfill_speakers
from graph_memory.services.store.timeline_backfill import backfill_timelines

__all__ = [
    "Migration",
    "applied_version",
    "applied_versions",
    "migrate",
    "pending",
    "schema_migrations",
]

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.cypher$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: tuple[str, ...]


def _split(source: str) -> tuple[str, ...]:
    lines = [ln for ln in source.splitlines() if not ln.strip().startswith("//")]
    return tuple(s.strip() for s in "\n".join(lines).split(";") if s.strip())


def schema_migrations(root: Path | None = None) -> list[Migration]:
    folder = (root or cypher_root()) / "schema"
    out: list[Migration] = []
    for path in sorted(folder.glob("*.cypher")):
        m = _NAME.match(path.name)
        if not m:
            raise MigrationError(f"bad migration file name {path.name}: want NNN_name.cypher")
        out.append(Migration(int(m.group(1)), m.group(2), _split(path.read_text())))
    versions = [m.version for m in out]
    if len(set(versions)) != len(versions):
        raise MigrationError(f"duplicate migration numbers in {folder}")
    return out


async def applied_versions(db: Database) -> set[int]:
    rows = await db.run_raw("MATCH (m:SchemaMigration) RETURN m.version AS v")
    return {int(r["v"]) for r in rows}


async def applied_version(db: Database) -> int:
    return max(await applied_versions(db), default=0)


async def pending(db: Database) -> list[Migration]:
    done = await applied_versions(db)
    return [m for m in schema_migrations() if m.version not in done]


async def migrate(
    db: Database, *, dimensions: int, progress: Callable[[int], None] | None = None
) -> list[Migration]:
    """Apply every migration not yet recorded, in order; returns the ones applied.

    Raises MigrationError when the database is ahead of this code. A lower-numbered file added
    after a higher one was applied (parallel branches) is still applied: each file is
    idempotent DDL, tracked by its own number.
    """
    known = schema_migrations()
    latest = max((m.version for m in known), default=0)
    done = await applied_versions(db)
    current = max(done, default=0)
    if current > latest:
        raise MigrationError(
            f"database schema is at version {current} but this graph_memory knows only up to "
            f"{latest}: upgrade graph_memory instead of running an older one against it"
        )
    applied: list[Migration] = []
    for m in known:
        if m.version in done:
            continue
        for stmt in m.statements:
            params = {"dimensions": dimensions} if "$dimensions" in stmt else {}
            try:
                await db.run_raw(stmt, params)
            except Exception as e:  # the driver raises many kinds; all abort the migration
                raise MigrationError(f"migration {m.version:03d}_{m.name} failed: {e}") from e
        await db.run_raw(
            "MERGE (s:SchemaMigration {version: $v}) "
            "SET s.name = $n, s.applied_at = datetime(), s.caption = $caption",
            {"v": m.version, "n": m.name, "caption": f"{m.version:03d} {m.name}"},
        )
        applied.append(m)
    await db.run_raw("CALL db.awaitIndexes(300)")
    # Data migrations that need the time rule (Python, not DDL): resumable, done once.
    await backfill_timelines(db, progress)
    await backfill_speakers(db)
    return applied
