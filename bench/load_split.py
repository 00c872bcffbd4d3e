"""Where a bench/load.py level's time went, printed beside its latencies.

Two things the latencies alone cannot say on a shared 2-core machine:

* the service's own split, from its ``/metrics`` (loopback needs no token) diffed over the
  level: server-side time per root field, the Neo4j and embedding time inside it, the Cypher
  statements by total time; what is left of the server-side time is Python (GraphQL,
  ranking, driver decoding) and waiting for the event loop;
* CPU per request of the three processes (the service, Neo4j, this client), which other
  engineers' load does not change, and each one's share of a core over the level: a process
  near 100% is the one the clients queue on (the event loop is one thread).

`raw_recall` is the floor for recall: the same Cypher round trips the service makes for one
recall (entity names, the three searches at once, hydrate of the best five), with the same
parameters, straight on the bare async driver, at the same concurrency.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
from neo4j import AsyncGraphDatabase
from prometheus_client.parser import text_string_to_metric_families

from bench.serving import cpu_seconds
from graph_memory.cypher import catalog
from graph_memory.embeddings.local import LocalEmbedder
from graph_memory.repositories.recall import Search
from graph_memory.services.recall.ranking import build_lucene, name_keys
from graph_memory.services.recall.request import KINDS
from graph_memory.settings import Settings

__all__ = ["Snapshot", "load_average", "neo4j_pid", "raw_recall", "split_lines", "take"]

Series = dict[tuple[str, tuple[tuple[str, str], ...]], float]


@dataclass(frozen=True)
class Snapshot:
    at: float
    series: Series
    server_cpu: float
    neo4j_cpu: float
    bench_cpu: float


def neo4j_pid() -> int | None:
    """The local Neo4j of GRAPH_MEMORY_HOME (`graph-memory neo4j start`), if it runs here."""
    from graph_memory.neo4j_local.home import home_for
    from graph_memory.neo4j_local.lockfile import load_lock

    try:
        return int(home_for(load_lock()).pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f} (1/5 min)"


def take(metrics_url: str, server_pid: int, neo4j: int | None) -> Snapshot:
    text = httpx.get(metrics_url, timeout=30).text
    series: Series = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name.endswith(("_sum", "_count", "_total")) and s.name.startswith("graph_memory_"):
                series[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return Snapshot(
        at=time.monotonic(),
        series=series,
        server_cpu=cpu_seconds(server_pid),
        neo4j_cpu=cpu_seconds(neo4j) if neo4j else 0.0,
        bench_cpu=time.process_time(),
    )


def _delta(a: Snapshot, b: Snapshot, name: str, label: str) -> dict[str, float]:
    out: dict[str, float] = defaultdict(float)
    for (n, labels), v in b.series.items():
        if n == name:
            key = dict(labels).get(label, "")
            out[key] += v - a.series.get((n, labels), 0.0)
    return out


def split_lines(a: Snapshot, b: Snapshot, requests: int) -> list[str]:
    wall = b.at - a.at
    n = max(requests, 1)
    cpu = {
        "service": b.server_cpu - a.server_cpu,
        "neo4j": b.neo4j_cpu - a.neo4j_cpu,
        "bench client": b.bench_cpu - a.bench_cpu,
    }
    lines = [
        "  cpu per request: "
        + ", ".join(
            f"{who} {s * 1000 / n:.1f} ms ({s * 100 / wall:.0f}% of a core)"
            for who, s in cpu.items()
        )
    ]
    count = _delta(a, b, "graph_memory_request_seconds_count", "operation")
    total = _delta(a, b, "graph_memory_request_seconds_sum", "operation")
    neo = _delta(a, b, "graph_memory_request_neo4j_seconds_sum", "operation")
    emb = _delta(a, b, "graph_memory_request_embed_seconds_sum", "operation")
    for op in sorted(count, key=lambda o: -count[o]):
        c = count[op]
        if c < 1:
            continue
        lines.append(
            f"  server {op:<14} n {c:5.0f}  mean {total[op] / c * 1000:7.1f} ms = neo4j "
            f"{neo[op] / c * 1000:7.1f} (calls summed) + embed {emb[op] / c * 1000:6.1f} + "
            f"the rest {(total[op] - neo[op] - emb[op]) / c * 1000:7.1f}"
        )
    retries = _delta(a, b, "graph_memory_neo4j_retries_total", "access")
    if any(retries.values()):
        lines.append(
            "  neo4j retries (transient faults, deadlocks; the work is redone): "
            + ", ".join(f"{k} {v:.0f}" for k, v in retries.items())
        )
    queued = _delta(a, b, "graph_memory_request_queue_seconds_sum", "")
    if any(queued.values()):
        lines.append(
            f"  waiting for an in-flight slot: mean {sum(queued.values()) * 1000 / n:.1f} ms "
            "a request (part of the rest above)"
        )
    qcount = _delta(a, b, "graph_memory_neo4j_query_seconds_count", "query")
    qsum = _delta(a, b, "graph_memory_neo4j_query_seconds_sum", "query")
    top = sorted((q for q in qcount if qcount[q] >= 1), key=lambda q: -qsum[q])[:8]
    lines.append(
        "  cypher by total time: "
        + ", ".join(f"{q} {qcount[q] / n:.2f}/req {qsum[q] / qcount[q] * 1000:.1f} ms" for q in top)
    )
    return lines


async def raw_recall(
    settings: Settings,
    tenant: str,
    users: Sequence[str],
    questions: Sequence[str],
    clients: int,
    seconds: float,
) -> list[float]:
    """Latencies of the service's recall round trips on the bare driver (see module doc)."""
    q = catalog()
    embedder = LocalEmbedder()
    texts = sorted({t.format(u=u) for t in questions for u in users})
    vectors = dict(zip(texts, embedder.encode(texts), strict=True))
    conn = settings.neo4j()
    driver = AsyncGraphDatabase.driver(
        conn.uri,
        auth=(conn.user, conn.password),
        max_connection_pool_size=max(clients, 8),
        notifications_min_severity="OFF",
    )
    latencies: list[float] = []
    deadline = time.monotonic() + seconds

    async def run(name: str, params: dict[str, Any]) -> list[Any]:
        query = q[name]
        async with driver.session(database=conn.database, default_access_mode="READ") as s:
            result = await s.run(query.text, query.bind(params))
            return [r async for r in result]

    async def one() -> None:
        u = random.choice(users)
        text = random.choice(questions).format(u=u)
        scopes = [f"user:{u}", "tenant"]
        now = datetime.now(UTC)
        # The service's own search parameters (repositories/recall.Search), so the floor runs
        # what the service runs: the entity lookup, every kind's search, the hydration.
        search = Search(
            tenant=tenant,
            scopes=scopes,
            vector=vectors[text],
            lucene=build_lucene(tenant, scopes, text),
            as_of=now,
            valid_at=now,
        )
        await run(
            "recall.entities",
            {"tenant": tenant, "scopes": scopes, "keys": name_keys(text), "as_of": now},
        )
        found = await run("recall.search", {**search.params(20), "kinds": list(KINDS)})
        best = [r["id"] for r in (found[0]["fact_rows"] if found else [])][:5]
        hydrate = {
            "tenant": tenant, "facts": best, "episodes": [], "procedures": [], "memos": []
        }  # fmt: skip
        await run("recall.hydrate", hydrate)

    async def loop() -> None:
        while time.monotonic() < deadline:
            began = time.perf_counter()
            await one()
            latencies.append(time.perf_counter() - began)

    try:
        await asyncio.gather(*(loop() for _ in range(clients)))
    finally:
        await driver.close()
    return latencies
