"""Session ingestion figures: how fast the queue accepts sessions, and what a worker costs per
session beyond the model.

    GRAPH_MEMORY_HOME=... .venv/bin/python bench/ingest.py [--sessions 400] [--concurrency 16]
        [--facts 3] [--model-delay 0.0]

Runs the real app (uvicorn, loopback) on the configured Neo4j and a local OpenAI-compatible
endpoint that answers at once (or after --model-delay seconds) with a scripted extraction of
--facts facts, one event and one todo. Phase 1 submits --sessions sessions over GraphQL with
--concurrency requests in flight; phase 2 drains them with one worker and reports, from the
jobs themselves, model time and our overhead (the run's wall time minus model time).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph_memory import metrics
from graph_memory.container import build_services
from graph_memory.db import Database
from graph_memory.embeddings import build_embedder
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.services.access.keys import AuthService
from graph_memory.services.ingest.extraction import Extractor
from graph_memory.services.ingest.worker import IngestWorker
from graph_memory.settings import Settings
from tests.integration.conftest import _free_port
from tests.integration.fake_llm import Answer, extraction, running
from tests.integration.ingest_helpers import (
    INGEST,
    llm_settings,
    session,
)


def _wait_up(url: str) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            httpx.get(url.replace("/graphql", "/health"), timeout=2).raise_for_status()
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise RuntimeError("the service did not start")


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _key(settings: Settings, tenant: str) -> str:
    db = Database.connect(settings.neo4j())
    try:
        _, secret = await AuthService(ApiKeyRepository(db)).create_key(tenant, "agent", "bench")
        return secret
    finally:
        await db.close()


async def _submit(
    url: str, key: str, sessions: list[dict[str, Any]], concurrency: int, query: str = INGEST
) -> float:
    sem = asyncio.Semaphore(concurrency)
    async with httpx.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:

        async def one(s: dict[str, Any]) -> None:
            async with sem:
                variables = {"s": s} if query == INGEST else {}
                r = await http.post(url, json={"query": query, "variables": variables})
                body = r.json()
                if body.get("errors"):
                    raise RuntimeError(body["errors"])

        await one(session())  # warm-up: parser cache, connection pool
        start = time.perf_counter()
        await asyncio.gather(*(one(s) for s in sessions))
        return time.perf_counter() - start


async def _jobs(settings: Settings, tenant: str) -> list[dict[str, Any]]:
    db = Database.connect(settings.neo4j())
    try:
        return await db.run_raw(
            "MATCH (j:IngestJob) WHERE j.tenant = $t AND j.status IN ['done', 'nothing'] "
            "RETURN j.id AS id, j.model_ms AS model_ms, j.overhead_ms AS overhead_ms, "
            "j.finished_at.epochMillis - j.claimed_at.epochMillis AS span_ms",
            {"t": tenant},
        )
    finally:
        await db.close()


async def _work(
    settings: Settings, embedder: Any, tenant: str, expected: int, concurrency: int
) -> dict[str, float]:
    """Drain the queue with one worker; per job, the wall time of its run (ms): from the claim
    to the committed completion, as the bench sees it (the worker's own figure stops before
    its last commit)."""
    services = build_services(settings, db=Database.connect(settings.neo4j()), embedder=embedder)
    extractor = Extractor(settings)
    worker = IngestWorker(services, extractor, owner="bench-worker", tenants=[tenant])
    stop = asyncio.Event()
    runs: dict[str, float] = {}
    run_once = worker.run_once

    async def timed(*args: Any, **kw: Any) -> str | None:
        began = time.perf_counter()
        job = await run_once(*args, **kw)
        if job is not None:
            runs[job] = (time.perf_counter() - began) * 1000
        return job

    worker.run_once = timed  # type: ignore[method-assign]

    async def watch() -> None:
        while len(await _jobs(settings, tenant)) < expected:
            await asyncio.sleep(0.2)
        stop.set()

    try:
        await asyncio.gather(worker.run(stop, concurrency), watch())
    finally:
        await extractor.close()
        await services.db.close()
    return runs


def _print_profile(jobs: int) -> None:
    """The worker's Neo4j time per job, by named query and by transaction (the bench's own
    polling runs raw queries, which are not counted), from the metrics histograms."""
    rows: list[tuple[float, float, str]] = []
    for fam in [*metrics.NEO4J_QUERY_SECONDS.collect(), *metrics.NEO4J_CALL_SECONDS.collect()]:
        sums = {
            s.labels[next(iter(s.labels))]: s.value for s in fam.samples if s.name.endswith("_sum")
        }
        counts = {
            s.labels[next(iter(s.labels))]: s.value
            for s in fam.samples
            if s.name.endswith("_count")
        }
        kind = "query" if fam.name.startswith("graph_memory_neo4j_query") else "call"
        rows += [(v, counts.get(k, 0.0), f"{kind} {k}") for k, v in sums.items()]
    print(f"  per job ({jobs} jobs), Neo4j time by query and by call (commit included):")
    for total, n, name in sorted(rows, reverse=True)[:30]:
        print(f"    {total / jobs * 1000:7.2f} ms  {n / jobs:5.2f}x  {name}")


async def _discard(settings: Settings, tenant: str) -> None:
    db = Database.connect(settings.neo4j())
    try:
        await db.run_raw("MATCH (j:IngestJob) WHERE j.tenant = $t DETACH DELETE j", {"t": tenant})
    finally:
        await db.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=400)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--facts", type=int, default=3)
    ap.add_argument("--users", type=int, default=1, help="spread the sessions over N users")
    ap.add_argument("--model-delay", type=float, default=0.0)
    ap.add_argument("--worker-concurrency", type=int, default=4)
    ap.add_argument("--no-worker", action="store_true", help="measure the queue only")
    ap.add_argument(
        "--profile", action="store_true", help="the worker's time per named query, per job"
    )
    args = ap.parse_args()

    base = Settings.from_env()
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    fakes = running()
    fake = next(fakes)
    settings = llm_settings(base, fake.url, ingest_worker=False, lease=60.0)
    # The service in its own process, as deployed: sharing this one's GIL with the load
    # generator would halve both.
    port = _free_port()
    env = {
        **os.environ,
        "GRAPH_MEMORY_LLM_MODEL": "scripted-model",
        "GRAPH_MEMORY_LLM_BASE_URL": fake.url,
        "GRAPH_MEMORY_INGEST_WORKER": "0",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "graph_memory.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/graphql"
    _wait_up(url)
    try:
        # --users: the sessions spread over that many users (a user's writes take their own
        # scope's lock, so one user's sessions are written one at a time).
        sessions = [session(user=f"user{n % args.users}") for n in range(args.sessions)]
        for n, s in enumerate(sessions):
            answer = extraction(
                summary=f"Alice talked about her plans and preferences, conversation {n}.",
                facts=[
                    {
                        "subject": s["userId"],
                        "predicate": "likes",
                        "object": f"thing {n}.{k}",
                        "turns": [0],
                    }
                    for k in range(args.facts)
                ],
                events=[{"text": f"Alice moved to Berlin (story {n})", "turns": [0]}],
                todos=[{"text": f"Renew the passport before June ({n})", "turns": [2]}],
            )
            fake.script(s["sessionId"], Answer(content=answer, delay=args.model_delay))
        key = asyncio.run(_key(settings, tenant))
        # The floor on this machine: the same number of authenticated GraphQL round trips
        # that do nothing.
        floor = asyncio.run(_submit(url, key, sessions, args.concurrency, query="{ __typename }"))
        print(
            f"baseline {{ __typename }}: {args.sessions / floor:.0f} requests/s "
            f"({args.concurrency} in flight)"
        )
        took = asyncio.run(_submit(url, key, sessions, args.concurrency))
        print(
            f"ingestSession: {args.sessions} sessions in {took:.2f} s = "
            f"{args.sessions / took:.0f} sessions/s ({args.concurrency} in flight)"
        )
        if args.no_worker:
            asyncio.run(_discard(settings, tenant))  # queued jobs nobody will run
            return
        embedder = build_embedder(settings)
        start = time.perf_counter()
        runs = asyncio.run(
            _work(settings, embedder, tenant, args.sessions, args.worker_concurrency)
        )
        wall = time.perf_counter() - start
        jobs = asyncio.run(_jobs(settings, tenant))
        if args.profile:
            _print_profile(len(jobs))
        ran = jobs
        model = [float(j["model_ms"] or 0) for j in jobs]
        ours = [float(j["overhead_ms"] or 0) for j in jobs]
        print(
            f"worker: {len(ran)} jobs in {wall:.2f} s ({len(ran) / wall:.1f} jobs/s, one worker, "
            f"{args.worker_concurrency} in flight); "
            f"{args.facts} facts + 1 event + 1 todo each, {args.users} user(s)"
        )
        print(
            f"  throughput cost per session (worker wall time / jobs): "
            f"{wall / max(len(ran), 1) * 1000:.1f} ms"
        )
        print(
            f"  model time per session: p50 {statistics.median(model):.1f} ms, "
            f"p95 {_pct(model, 0.95):.1f} ms"
        )
        print(
            f"  our overhead per session (model excluded): p50 {statistics.median(ours):.1f} ms, "
            f"p95 {_pct(ours, 0.95):.1f} ms, max {max(ours):.1f} ms"
        )
        # From the job's own clock: the claim to the completion (its commit aside).
        span = [float(j["span_ms"] or 0) - m for j, m in zip(jobs, model, strict=True)]
        print(
            f"  claim to completion, model excluded: p50 {statistics.median(span):.1f} ms, "
            f"p95 {_pct(span, 0.95):.1f} ms"
        )
        # The whole run of each job as the worker's caller sees it, commits included: the
        # figure the target is about, comparable across worker versions.
        whole = [
            runs[str(j["id"])] - float(j["model_ms"] or 0) for j in jobs if str(j["id"]) in runs
        ]
        if whole:
            print(
                f"  whole run per session (claim to committed completion), model excluded: "
                f"p50 {statistics.median(whole):.1f} ms, p95 {_pct(whole, 0.95):.1f} ms"
            )
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        fakes.close()


if __name__ == "__main__":
    main()
