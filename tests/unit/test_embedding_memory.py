"""Long texts embed in bounded batches and hand the model's scratch memory back."""

from __future__ import annotations

import random

from graph_memory.embeddings.local import (
    _BATCH_TOKENS,
    _RUN_TOKENS,
    LocalEmbedder,
    batches_by_length,
)


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        line = next(x for x in f if x.startswith("VmRSS:"))
    return int(line.split()[1]) / 1024


def test_batches_hold_a_bounded_number_of_tokens() -> None:
    lengths = [4] * 100 + [256] * 40  # short texts, and summaries cut at the model's 256
    batches = batches_by_length(lengths, 64, _BATCH_TOKENS, _RUN_TOKENS)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len(b) <= 64 for b in batches)
    long_batches = [b for b in batches if lengths[b[0]] == 256]
    assert long_batches and all(len(b) * 256 <= _BATCH_TOKENS for b in long_batches)


def test_long_texts_leave_memory_near_where_it_was() -> None:
    e = LocalEmbedder()
    e.load()
    e.encode(["warm up the arena with a first short text"])
    rnd = random.Random(1)
    texts = [f"user {i} spoke of order {rnd.random()} " * 20 for i in range(16)]
    before = _rss_mb()
    vectors = e.encode(texts)
    grown = _rss_mb() - before
    assert vectors.shape == (16, 384)
    # One padded batch of 16 x 256 tokens grew the arena by ~400 MB and kept it.
    assert grown < 150, f"RSS grew {grown:.0f} MB"
