"""Prometheus metrics of this process (served at ``/metrics``).

One registry per process, prometheus_client's default, which also carries the process_*
(resident memory, CPU, open files) and python_gc_* series; every app in the process adds to
the same series. Labels come from closed sets only: the schema's root fields, the Cypher
catalog's query names, ``extensions.code`` values, configured model names. Never a tenant,
a key or request text, so a client can neither grow the series without bound nor read
another tenant's activity from them.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

from graph_memory import request_trace

__all__ = [
    "CONSOLIDATION_RUNS",
    "CONTENT_TYPE",
    "ERRORS",
    "INGEST_JOBS",
    "NEO4J_RETRIES",
    "NEO4J_UNAVAILABLE",
    "WRITE_RERUNS",
    "count_llm_tokens",
    "observe_consolidation",
    "observe_consolidation_step",
    "observe_llm_call",
    "observe_neo4j_call",
    "observe_neo4j_query",
    "observe_queue",
    "observe_request",
    "observe_turn",
    "render",
    "timed_embedding",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST

# Seconds, from a cached read (~1 ms) to the query time budget (30 s by default).
_LATENCY = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter(
    "graph_memory_requests",
    "GraphQL HTTP requests by root field, operation type and HTTP status",
    ["operation", "kind", "status"],
)
REQUEST_SECONDS = Histogram(
    "graph_memory_request_seconds",
    "GraphQL HTTP request latency (first byte in to response start) by root field",
    ["operation", "kind"],
    buckets=_LATENCY,
)
REQUEST_NEO4J_SECONDS = Histogram(
    "graph_memory_request_neo4j_seconds",
    "Neo4j time within one GraphQL request (its calls summed), by root field",
    ["operation"],
    buckets=_LATENCY,
)
REQUEST_QUEUE_SECONDS = Histogram(
    "graph_memory_request_queue_seconds",
    "Time a GraphQL request waited for an in-flight slot (GRAPH_MEMORY_MAX_INFLIGHT)",
    buckets=_LATENCY,
)
REQUEST_TURN_SECONDS = Histogram(
    "graph_memory_request_db_turn_seconds",
    "Time a GraphQL request's reads waited for database turns (GRAPH_MEMORY_DB_TURNS), summed",
    buckets=_LATENCY,
)
REQUEST_EMBED_SECONDS = Histogram(
    "graph_memory_request_embed_seconds",
    "Embedding time within one GraphQL request (its calls summed), by root field",
    ["operation"],
    buckets=_LATENCY,
)
ERRORS = Counter(
    "graph_memory_errors",
    "GraphQL errors and HTTP refusals by extensions.code",
    ["code"],
)
NEO4J_CALL_SECONDS = Histogram(
    "graph_memory_neo4j_seconds",
    "Neo4j calls (a read, or a transaction with its commit and retries) by access mode",
    ["access"],
    buckets=_LATENCY,
)
NEO4J_QUERY_SECONDS = Histogram(
    "graph_memory_neo4j_query_seconds",
    "One Cypher statement (run and fetch) by catalog name",
    ["query"],
    buckets=_LATENCY,
)
NEO4J_RETRIES = Counter(
    "graph_memory_neo4j_retries", "Neo4j calls retried after a transient fault", ["access"]
)
# A write run again because it locked a scope only after reading its clock and found that scope
# already past it (db.LockedLate): how often a change's reach is learned late, not a fault.
WRITE_RERUNS = Counter(
    "graph_memory_write_reruns",
    "Write transactions run again to take scope locks before their clock (late locks)",
)
NEO4J_UNAVAILABLE = Counter(
    "graph_memory_neo4j_unavailable", "Neo4j calls given up on: the store was unreachable"
)
EMBED_SECONDS = Histogram(
    "graph_memory_embed_seconds",
    "Embedding calls (one batch of texts) by model",
    ["model"],
    buckets=_LATENCY,
)
EMBED_TEXTS = Counter("graph_memory_embed_texts", "Texts embedded, by model", ["model"])
EMBED_ERRORS = Counter("graph_memory_embed_errors", "Embedding calls that failed", ["model"])
LLM_SECONDS = Histogram(
    "graph_memory_llm_seconds",
    "Extraction model calls (one completion request) by model",
    ["model"],
    buckets=(*_LATENCY, 60.0, 120.0),
)
LLM_TOKENS = Counter(
    "graph_memory_llm_tokens", "Extraction model tokens, by model and kind", ["model", "kind"]
)

INGEST_JOBS = Counter(
    "graph_memory_ingest_jobs", "Ingest jobs finished by this process, by status", ["status"]
)

# Consolidation (out of band): steps and count names are the code's own closed sets.
_LONG = (0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
CONSOLIDATION_RUNS = Counter(
    "graph_memory_consolidation_runs",
    "Consolidation runs and rollbacks finished by this process, by kind (run, dry_run, "
    "rollback) and status (applied, failed, dry_run, rolled_back)",
    ["kind", "status"],
)
CONSOLIDATION_SECONDS = Histogram(
    "graph_memory_consolidation_seconds",
    "Wall time of a consolidation run (or of its part in this process, once resumed) or of a "
    "rollback, by kind",
    ["kind"],
    buckets=_LONG,
)
CONSOLIDATION_BATCHES = Counter(
    "graph_memory_consolidation_batches",
    "Transactions a consolidation run or rollback committed, by kind",
    ["kind"],
)
CONSOLIDATION_STEP_SECONDS = Histogram(
    "graph_memory_consolidation_step_seconds",
    "Wall time of one consolidation step in this process, by step (dry runs included)",
    ["step"],
    buckets=_LONG,
)
CONSOLIDATION_CHANGES = Counter(
    "graph_memory_consolidation_changes",
    "What applied consolidation steps did, by step and count (e.g. entities/merged, "
    "dedupe/groups, compaction/digests); dry runs not counted",
    ["step", "count"],
)


def observe_request(trace: request_trace.RequestTrace, status: int) -> None:
    """The request's figures, once its response has started."""
    op, kind = trace.operation, trace.kind
    REQUESTS.labels(op, kind, str(status)).inc()
    REQUEST_SECONDS.labels(op, kind).observe(trace.elapsed())
    REQUEST_NEO4J_SECONDS.labels(op).observe(trace.neo4j_seconds)
    REQUEST_EMBED_SECONDS.labels(op).observe(trace.embed_seconds)
    REQUEST_TURN_SECONDS.observe(trace.turn_seconds)
    for code in trace.error_codes:
        ERRORS.labels(code).inc()


def observe_queue(seconds: float) -> None:
    REQUEST_QUEUE_SECONDS.observe(seconds)
    trace = request_trace.current()
    if trace is not None:
        trace.queue_seconds += seconds


def observe_turn(seconds: float) -> None:
    """A read's wait for a database turn, added to its request's."""
    trace = request_trace.current()
    if trace is not None:
        trace.turn_seconds += seconds


def observe_neo4j_query(name: str, seconds: float) -> None:
    NEO4J_QUERY_SECONDS.labels(name).observe(seconds)


def observe_neo4j_call(access: str, seconds: float) -> None:
    NEO4J_CALL_SECONDS.labels(access).observe(seconds)
    trace = request_trace.current()
    if trace is not None:
        trace.neo4j_seconds += seconds
        trace.neo4j_calls += 1


@contextlib.contextmanager
def timed_embedding(model: str, texts: int) -> Iterator[None]:
    began = time.perf_counter()
    try:
        yield
    except Exception:
        EMBED_ERRORS.labels(model).inc()
        raise
    finally:
        seconds = time.perf_counter() - began
        EMBED_SECONDS.labels(model).observe(seconds)
        trace = request_trace.current()
        if trace is not None:
            trace.embed_seconds += seconds
    EMBED_TEXTS.labels(model).inc(texts)


def observe_llm_call(model: str, seconds: float) -> None:
    LLM_SECONDS.labels(model).observe(seconds)


def count_llm_tokens(model: str, prompt_tokens: int, completion_tokens: int) -> None:
    LLM_TOKENS.labels(model, "prompt").inc(prompt_tokens)
    LLM_TOKENS.labels(model, "completion").inc(completion_tokens)


def observe_consolidation_step(
    step: str, seconds: float, counts: dict[str, int], applied: bool
) -> None:
    """One step finished in this process; ``counts``: what it changed here."""
    CONSOLIDATION_STEP_SECONDS.labels(step).observe(seconds)
    if applied:
        for name, n in counts.items():
            CONSOLIDATION_CHANGES.labels(step, name).inc(n)


def observe_consolidation(kind: str, status: str, seconds: float, batches: int) -> None:
    CONSOLIDATION_RUNS.labels(kind, status).inc()
    CONSOLIDATION_SECONDS.labels(kind).observe(seconds)
    CONSOLIDATION_BATCHES.labels(kind).inc(batches)


def render() -> bytes:
    """This process's figures; under `serve --workers N` (PROMETHEUS_MULTIPROC_DIR set) every
    worker's, added up, whichever worker is asked."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry)
    return generate_latest(REGISTRY)
