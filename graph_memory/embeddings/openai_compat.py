"""Embeddings from any OpenAI-compatible endpoint (OpenAI, Azure-style proxies, vLLM, Ollama).

Retries belong to tenacity alone: the SDK's own retries are switched off, so one policy
decides and a 4xx is never sent twice.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import openai
from openai import AsyncOpenAI
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from graph_memory import metrics
from graph_memory.embeddings.base import EmbedderError, QueryCache, l2_normalise, vectors_of

__all__ = ["KNOWN_DIMENSIONS", "OpenAIEmbedder"]

# Native sizes, so the common models need no configured dimensions.
KNOWN_DIMENSIONS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}
# OpenAI caps a request at 2048 inputs; 256 keeps each request well under the token cap too.
DEFAULT_BATCH_SIZE = 256
_MAX_BATCH_SIZE = 2048
# Local servers (Ollama, vLLM) ignore the key but the SDK insists on one.
_PLACEHOLDER_KEY = "unused"


def _is_transient(error: BaseException) -> bool:
    # APITimeoutError is a subclass of APIConnectionError, so timeouts are covered here.
    if isinstance(error, openai.APIConnectionError):
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code == 429 or error.status_code >= 500
    return False


class _Wait:
    """Exponential backoff with jitter, but a server's Retry-After (within the cap) wins."""

    def __init__(self, initial: float, maximum: float) -> None:
        # Composed from the stable parts: wait_exponential_jitter renamed its arguments in 9.x.
        self._backoff = wait_exponential(multiplier=initial, max=maximum) + wait_random(0, initial)
        self._maximum = maximum

    def __call__(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        if isinstance(error, openai.APIStatusError):
            raw = error.response.headers.get("retry-after")
            try:
                seconds = float(raw) if raw is not None else None
            except ValueError:  # an HTTP date: rare enough to fall back to backoff
                seconds = None
            if seconds is not None and 0 <= seconds <= self._maximum:
                return seconds
        return float(self._backoff(state))


class OpenAIEmbedder:
    """Vectors from ``POST {base_url}/embeddings``, batched, retried on transient errors.

    `dimensions` is the size of the vectors; it is required for a model not in
    `KNOWN_DIMENSIONS`. It is sent to the server as the ``dimensions`` parameter only for the
    text-embedding-3 family by default, because other servers reject it for models that cannot
    shorten their vectors; force it either way with `send_dimensions`. Every returned vector
    is checked against it and L2-normalised here, since not every server normalises.
    """

    def __init__(
        self,
        *,
        model: str = "text-embedding-3-small",
        dimensions: int | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        client: AsyncOpenAI | None = None,
        send_dimensions: bool | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_concurrency: int = 4,
        max_attempts: int = 5,
        timeout: float = 30.0,
        retry_wait_initial: float = 0.5,
        retry_wait_max: float = 20.0,
        query_cache_size: int = 1024,
    ) -> None:
        if not 1 <= batch_size <= _MAX_BATCH_SIZE:
            raise ValueError(f"batch_size must be in [1, {_MAX_BATCH_SIZE}], got {batch_size}")
        if max_concurrency < 1 or max_attempts < 1:
            raise ValueError("max_concurrency and max_attempts must be >= 1")
        resolved = dimensions if dimensions is not None else KNOWN_DIMENSIONS.get(model)
        if resolved is None:
            raise ValueError(
                f"the size of {model!r} vectors is not known: set "
                "GRAPH_MEMORY_OPENAI_EMBEDDING_DIMENSIONS (openai_embedding_dimensions)"
            )
        if resolved < 1:
            raise ValueError(f"dimensions must be >= 1, got {resolved}")
        if send_dimensions is None:
            send_dimensions = dimensions is not None and model.startswith("text-embedding-3")
        self._model = model
        self._dimensions = resolved
        self._send_dimensions = send_dimensions
        self._batch_size = batch_size
        self._max_attempts = max_attempts
        self._wait = _Wait(retry_wait_initial, retry_wait_max)
        self._cache = QueryCache(query_cache_size)
        # Bounded so a large ingest does not trip the provider's rate limit all at once.
        self._semaphore = asyncio.Semaphore(max_concurrency)
        if client is None:
            key = api_key or os.environ.get("OPENAI_API_KEY")
            if key is None:
                if base_url is None:
                    raise ValueError("the OpenAI embedder needs OPENAI_API_KEY (or a base URL)")
                key = _PLACEHOLDER_KEY
            client = AsyncOpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)
        else:
            client = client.with_options(max_retries=0)
        self._client = client

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimensions(self) -> int:
        return self._dimensions

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        items = list(texts)
        if not items:
            return []
        batches = [items[i : i + self._batch_size] for i in range(0, len(items), self._batch_size)]
        # A TaskGroup cancels the sibling requests as soon as one batch fails for good.
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._embed_batch(batch)) for batch in batches]
        except ExceptionGroup as group_error:
            # Callers handle one EmbedderError, not a group; the first failure tells the story.
            raise group_error.exceptions[0]  # noqa: B904 - its own cause is already attached
        return [vector for task in tasks for vector in task.result()]

    async def embed_query(self, text: str) -> list[float]:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        (vector,) = await self.embed([text])
        self._cache.put(text, vector)
        return vector

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        async with self._semaphore:
            with metrics.timed_embedding(self._model, len(batch)):
                data = await self._request(batch)
        if len(data) != len(batch):
            raise EmbedderError(
                f"{self._model}: asked for {len(batch)} embeddings, got {len(data)}"
            )
        sizes = {len(vector) for vector in data}
        if sizes != {self._dimensions}:
            raise EmbedderError(
                f"{self._model}: expected vectors of {self._dimensions} dimensions, got "
                f"{sorted(sizes)}; check openai_embedding_dimensions"
            )
        vectors = np.asarray(data, dtype=np.float32)
        return vectors_of(l2_normalise(vectors))

    async def _request(self, batch: list[str]) -> list[list[float]]:
        kwargs: dict[str, Any] = {"model": self._model, "input": batch}
        if self._send_dimensions:
            kwargs["dimensions"] = self._dimensions
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self._max_attempts),
            wait=self._wait,
            retry=retry_if_exception(_is_transient),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    # Plain floats: compatible servers often do not implement base64.
                    response = await self._client.embeddings.create(
                        encoding_format="float", **kwargs
                    )
        except openai.OpenAIError as e:
            transient = " after retries" if _is_transient(e) else ""
            raise EmbedderError(f"{self._model}: embedding request failed{transient}: {e}") from e
        # Servers may answer out of order; `index` is the contract, not list position.
        ordered = sorted(response.data, key=lambda d: d.index)
        return [list(d.embedding) for d in ordered]
