"""The embedding model in use is recorded in the graph; vectors from two models never mix."""

from __future__ import annotations

from graph_memory.db import Database
from graph_memory.embeddings import Embedder
from graph_memory.errors import MigrationError

__all__ = ["check_embedding_model"]


async def check_embedding_model(db: Database, embedder: Embedder, *, record: bool) -> None:
    """Raise MigrationError when the store was embedded with another model or dimension."""
    rows = await db.read("embedding.get", {})
    if not rows:
        if record:
            await db.write(
                "embedding.set", {"model": embedder.model, "dimensions": embedder.dimensions}
            )
        return
    model, dims = rows[0]["model"], rows[0]["dimensions"]
    if model != embedder.model or dims != embedder.dimensions:
        raise MigrationError(
            f"the store holds embeddings from {model} ({dims} dims) but the configured embedder "
            f"is {embedder.model} ({embedder.dimensions} dims): set GRAPH_MEMORY_EMBEDDER back, "
            "or migrate into a fresh store (vectors of two models cannot be compared)"
        )
