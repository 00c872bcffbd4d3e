"""The graph side of a re-embedding: batches of embedded nodes in id order, their staged and
live vectors, the run's recorded progress and the vector indexes.

A re-embedding is store-wide (one embedder serves every tenant: vectors of two models never
share an index), like a schema migration, so these queries name no tenant; they read and
write vectors only, never a memory's content.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph_memory.db import Database, Tx

__all__ = ["PendingNode", "ReembedRepository", "StoredEmbedder"]


@dataclass(frozen=True)
class PendingNode:
    id: str
    text: str
    intent: str | None
    description: str | None
    # A digest's members' vectors (staged ones first): its own is their mean.
    members: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class StoredEmbedder:
    model: str
    dimensions: int
    switching_to: str | None


class ReembedRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def stored_embedder(self) -> StoredEmbedder | None:
        rows = await self.db.read("embedding.get", {})
        if not rows:
            return None
        r = rows[0]
        return StoredEmbedder(str(r["model"]), int(r["dimensions"]), r["switching_to"])

    async def counts(self) -> dict[str, int]:
        rows = await self.db.read("reembed.count", {})
        return {k: int(v) for k, v in rows[0].items()}

    async def run(self) -> dict[str, Any] | None:
        rows = await self.db.read("reembed.run_get", {})
        return dict(rows[0]["run"]) if rows else None

    async def pending(
        self, kind: str, mode: str, dimensions: int, after: str, limit: int
    ) -> list[PendingNode]:
        rows = await self.db.read(
            "reembed.pending",
            {"kind": kind, "mode": mode, "dimensions": dimensions, "after": after, "limit": limit},
        )
        return [
            PendingNode(
                id=str(r["id"]),
                text=str(r["text"] or ""),
                intent=r["intent"],
                description=r["description"],
                members=tuple(tuple(float(x) for x in m) for m in (r["members"] or []) if m),
            )
            for r in rows
        ]

    @staticmethod
    async def save_run(tx: Tx, props: dict[str, Any]) -> None:
        await tx.run("reembed.run_set", {"props": props})

    @staticmethod
    async def stage(tx: Tx, kind: str, mode: str, rows: Sequence[dict[str, Any]]) -> int:
        done = await tx.run("reembed.stage", {"kind": kind, "mode": mode, "rows": list(rows)})
        return len(done)

    @staticmethod
    async def switch(tx: Tx, kind: str, after: str, limit: int) -> list[str]:
        rows = await tx.run("reembed.switch", {"kind": kind, "after": after, "limit": limit})
        return [str(r["id"]) for r in rows]

    @staticmethod
    async def discard(tx: Tx, kind: str, after: str, limit: int) -> list[str]:
        rows = await tx.run("reembed.discard", {"kind": kind, "after": after, "limit": limit})
        return [str(r["id"]) for r in rows]

    @staticmethod
    async def begin_switch(tx: Tx, model: str) -> None:
        await tx.run("embedding.switching", {"model": model})

    @staticmethod
    async def finish(tx: Tx, model: str, dimensions: int) -> None:
        await tx.run("embedding.set", {"model": model, "dimensions": dimensions})
        await tx.run("reembed.run_delete", {})

    @staticmethod
    async def forget_run(tx: Tx) -> None:
        await tx.run("reembed.run_delete", {})

    async def vector_indexes(self) -> dict[str, int]:
        rows = await self.db.read("reembed.vector_indexes", {})
        return {str(r["name"]): int(r["dimensions"]) for r in rows}

    async def drop_index(self, name: str) -> None:
        await self.db.write("reembed.drop_index", {"name": name})

    async def create_vector_indexes(self, statements: Sequence[str], dimensions: int) -> None:
        """The vector-index DDL of cypher/schema (the migrations' own statements: one place
        says how an index is made), for the new vector size."""
        for stmt in statements:
            await self.db.run_raw(stmt, {"dimensions": dimensions})
        await self.db.run_raw("CALL db.awaitIndexes(600)")
