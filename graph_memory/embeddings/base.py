"""The `Embedder` protocol every backend satisfies, its error, and helpers they share."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from graph_memory.errors import GraphMemoryError

__all__ = [
    "Embedder",
    "EmbedderError",
    "InFront",
    "QueryCache",
    "Vector",
    "l2_normalise",
    "vectors_of",
]


class Vector(list[float]):
    """An embedding: a list of floats that prints short. The Neo4j driver formats every
    statement's parameters for its debug log whether that log is on or not (neo4j 6.4,
    _bolt6.run), and the repr of an ingested session's six 384-float vectors took ~1.9 ms of
    the worker's CPU a session. The store receives it packed exactly as a list."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<vector of {len(self)} floats>"


def vectors_of(rows: npt.NDArray[np.float32]) -> list[list[float]]:
    """The rows of an embedding array, each a `Vector`."""
    return [Vector(row) for row in rows.tolist()]


class EmbedderError(GraphMemoryError):
    """The embedding backend cannot produce vectors.

    A local model file that is missing or fails its pinned sha256, or a remote endpoint that
    refused the request or stayed unavailable after retries.
    """

    code = "EMBEDDER"


@runtime_checkable
class Embedder(Protocol):
    @property
    def model(self) -> str:
        """The model id vectors were made with; stored beside them so a change is noticed."""
        ...

    @property
    def dimensions(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in the order given.

        Raises `EmbedderError` when the backend cannot answer.
        """
        ...

    async def embed_query(self, text: str) -> list[float]:
        """The vector of one search query; implementations may cache it."""
        ...


class InFront:
    """An embedder in front of another: the same model and vectors, what a subclass adds
    around them (a check of the store's model, a record of what was asked)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self.inner.embed(texts)

    async def embed_query(self, text: str) -> list[float]:
        return await self.inner.embed_query(text)


def l2_normalise(vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Rows scaled to unit length, so cosine similarity is a dot product in the index."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    # An all-zero row stays zero instead of becoming NaN and poisoning the vector index.
    scaled: npt.NDArray[np.float32] = (vectors / np.maximum(norms, 1e-12)).astype(
        np.float32, copy=False
    )
    return scaled


class QueryCache:
    """A bounded LRU of query vectors.

    Agents repeat the same recall queries, so a hit saves a model run or an HTTP round trip.
    Values are stored as tuples so a caller mutating the list it got cannot corrupt the cache.
    """

    def __init__(self, maxsize: int) -> None:
        if maxsize < 0:
            raise ValueError(f"cache size must be >= 0, got {maxsize}")
        self._maxsize = maxsize
        self._items: OrderedDict[str, tuple[float, ...]] = OrderedDict()
        # Embedders are shared across threads (asyncio.to_thread, sync callers), so guard it.
        self._lock = threading.Lock()

    def get(self, key: str) -> list[float] | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                return None
            self._items.move_to_end(key)
            return Vector(value)

    def put(self, key: str, vector: Sequence[float]) -> None:
        if self._maxsize == 0:
            return
        with self._lock:
            self._items[key] = tuple(vector)
            self._items.move_to_end(key)
            while len(self._items) > self._maxsize:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
