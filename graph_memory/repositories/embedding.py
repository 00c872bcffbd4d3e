"""The embedder the store's vectors were made with, recorded once per store."""

from __future__ import annotations

from dataclasses import dataclass

from graph_memory.db import Database

__all__ = ["EmbeddingRecord", "EmbeddingRepository"]


@dataclass(frozen=True)
class EmbeddingRecord:
    model: str
    dimensions: int
    # Set while `graph-memory reembed` replaces every vector: the model it switches to.
    switching_to: str | None


class EmbeddingRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self) -> EmbeddingRecord | None:
        rows = await self.db.read("embedding.get", {})
        if not rows:
            return None
        r = rows[0]
        return EmbeddingRecord(str(r["model"]), int(r["dimensions"]), r["switching_to"])

    async def record(self, model: str, dimensions: int) -> None:
        await self.db.write("embedding.set", {"model": model, "dimensions": dimensions})
