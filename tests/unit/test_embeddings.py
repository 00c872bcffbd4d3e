"""Embeddings: the real local model (files only, no network) and the OpenAI-compatible client
against an in-process `httpx.MockTransport`."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from openai import AsyncOpenAI

from graph_memory import embeddings
from graph_memory.embeddings import (
    Embedder,
    EmbedderError,
    LocalEmbedder,
    OpenAIEmbedder,
    build_embedder,
)
from graph_memory.embeddings import local as local_module
from graph_memory.settings import Settings


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_public_api() -> None:
    assert sorted(embeddings.__all__) == sorted(
        ["Embedder", "EmbedderError", "LocalEmbedder", "OpenAIEmbedder", "build_embedder"]
    )


# --- local model -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def local() -> LocalEmbedder:
    embedder = LocalEmbedder()
    embedder.load()
    return embedder


async def test_local_vectors_are_384_dims_unit_length_in_order(local: LocalEmbedder) -> None:
    texts = ["Alice lives in Berlin", "", "the deploy failed at 3am", "Alice lives in Berlin"]
    vectors = await local.embed(texts)
    assert isinstance(local, Embedder)
    assert local.model == "all-MiniLM-L6-v2-int8"
    assert local.dimensions == 384
    assert len(vectors) == len(texts)
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(x, float) for x in vector)
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-5)
    assert vectors[0] == pytest.approx(vectors[3], abs=1e-6)
    assert await local.embed([]) == []


async def test_local_similar_meanings_are_closer(local: LocalEmbedder) -> None:
    coffee, likes, crash = await local.embed(
        ["my favourite drink is coffee", "I like coffee", "the server crashed"]
    )
    assert cosine(coffee, likes) > 0.6
    assert cosine(coffee, likes) > cosine(coffee, crash) + 0.4


async def test_local_batch_matches_one_at_a_time() -> None:
    # A tiny batch size forces several padded batches, sorted by length, to be stitched back.
    embedder = LocalEmbedder(batch_size=3)
    texts = [
        "short",
        "a somewhat longer sentence about databases and graphs",
        "Bob",
        "the quarterly report was filed late because the auditor was ill",
        "coffee",
        "Neo4j stores facts as nodes and relationships with validity intervals",
        "x",
    ]
    together = await embedder.embed(texts)
    for text, vector in zip(texts, together, strict=True):
        (alone,) = await embedder.embed([text])
        assert alone == pytest.approx(vector, abs=1e-5)


async def test_local_long_input_is_truncated_not_rejected(local: LocalEmbedder) -> None:
    # Both exceed 256 tokens, so both are cut to the same first 256 and embed identically.
    long_a, long_b = await local.embed(["word " * 400, "word " * 1000])
    assert long_a == pytest.approx(long_b, abs=1e-6)


async def test_local_embed_query_matches_embed_and_is_cached(local: LocalEmbedder) -> None:
    text = "where does Alice work?"
    first = await local.embed_query(text)
    assert first == pytest.approx((await local.embed([text]))[0], abs=1e-6)
    first[0] = 42.0  # a caller mutating its copy must not corrupt the cache
    again = await local.embed_query(text)
    assert again[0] != 42.0
    assert math.isclose(float(np.linalg.norm(again)), 1.0, abs_tol=1e-5)


async def test_local_runs_off_the_event_loop(local: LocalEmbedder) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    await local.embed(["a fact about something"] * 128)
    task.cancel()
    assert ticks > 1


async def test_local_loads_once_under_concurrent_first_use(
    monkeypatch: pytest.MonkeyPatch, local: LocalEmbedder
) -> None:
    loads = 0
    real_load = LocalEmbedder._load

    def counting_load(self: LocalEmbedder) -> object:
        nonlocal loads
        loads += 1
        return real_load(self)

    monkeypatch.setattr(LocalEmbedder, "_load", counting_load)
    embedder = LocalEmbedder()
    texts = [f"concurrent fact number {i}" for i in range(8)]
    results = await asyncio.gather(*(embedder.embed([t]) for t in texts))
    assert loads == 1
    expected = await local.embed(texts)
    for (got,), want in zip(results, expected, strict=True):
        assert got == pytest.approx(want, abs=1e-5)


@pytest.mark.parametrize("constant", ["MODEL_SHA256", "TOKENIZER_SHA256"])
def test_local_hash_mismatch_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch, constant: str
) -> None:
    monkeypatch.setattr(local_module, constant, "0" * 64)
    with pytest.raises(EmbedderError, match=r"sha256 [0-9a-f]{64}, expected 0{64}"):
        LocalEmbedder().load()


def test_local_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EmbedderError, match="cannot read the embedding model"):
        LocalEmbedder(model_path=tmp_path / "absent.onnx").load()


def test_local_rejects_more_tokens_than_the_model_has_positions() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        LocalEmbedder(max_tokens=513)


# --- OpenAI-compatible endpoint -------------------------------------------------------------

Handler = Callable[[httpx.Request], httpx.Response]


class FakeServer:
    """Records request bodies; answers each text "t<n>" with the vector [1, n, 0, ...]."""

    def __init__(self, dims: int = 4) -> None:
        self.dims = dims
        self.bodies: list[dict[str, object]] = []
        self.failures: list[int | Exception] = []  # consumed one per request, then success
        self.reverse = False

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        if self.failures:
            failure = self.failures.pop(0)
            if isinstance(failure, Exception):
                raise failure
            return httpx.Response(failure, json={"error": {"message": f"status {failure}"}})
        data = []
        for index, text in enumerate(body["input"]):
            n = float(text[1:]) if text.startswith("t") else 0.0
            data.append({"object": "embedding", "index": index, "embedding": self.vector(n)})
        if self.reverse:
            data.reverse()
        usage = {"prompt_tokens": 1, "total_tokens": 1}
        return httpx.Response(
            200, json={"object": "list", "model": body["model"], "data": data, "usage": usage}
        )

    def vector(self, n: float) -> list[float]:
        return [1.0, n] + [0.0] * (self.dims - 2)


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


@pytest.fixture
def make_embedder(server: FakeServer) -> Iterator[Callable[..., OpenAIEmbedder]]:
    def make(**kwargs: object) -> OpenAIEmbedder:
        client = AsyncOpenAI(
            api_key="test-key",
            base_url="http://embeddings.test/v1",
            # openai types its http_client against its own bundled httpx stubs.
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)),  # type: ignore[arg-type]
        )
        options: dict[str, object] = {
            "model": "fake-embed",
            "dimensions": server.dims,
            "client": client,
            "retry_wait_initial": 0.0,
            "retry_wait_max": 0.0,
        }
        options.update(kwargs)
        return OpenAIEmbedder(**options)  # type: ignore[arg-type]

    yield make


def decode(vector: list[float]) -> int:
    """Recover n from a normalised [1, n, 0, ...] (float32, so round to the integer)."""
    return round(vector[1] / vector[0])


async def test_openai_batches_split_into_requests_in_order(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    embedder = make_embedder(batch_size=256)
    texts = [f"t{i}" for i in range(600)]
    vectors = await embedder.embed(texts)
    # Batches go out concurrently, so they may arrive in any order.
    sizes = sorted(len(b["input"]) for b in server.bodies)  # type: ignore[arg-type]
    assert sizes == [88, 256, 256]
    assert [decode(v) for v in vectors] == list(range(600))
    for vector in vectors:
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-6)
    assert all(b["encoding_format"] == "float" for b in server.bodies)
    assert "dimensions" not in server.bodies[0]  # not sent to a model we do not know


async def test_openai_reorders_by_index(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    server.reverse = True
    vectors = await make_embedder().embed(["t1", "t2", "t3"])
    assert [decode(v) for v in vectors] == [1, 2, 3]


async def test_openai_retries_transient_errors_then_succeeds(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    server.failures = [429, 500, httpx.ConnectError("refused"), 503]
    vectors = await make_embedder(max_attempts=5).embed(["t7"])
    assert len(server.bodies) == 5
    assert decode(vectors[0]) == 7


async def test_openai_does_not_retry_client_errors(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    server.failures = [400]
    with pytest.raises(EmbedderError, match="embedding request failed: ") as caught:
        await make_embedder().embed(["t1"])
    assert len(server.bodies) == 1
    assert "after retries" not in str(caught.value)


async def test_openai_failure_in_one_of_many_batches_is_one_error(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    server.failures = [400]
    with pytest.raises(EmbedderError):  # not an ExceptionGroup from the concurrent batches
        await make_embedder(batch_size=1).embed(["t1", "t2", "t3"])


async def test_openai_gives_up_after_max_attempts(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    server.failures = [503] * 10
    with pytest.raises(EmbedderError, match="after retries"):
        await make_embedder(max_attempts=3).embed(["t1", "t2"])
    assert len(server.bodies) == 3


async def test_openai_wrong_vector_size_is_an_error(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    with pytest.raises(EmbedderError, match="expected vectors of 8 dimensions"):
        await make_embedder(dimensions=8).embed(["t1"])


async def test_openai_sends_dimensions_for_text_embedding_3(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    embedder = make_embedder(model="text-embedding-3-small", dimensions=server.dims)
    await embedder.embed(["t1"])
    assert server.bodies[0]["dimensions"] == server.dims
    assert server.bodies[0]["model"] == "text-embedding-3-small"


async def test_openai_embed_query_is_cached(
    server: FakeServer, make_embedder: Callable[..., OpenAIEmbedder]
) -> None:
    embedder = make_embedder()
    first = await embedder.embed_query("t5")
    second = await embedder.embed_query("t5")
    assert first == second
    assert decode(first) == 5
    assert len(server.bodies) == 1


def test_openai_unknown_model_needs_dimensions() -> None:
    with pytest.raises(ValueError, match="GRAPH_MEMORY_OPENAI_EMBEDDING_DIMENSIONS"):
        OpenAIEmbedder(model="some-local-model", base_url="http://localhost:1/v1")


# --- factory -----------------------------------------------------------------------------


def test_build_embedder_local_by_default() -> None:
    embedder = build_embedder(Settings())
    assert isinstance(embedder, LocalEmbedder)


def test_build_embedder_openai() -> None:
    settings = Settings(
        embedder="openai",
        openai_api_key="sk-test",
        openai_embedding_model="text-embedding-3-large",
        openai_embedding_dimensions=256,
    )
    embedder = build_embedder(settings)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.model == "text-embedding-3-large"
    assert embedder.dimensions == 256


def test_build_embedder_unknown_name() -> None:
    with pytest.raises(ValueError, match=r"unknown embedder 'bert'.*local, openai"):
        build_embedder(Settings(embedder="bert"))
