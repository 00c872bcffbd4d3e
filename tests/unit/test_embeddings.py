"""Embeddings: the real local model (files only, no network), the OpenAI-compatible client's
configuration and the factory. The OpenAI client's requests are tested against a local
OpenAI-compatible server in tests/integration/test_openai_embeddings.py."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graph_memory import embeddings
from graph_memory.embeddings import (
    Embedder,
    EmbedderError,
    LocalEmbedder,
    OpenAIEmbedder,
    build_embedder,
)
from graph_memory.embeddings import local as local_module
from graph_memory.embeddings.local import batches_by_length
from graph_memory.settings import Settings


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_public_api() -> None:
    assert sorted(embeddings.__all__) == sorted(
        [
            "Embedder",
            "EmbedderError",
            "InFront",
            "LocalEmbedder",
            "OpenAIEmbedder",
            "build_embedder",
        ]
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


def _cost(batches: list[list[int]], lengths: list[int], run_tokens: int) -> int:
    return sum(run_tokens + len(b) * max(lengths[i] for i in b) for b in batches)


@settings(max_examples=200, deadline=None)
@given(
    lengths=st.lists(st.integers(min_value=1, max_value=256), max_size=9),
    max_rows=st.integers(min_value=1, max_value=5),
)
def test_batches_by_length_computes_the_fewest_tokens_within_the_limits(
    lengths: list[int], max_rows: int
) -> None:
    """Every text once; no batch over its rows or padded tokens (bar a lone text); and no cut
    of the sorted order computes fewer tokens (brute force over every cut)."""
    max_tokens, run_tokens = 300, 7
    got = batches_by_length(lengths, max_rows, max_tokens, run_tokens)
    assert sorted(i for b in got for i in b) == list(range(len(lengths)))
    for b in got:
        assert len(b) <= max_rows
        assert len(b) == 1 or len(b) * max(lengths[i] for i in b) <= max_tokens
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    best = None
    for mask in range(1 << max(0, len(order) - 1)):
        cuts, start = [], 0
        for k in range(1, len(order)):
            if mask >> (k - 1) & 1:
                cuts.append(order[start:k])
                start = k
        if order:
            cuts.append(order[start:])
        if any(len(c) > max_rows for c in cuts) or any(
            len(c) > 1 and len(c) * max(lengths[i] for i in c) > max_tokens for c in cuts
        ):
            continue
        cost = _cost(cuts, lengths, run_tokens)
        best = cost if best is None else min(best, cost)
    assert _cost(got, lengths, run_tokens) == (best or 0)


def test_a_long_text_does_not_pad_the_short_ones_batched_with_it() -> None:
    # A session's summary (~30 tokens) and its short facts (~6): one padded run computed 180
    # tokens where two runs compute ~65 (the model's cost is linear in padded tokens).
    assert batches_by_length([6, 5, 30, 7, 6, 8], 64, 2048, 7) == [[1, 0, 4, 3, 5], [2]]


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


# --- OpenAI-compatible endpoint (its requests: tests/integration/test_openai_embeddings.py)


def test_openai_unknown_model_needs_dimensions() -> None:
    with pytest.raises(ValueError, match="GRAPH_MEMORY_OPENAI_EMBEDDING_DIMENSIONS"):
        OpenAIEmbedder(model="some-local-model", base_url="http://localhost:1/v1")


# --- factory -----------------------------------------------------------------------------


def test_build_embedder_local_by_default() -> None:
    embedder = build_embedder(Settings())
    assert isinstance(embedder, LocalEmbedder)


def test_the_local_model_runs_on_one_thread_unless_told(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRAPH_MEMORY_EMBED_THREADS", raising=False)
    assert Settings.from_env().embed_threads == 1
    monkeypatch.setenv("GRAPH_MEMORY_EMBED_THREADS", "3")
    embedder = build_embedder(Settings.from_env())
    assert isinstance(embedder, LocalEmbedder) and embedder._intra_op_threads == 3
    monkeypatch.setenv("GRAPH_MEMORY_EMBED_THREADS", "0")
    assert Settings.from_env().embed_threads == 1


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
