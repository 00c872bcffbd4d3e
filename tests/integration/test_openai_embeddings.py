"""The OpenAI-compatible embedder against a local OpenAI-compatible server (FakeLLM's
/v1/embeddings): the real HTTP protocol as the `openai` SDK speaks it, scripted answers and
failures. No Neo4j is needed."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable

import numpy as np
import pytest

from graph_memory.embeddings import EmbedderError, OpenAIEmbedder
from tests.integration.fake_llm import Answer, FakeLLM

Make = Callable[..., OpenAIEmbedder]


@pytest.fixture(autouse=True)
def fresh_endpoint(fake: FakeLLM) -> None:
    """The module's endpoint (conftest `fake`) with nothing scripted or recorded yet."""
    fake.reset_embeddings(dims=4)


@pytest.fixture
def make_embedder(fake: FakeLLM) -> Make:
    def make(**kwargs: object) -> OpenAIEmbedder:
        options: dict[str, object] = {
            "model": "fake-embed",
            "dimensions": fake.embedding_dims,
            "base_url": fake.url,
            "api_key": "test-key",
            "retry_wait_initial": 0.0,
            "retry_wait_max": 0.0,
        }
        options.update(kwargs)
        return OpenAIEmbedder(**options)  # type: ignore[arg-type]

    return make


def decode(vector: list[float]) -> int:
    """Recover n from a normalised [1, n, 0, ...] (float32, so round to the integer)."""
    return round(vector[1] / vector[0])


async def test_openai_batches_split_into_requests_in_order(
    fake: FakeLLM, make_embedder: Make
) -> None:
    embedder = make_embedder(batch_size=256)
    texts = [f"t{i}" for i in range(600)]
    vectors = await embedder.embed(texts)
    # Batches go out concurrently, so they may arrive in any order.
    sizes = sorted(len(b["input"]) for b in fake.embedding_requests)
    assert sizes == [88, 256, 256]
    assert [decode(v) for v in vectors] == list(range(600))
    for vector in vectors:
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-6)
    assert all(b["encoding_format"] == "float" for b in fake.embedding_requests)
    assert "dimensions" not in fake.embedding_requests[0]  # not sent to a model we do not know


async def test_openai_reorders_by_index(fake: FakeLLM, make_embedder: Make) -> None:
    fake.embedding_reverse = True
    vectors = await make_embedder().embed(["t1", "t2", "t3"])
    assert [decode(v) for v in vectors] == [1, 2, 3]


async def test_openai_retries_transient_errors_then_succeeds(
    fake: FakeLLM, make_embedder: Make
) -> None:
    # A delay past the client's timeout is a transport failure (no answer in time).
    fake.fail_embeddings(429, 500, Answer(delay=1.5), 503)
    vectors = await make_embedder(max_attempts=5, timeout=0.5).embed(["t7"])
    assert len(fake.embedding_requests) == 5
    assert decode(vectors[0]) == 7


async def test_openai_does_not_retry_client_errors(fake: FakeLLM, make_embedder: Make) -> None:
    fake.fail_embeddings(400)
    with pytest.raises(EmbedderError, match="embedding request failed: ") as caught:
        await make_embedder().embed(["t1"])
    assert len(fake.embedding_requests) == 1
    assert "after retries" not in str(caught.value)


async def test_openai_failure_in_one_of_many_batches_is_one_error(
    fake: FakeLLM, make_embedder: Make
) -> None:
    fake.fail_embeddings(400)
    with pytest.raises(EmbedderError):  # not an ExceptionGroup from the concurrent batches
        await make_embedder(batch_size=1).embed(["t1", "t2", "t3"])
    # The sibling requests were cancelled here, but those already sent still reach the server:
    # wait for it to go quiet, so they are not counted as the next test's requests.
    seen, quiet_since, deadline = -1, time.monotonic(), time.monotonic() + 3
    while time.monotonic() - quiet_since < 0.3 and time.monotonic() < deadline:
        if len(fake.embedding_requests) != seen:
            seen, quiet_since = len(fake.embedding_requests), time.monotonic()
        await asyncio.sleep(0.02)


async def test_openai_gives_up_after_max_attempts(fake: FakeLLM, make_embedder: Make) -> None:
    fake.fail_embeddings(*[503] * 10)
    with pytest.raises(EmbedderError, match="after retries"):
        await make_embedder(max_attempts=3).embed(["t1", "t2"])
    assert len(fake.embedding_requests) == 3


async def test_openai_wrong_vector_size_is_an_error(make_embedder: Make) -> None:
    with pytest.raises(EmbedderError, match="expected vectors of 8 dimensions"):
        await make_embedder(dimensions=8).embed(["t1"])


async def test_openai_sends_dimensions_for_text_embedding_3(
    fake: FakeLLM, make_embedder: Make
) -> None:
    embedder = make_embedder(model="text-embedding-3-small", dimensions=fake.embedding_dims)
    await embedder.embed(["t1"])
    assert fake.embedding_requests[0]["dimensions"] == fake.embedding_dims
    assert fake.embedding_requests[0]["model"] == "text-embedding-3-small"


async def test_openai_sends_the_key_and_the_texts(fake: FakeLLM, make_embedder: Make) -> None:
    (vector,) = await make_embedder(api_key="sk-local").embed(["Alice lives in Berlin"])
    assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-6)
    assert fake.embedding_requests[0]["input"] == ["Alice lives in Berlin"]
    assert fake.embedding_requests[0]["model"] == "fake-embed"
    assert fake.embedding_auth == ["Bearer sk-local"]


async def test_openai_without_a_key_sends_a_placeholder_to_a_local_server(
    fake: FakeLLM, make_embedder: Make, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ollama and vLLM ignore the key, but the SDK will not start without one.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    await make_embedder(api_key=None).embed(["t3"])
    assert fake.embedding_auth == ["Bearer unused"]


async def test_openai_embed_query_is_cached(fake: FakeLLM, make_embedder: Make) -> None:
    embedder = make_embedder()
    first = await embedder.embed_query("t5")
    second = await embedder.embed_query("t5")
    assert first == second
    assert decode(first) == 5
    assert len(fake.embedding_requests) == 1
