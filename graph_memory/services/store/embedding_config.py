"""The embedding model in use is recorded in the graph; vectors from two models never mix.

`migrate` records it on a fresh store, `graph-memory reembed` changes it
(services/store/reembed.py), and every service process checks its own embedder against it: at
start-up, and, through
`StoreBoundEmbedder`, before any vector work, so a process left on the old embedder after a
re-embedding refuses instead of writing or comparing vectors of another model.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from graph_memory.db import Database
from graph_memory.embeddings import Embedder, EmbedderError, InFront
from graph_memory.errors import MigrationError
from graph_memory.repositories.embedding import EmbeddingRepository

__all__ = [
    "CHECK_SECONDS",
    "EmbedderMismatch",
    "EmbedderSwitching",
    "StoreBoundEmbedder",
    "check_embedding_model",
]

# How long a process trusts its last look at the store's embedder; a re-embedding's switch
# waits this long (plus a grace) before replacing vectors, so every process has seen it.
CHECK_SECONDS = 5.0


class EmbedderMismatch(EmbedderError):
    """The store's vectors were made by another embedder than this process's (a
    re-embedding switched them): restart the process with the store's embedder."""

    code = "EMBEDDER_MISMATCH"


class EmbedderSwitching(EmbedderError):
    """A re-embedding is replacing the store's vectors right now: retry in a moment."""

    code = "EMBEDDER_SWITCHING"


async def _stored(db: Database) -> tuple[str, int, str | None] | None:
    found = await EmbeddingRepository(db).get()
    return None if found is None else (found.model, found.dimensions, found.switching_to)


Stored = tuple[str, int, str | None]


def _problem(embedder: Embedder, stored: Stored | None) -> EmbedderError | None:
    if stored is None:
        return None  # not migrated yet: nothing to disagree with
    model, dims, switching_to = stored
    if switching_to is not None:
        return EmbedderSwitching(
            f"the store's vectors are being switched to {switching_to} by `graph-memory "
            "reembed`: vector search and writes that embed resume when it ends; retry shortly"
        )
    if model != embedder.model or dims != embedder.dimensions:
        return EmbedderMismatch(
            f"the store's vectors are from {model} ({dims} dims) but this process embeds with "
            f"{embedder.model} ({embedder.dimensions} dims): restart it with the store's "
            "embedder (GRAPH_MEMORY_EMBEDDER and its settings)"
        )
    return None


async def check_embedding_model(db: Database, embedder: Embedder, *, record: bool) -> None:
    """Raise MigrationError when the store was embedded with another model or dimension.

    A store whose re-embedding is switching to this very embedder passes: the process will
    serve once the switch ends (until then its vector work is refused, see StoreBoundEmbedder).
    """
    stored = await _stored(db)
    if stored is None:
        if record:
            await EmbeddingRepository(db).record(embedder.model, embedder.dimensions)
        return
    model, dims, switching_to = stored
    if switching_to == embedder.model:
        return
    if model != embedder.model or dims != embedder.dimensions:
        raise MigrationError(
            f"the store holds embeddings from {model} ({dims} dims) but the configured embedder "
            f"is {embedder.model} ({embedder.dimensions} dims): set GRAPH_MEMORY_EMBEDDER back, "
            "or switch the store to it with `graph-memory reembed` (vectors of two models "
            "cannot be compared)"
        )


class StoreBoundEmbedder(InFront):
    """The service's embedder, which embeds only while the store's vectors are its model's.

    The store's identity is read at most once per `check_seconds` (one small read, shared by
    every request of the process); a re-embedding waits that long before its switch, so no
    process embeds with a model the store no longer holds. Raises EmbedderSwitching while a
    switch runs and EmbedderMismatch after it for a process still on the old embedder.
    """

    def __init__(
        self,
        inner: Embedder,
        db: Database,
        *,
        check_seconds: float = CHECK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(inner)
        self._db = db
        self._check_seconds = check_seconds
        self._clock = clock
        self._checked_at: float | None = None
        self._stored: tuple[str, int, str | None] | None = None

    async def problem(self) -> EmbedderError | None:
        """What keeps this process from embedding now, or None (for /ready)."""
        now = self._clock()
        if self._checked_at is None or now - self._checked_at >= self._check_seconds:
            self._stored = await _stored(self._db)
            self._checked_at = now
        return _problem(self.inner, self._stored)

    async def _check(self) -> None:
        problem = await self.problem()
        if problem is not None:
            raise problem

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        await self._check()
        return await self.inner.embed(texts)

    async def embed_query(self, text: str) -> list[float]:
        await self._check()
        return await self.inner.embed_query(text)
