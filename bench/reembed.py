"""`graph-memory reembed` figures: nodes per second staged and switched, on a Neo4j of its own.

    .venv/bin/python bench/reembed.py [--facts 20000] [--episodes 2000] [--batch 256] [--local]

A re-embedding is store-wide, so this starts a scratch Neo4j (a temporary home on free ports,
the jars shared with GRAPH_MEMORY_JAR_CACHE / GRAPH_MEMORY_HOME) and stops it afterwards.
The store is loaded over Bolt (facts and episodes with 384-dim vectors, as the local model
writes them), then switched to a 256-dim embedder: by default a hash embedder that costs
nothing (the graph side alone), with `--local` the local model too (then the model is the
bottleneck: ~210 texts/s, bench/embed.py). Meanwhile a reader lists facts by id, to show that
plain reads keep answering (p50/p95 of a point read during the run vs before it).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serving import scratch_neo4j
from graph_memory.db import Database
from graph_memory.embeddings import Embedder, LocalEmbedder
from graph_memory.repositories.reembed import ReembedRepository
from graph_memory.services.store.reembed import Reembedder
from graph_memory.settings import Settings

_LOAD = """
UNWIND range($from, $to - 1) AS i
CREATE (f:Fact {id: 'fact_' + toString(i), tenant: 'bench', scope: 'user:u' + toString(i % 100),
                text: 'user ' + toString(i % 100) + ' likes item number ' + toString(i)})
WITH f
CALL db.create.setNodeVectorProperty(f, 'embedding', [x IN range(1, 384) | rand()])
"""
_LOAD_EPISODES = """
UNWIND range($from, $to - 1) AS i
CREATE (e:Episode {id: 'ep_' + toString(i), tenant: 'bench', scope: 'user:u' + toString(i % 100),
                   text: 'session ' + toString(i) + ': the user talked about their items'})
WITH e
CALL db.create.setNodeVectorProperty(e, 'embedding', [x IN range(1, 384) | rand()])
"""


class HashEmbedder:
    """256 dims from each text's sha256: no model cost, so the figures are the graph's."""

    model = "bench-hash-256"
    dimensions = 256

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for t in texts:
            raw = hashlib.sha256(t.encode()).digest() * 8
            v = [b / 255 + 0.01 for b in raw[:256]]
            n = sum(x * x for x in v) ** 0.5
            out.append([x / n for x in v])
        return out

    async def embed_query(self, text: str) -> list[float]:
        return (await self.embed([text]))[0]


class Local256:
    """The local model's vectors cut to 256 dims (a new size, so the indexes are rebuilt)."""

    model = "bench-local-256"
    dimensions = 256

    def __init__(self) -> None:
        self.inner = LocalEmbedder()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [v[:256] for v in await self.inner.embed(texts)]

    async def embed_query(self, text: str) -> list[float]:
        return (await self.embed([text]))[0]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


async def _reader(db: Database, stop: asyncio.Event, facts: int, out: list[float]) -> None:
    i = 0
    while not stop.is_set():
        began = time.perf_counter()
        await db.run_raw(
            "MATCH (f:Fact {id: $id}) RETURN f.text AS t", {"id": f"fact_{(i * 7919) % facts}"}
        )
        out.append((time.perf_counter() - began) * 1000)
        i += 1
        await asyncio.sleep(0.01)


async def _bench(settings: Settings, args: argparse.Namespace) -> None:
    db = Database.connect(settings.neo4j())
    from graph_memory.migrations import migrate
    from graph_memory.services.store.embedding_config import check_embedding_model

    try:
        await migrate(db, dimensions=384)
        await check_embedding_model(db, LocalEmbedder(), record=True)
        began = time.monotonic()
        for lo in range(0, args.facts, 5000):
            await db.run_raw(_LOAD, {"from": lo, "to": min(args.facts, lo + 5000)})
        for lo in range(0, args.episodes, 5000):
            await db.run_raw(_LOAD_EPISODES, {"from": lo, "to": min(args.episodes, lo + 5000)})
        await db.run_raw("CALL db.awaitIndexes(600)")
        print(
            f"loaded {args.facts} facts + {args.episodes} episodes in "
            f"{time.monotonic() - began:.1f} s"
        )
        idle: list[float] = []
        stop = asyncio.Event()
        reader = asyncio.create_task(_reader(db, stop, args.facts, idle))
        await asyncio.sleep(3)
        stop.set()
        await reader
        embedder: Embedder = Local256() if args.local else HashEmbedder()
        steps: dict[str, float] = {}
        counts: dict[str, int] = {}
        last = [time.monotonic(), ""]

        def progress(step: str, n: int) -> None:
            now = time.monotonic()
            if last[1]:
                steps[str(last[1])] = steps.get(str(last[1]), 0.0) + now - float(last[0])
            last[0], last[1] = now, step
            counts[step] = counts.get(step, 0) + n

        during: list[float] = []
        stop = asyncio.Event()
        reader = asyncio.create_task(_reader(db, stop, args.facts, during))
        reembedder = Reembedder(
            ReembedRepository(db), embedder, batch_size=args.batch, grace_seconds=0
        )
        report = await reembedder.run(progress)
        stop.set()
        await reader
        total = args.facts + args.episodes
        print(
            f"re-embedded {total} nodes to {embedder.model} in {report.seconds:.1f} s "
            f"({total / report.seconds:,.0f} nodes/s overall; batch {args.batch})"
        )
        for step, n in counts.items():
            secs = steps.get(step)
            rate = f", {n / secs:,.0f}/s" if secs else ""
            print(f"  {step}: {n} nodes{rate}")
        print(
            f"  indexes recreated: {', '.join(report.indexes_recreated) or 'none'}; "
            f"switch wait {reembedder.check_seconds:.0f} s included"
        )
        print(
            f"point read p50/p95 idle {statistics.median(idle):.1f} / {_pct(idle, 0.95):.1f} ms,"
            f" during {statistics.median(during):.1f} / {_pct(during, 0.95):.1f} ms "
            f"({len(during)} reads, 0 failed)"
        )
    finally:
        await db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=20000)
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--local", action="store_true", help="embed with the local model")
    args = parser.parse_args()
    with scratch_neo4j("gm-bench-reembed-", migrate=False) as env:  # it migrates at 384
        password = (Path(env["GRAPH_MEMORY_HOME"]) / "neo4j-password").read_text().strip()
        bolt = int(env["GRAPH_MEMORY_NEO4J_BOLT_PORT"])
        settings = replace(Settings(), bolt_port=bolt, password_env=password)
        asyncio.run(_bench(settings, args))


if __name__ == "__main__":
    main()
