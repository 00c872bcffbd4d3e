"""Local embedder figures: load time, single-query latency, batch throughput.

    .venv/bin/python bench/embed.py [--threads 2] [--queries 200] [--batches 20]

Queries go through the async `embed_query` path (worker thread included) with distinct
texts, so the LRU cache never answers; batches of 64 go through `embed`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from graph_memory.embeddings import LocalEmbedder

_SUBJECTS = ["Alice", "Bob", "the payments team", "our Berlin office", "the staging cluster"]
_VERBS = ["moved to", "depends on", "was renamed to", "reports to", "stopped using"]
_OBJECTS = ["Postgres 16", "the data platform group", "Lisbon", "a weekly release train", "Neo4j"]
_TAILS = [
    "",
    " after the reorganisation in March",
    " because latency on the old setup kept breaching the service level objective",
    " according to the notes from the quarterly planning meeting held on the fourth floor",
]


def _texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)}"
        f"{rng.choice(_TAILS)} (note {i})"
        for i in range(count)
    ]


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def _run(threads: int, queries: int, batches: int) -> None:
    embedder = LocalEmbedder(intra_op_threads=threads)
    start = time.perf_counter()
    embedder.load()
    print(f"load (sha256 checks + session + tokenizer): {time.perf_counter() - start:.3f} s")

    await embedder.embed_query("warm-up")
    latencies: list[float] = []
    for text in _texts(queries, seed=1):
        start = time.perf_counter()
        await embedder.embed_query(text)
        latencies.append((time.perf_counter() - start) * 1000)
    print(
        f"embed_query over {queries} distinct queries: p50 {statistics.median(latencies):.2f} ms,"
        f" p95 {_percentile(latencies, 0.95):.2f} ms, max {max(latencies):.2f} ms"
    )

    start = time.perf_counter()
    await embedder.embed_query("warm-up")
    print(f"embed_query cache hit: {(time.perf_counter() - start) * 1000:.3f} ms")

    corpus = _texts(64 * batches, seed=2)
    start = time.perf_counter()
    for i in range(batches):
        await embedder.embed(corpus[i * 64 : (i + 1) * 64])
    elapsed = time.perf_counter() - start
    words = statistics.mean(len(t.split()) for t in corpus)
    print(
        f"embed, {batches} batches of 64 ({words:.0f} words a text on average): "
        f"{len(corpus) / elapsed:.0f} texts/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--batches", type=int, default=20)
    args = parser.parse_args()
    asyncio.run(_run(args.threads, args.queries, args.batches))


if __name__ == "__main__":
    main()
