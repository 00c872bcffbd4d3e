"""Runtime settings, read once from the environment.

Two ways to reach Neo4j:

* ``NEO4J_URI`` (+ ``NEO4J_USER`` / ``NEO4J_PASSWORD`` / ``NEO4J_DATABASE``) set: use that
  server (a ``neo4j://`` routing URI for a cluster or Aura, or docker-compose) and start
  nothing locally.
* unset: the project's own local Neo4j under ``GRAPH_MEMORY_HOME``
  (default ``~/.cache/graph-memory``), whose generated password lives in a 0600 file there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from graph_memory.limits import Limits

__all__ = ["Neo4jConnection", "Settings", "data_home", "local_password_file"]


def data_home() -> Path:
    """Where jars, the local Neo4j store, its password and logs live."""
    raw = os.environ.get("GRAPH_MEMORY_HOME")
    if raw:
        return Path(raw).expanduser().resolve()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return (base / "graph-memory").resolve()


def local_password_file() -> Path:
    return data_home() / "neo4j-password"


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_max_inflight() -> int:
    """Four operations in flight per core this process may run on: on the 2-core bench
    machine 8 served a 32-client load with 1.3x the throughput of no cap, half its write p99
    and a third of another tenant's read p99 (bench/load.py --victim); more only spreads
    each operation over more time once the cores are busy."""
    return 4 * _cores()


def default_db_turns() -> int:
    """Neo4j sessions at once across tenants (session_share.py): two per core, at least
    four. A Cypher query runs on one core, so a few per core keep the cores busy while
    others are on the wire; many more only slow each other."""
    return max(4, 2 * _cores())


def _int_env(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError as e:
        raise SystemExit(f"{name}={raw!r} is not an integer") from e


def _seconds_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError as e:
        raise SystemExit(f"{name}={raw!r} is not a number of seconds") from e
    if not 0 <= value <= 3600:
        raise SystemExit(f"{name}={raw!r} must be within 0..3600")
    return value


def _cadence_env(name: str) -> float:
    """Seconds between scheduled runs; unset, empty or 0: off."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return 0.0
    try:
        value = float(raw)
    except ValueError as e:
        raise SystemExit(f"{name}={raw!r} is not a number of seconds") from e
    if not 0 <= value < float("inf"):
        raise SystemExit(f"{name}={raw!r} must be 0 (off) or a positive number of seconds")
    return value


def _float_env(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError as e:
        raise SystemExit(f"{name}={raw!r} is not a number") from e
    if not value > 0:
        raise SystemExit(f"{name}={raw!r} must be positive")
    return value


@dataclass(frozen=True)
class Neo4jConnection:
    uri: str
    user: str
    password: str
    database: str
    # True when the URI came from the environment: nothing is started locally then.
    external: bool


@dataclass(frozen=True)
class Settings:
    bolt_port: int = 7687
    http_port: int = 7474
    external_uri: str | None = None
    user: str = "neo4j"
    password_env: str | None = None
    database: str = "neo4j"
    embedder: str = "local"
    # Threads one local-model run may use. One: on a small machine the service, Neo4j and
    # the worker already share the cores, and a second thread costs ~40% more CPU for the same
    # vectors (what a loaded service runs out of); more only pays on an idle, larger machine.
    embed_threads: int = 1
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    openai_embedding_model: str = "text-embedding-3-small"
    openai_embedding_dimensions: int | None = None
    # Extraction for ingestSession: any OpenAI-compatible chat endpoint. No model, no
    # ingestion (the mutation says LLM_NOT_CONFIGURED); explicit writes never need one.
    llm_base_url: str | None = None
    llm_api_key: str | None = None
    llm_model: str | None = None
    llm_timeout_seconds: float = 60.0
    # The ingest worker inside `serve` (off when no model is configured, or by choice when
    # extraction runs in separate `graph-memory worker` processes).
    ingest_worker: bool = True
    ingest_lease_seconds: float = 60.0
    ingest_poll_seconds: float = 1.0
    ingest_max_attempts: int = 5
    # Jobs one worker runs at once: extraction waits on the model, so one worker keeps
    # several sessions in flight.
    ingest_concurrency: int = 4
    # Of those, the most one tenant's sessions take (GRAPH_MEMORY_INGEST_TENANT_SHARE; None:
    # all but one, so a tenant's backlog of slow sessions always leaves a slot for the others;
    # a deployment of one tenant sets it to the concurrency).
    ingest_tenant_share: int | None = None
    # Workers of this process serve only these tenants (GRAPH_MEMORY_INGEST_TENANTS, comma
    # separated); None: all of them.
    ingest_tenants: tuple[str, ...] | None = None
    # The consolidation scheduler inside `serve`: seconds between runs per tenant (0: off).
    consolidate_every_seconds: float = 0.0
    # How often `serve` looks for forget purges no runner holds (crashed or restarted ones).
    forget_poll_seconds: float = 5.0
    extra: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    # How long a verified key is trusted without asking Neo4j: a revocation reaches other
    # processes within this delay (this process forgets at once). 0 asks on every request.
    auth_cache_seconds: float = 10.0
    # The bearer token Prometheus sends for /metrics; None: loopback scrapers only.
    metrics_token: str | None = None
    # GraphQL operations one process runs at once, the rest queued per tenant and served in
    # turns (admission.py); 0: no limit. A tenant's share: None is all slots but one.
    max_inflight: int = field(default_factory=default_max_inflight)
    max_inflight_per_tenant: int | None = None
    # The latency objectives (ms) that order a tenant's queued operations, earliest deadline
    # first (admission.py): reads are on an agent's critical path, writes mostly are not.
    read_objective_ms: int = 500
    write_objective_ms: int = 1500
    # Neo4j sessions at once across the process's tenants, served in turns per tenant
    # (session_share.py); 0: no limit.
    db_turns: int = field(default_factory=default_db_turns)
    # The longest a session token may live (mintSessionToken's ttlSeconds).
    session_token_max_seconds: int = 86_400

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_model)

    @classmethod
    def from_env(cls) -> Settings:
        dims = os.environ.get("GRAPH_MEMORY_OPENAI_EMBEDDING_DIMENSIONS")
        return cls(
            bolt_port=_int_env("GRAPH_MEMORY_NEO4J_BOLT_PORT", 7687),
            http_port=_int_env("GRAPH_MEMORY_NEO4J_HTTP_PORT", 7474),
            external_uri=os.environ.get("NEO4J_URI") or None,
            user=os.environ.get("NEO4J_USER") or "neo4j",
            password_env=os.environ.get("NEO4J_PASSWORD") or None,
            database=os.environ.get("NEO4J_DATABASE") or "neo4j",
            embedder=os.environ.get("GRAPH_MEMORY_EMBEDDER") or "local",
            embed_threads=max(1, _int_env("GRAPH_MEMORY_EMBED_THREADS", 1)),
            openai_base_url=os.environ.get("OPENAI_BASE_URL") or None,
            openai_api_key=os.environ.get("OPENAI_API_KEY") or None,
            openai_embedding_model=os.environ.get("GRAPH_MEMORY_OPENAI_EMBEDDING_MODEL")
            or "text-embedding-3-small",
            openai_embedding_dimensions=int(dims) if dims else None,
            limits=Limits.from_env(),
            auth_cache_seconds=_seconds_env("GRAPH_MEMORY_AUTH_CACHE_SECONDS", 10.0),
            session_token_max_seconds=max(
                1, _int_env("GRAPH_MEMORY_SESSION_TOKEN_MAX_SECONDS", 86_400)
            ),
            llm_base_url=os.environ.get("GRAPH_MEMORY_LLM_BASE_URL") or None,
            llm_api_key=os.environ.get("GRAPH_MEMORY_LLM_API_KEY")
            or os.environ.get("OPENAI_API_KEY")
            or None,
            llm_model=os.environ.get("GRAPH_MEMORY_LLM_MODEL") or None,
            llm_timeout_seconds=_float_env("GRAPH_MEMORY_LLM_TIMEOUT_SECONDS", 60.0),
            ingest_worker=os.environ.get("GRAPH_MEMORY_INGEST_WORKER", "1") not in ("0", "false"),
            ingest_lease_seconds=_float_env("GRAPH_MEMORY_INGEST_LEASE_SECONDS", 60.0),
            ingest_poll_seconds=_float_env("GRAPH_MEMORY_INGEST_POLL_SECONDS", 1.0),
            ingest_max_attempts=_int_env("GRAPH_MEMORY_INGEST_MAX_ATTEMPTS", 5),
            ingest_concurrency=max(1, _int_env("GRAPH_MEMORY_INGEST_CONCURRENCY", 4)),
            ingest_tenant_share=(
                max(1, _int_env("GRAPH_MEMORY_INGEST_TENANT_SHARE", 1))
                if os.environ.get("GRAPH_MEMORY_INGEST_TENANT_SHARE", "").strip()
                else None
            ),
            ingest_tenants=tuple(
                t.strip() for t in os.environ.get("GRAPH_MEMORY_INGEST_TENANTS", "").split(",")
            )
            if os.environ.get("GRAPH_MEMORY_INGEST_TENANTS", "").strip()
            else None,
            consolidate_every_seconds=_cadence_env("GRAPH_MEMORY_CONSOLIDATE_EVERY_SECONDS"),
            forget_poll_seconds=_cadence_env("GRAPH_MEMORY_FORGET_POLL_SECONDS") or 5.0,
            metrics_token=os.environ.get("GRAPH_MEMORY_METRICS_TOKEN") or None,
            max_inflight=max(0, _int_env("GRAPH_MEMORY_MAX_INFLIGHT", default_max_inflight())),
            max_inflight_per_tenant=_int_env("GRAPH_MEMORY_MAX_INFLIGHT_PER_TENANT", 0) or None,
            db_turns=max(0, _int_env("GRAPH_MEMORY_DB_TURNS", default_db_turns())),
            read_objective_ms=max(0, _int_env("GRAPH_MEMORY_READ_OBJECTIVE_MS", 500)),
            write_objective_ms=max(0, _int_env("GRAPH_MEMORY_WRITE_OBJECTIVE_MS", 1500)),
        )

    def neo4j(self) -> Neo4jConnection:
        """Resolve the connection; for the local server the password comes from its file."""
        if self.external_uri:
            return Neo4jConnection(
                uri=self.external_uri,
                user=self.user,
                password=self.password_env or "",
                database=self.database,
                external=True,
            )
        password = self.password_env
        if password is None:
            pw_file = local_password_file()
            if not pw_file.exists():
                raise SystemExit(
                    f"no local Neo4j password at {pw_file}: run `graph-memory neo4j start` "
                    "first, or set NEO4J_URI/NEO4J_PASSWORD for an external server"
                )
            password = pw_file.read_text().strip()
        return Neo4jConnection(
            uri=f"bolt://127.0.0.1:{self.bolt_port}",
            user="neo4j",
            password=password,
            database=self.database,
            external=False,
        )
