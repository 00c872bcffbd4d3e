"""What the service benchmarks share: the real app in a uvicorn subprocess, keys, clean-up."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.db import Database
from graph_memory.neo4j_local.home import jar_cache
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.services.access.keys import AuthService
from graph_memory.settings import Settings

__all__ = [
    "NEO4J_CLI",
    "cpu_seconds",
    "delete_tenant",
    "free_port",
    "make_key",
    "rss_mb",
    "scratch_neo4j",
    "start_server",
    "wait_idle",
]

NEO4J_CLI = [sys.executable, "-m", "graph_memory.cli", "neo4j"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def scratch_neo4j(prefix: str, migrate: bool = True) -> Iterator[dict[str, str]]:
    """A Neo4j of the bench's own (a temporary home on free ports, the jars shared with the
    user's cache), started, migrated unless ``migrate`` is False (a bench that migrates with
    settings of its own), and stopped and removed afterwards: for benches that change the
    whole store or kill the server. Yields the environment that points `graph-memory` (and
    Settings.from_env) at it."""
    home = Path(tempfile.mkdtemp(prefix=prefix))
    env = {
        **os.environ,
        "GRAPH_MEMORY_HOME": str(home),
        "GRAPH_MEMORY_JAR_CACHE": str(jar_cache()),
        "GRAPH_MEMORY_NEO4J_BOLT_PORT": str(free_port()),
        "GRAPH_MEMORY_NEO4J_HTTP_PORT": str(free_port()),
        "GRAPH_MEMORY_NEO4J_HEAP": "1g",
        "GRAPH_MEMORY_NEO4J_PAGECACHE": "512m",
    }
    # An outside server's connection settings would point the bench (or its password) at it.
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE"):
        env.pop(name, None)
    try:
        subprocess.run([*NEO4J_CLI, "start"], env=env, check=True, capture_output=True)
        if migrate:
            command = [sys.executable, "-m", "graph_memory.cli", "migrate"]
            subprocess.run(command, env=env, check=True, capture_output=True)
        yield env
    finally:
        subprocess.run([*NEO4J_CLI, "stop"], env=env, check=False, capture_output=True)
        subprocess.run(["rm", "-rf", str(home)], check=False)


def start_server(
    port: int,
    env: dict[str, str] | None = None,
    profile: str | None = None,
    root: Path | None = None,
) -> subprocess.Popen[bytes]:
    """`uvicorn graph_memory.app:create_app` on 127.0.0.1:port, once /health answers; under
    cProfile (the event loop's thread) into ``profile`` when given, written at shutdown.
    ``root``: another checkout to run instead of this one (its code and cypher/)."""
    cmd = [
        sys.executable,
        *(["-m", "cProfile", "-o", profile] if profile else []),
        "-m",
        "uvicorn",
        "--factory",
        "graph_memory.app:create_app",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(
        cmd, cwd=root or Path(__file__).resolve().parents[1], env={**os.environ, **(env or {})}
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health").status_code == 200:
                return proc
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("the app did not start")


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_idle(pid: int, timeout: float = 600, window: float = 2.0) -> float:
    """Seconds until the process used under 5% of a core over ``window`` (requests whose
    clients gave up may still be running)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        before = cpu_seconds(pid)
        time.sleep(window)
        if cpu_seconds(pid) - before < 0.05 * window:
            break
    return time.monotonic() - started


def make_key(settings: Settings, tenant: str, role: str = "agent") -> str:
    """A key for ``tenant`` (the store must be migrated: `graph-memory migrate`)."""

    async def go() -> str:
        db = Database.connect(settings.neo4j())
        try:
            return (await AuthService(ApiKeyRepository(db)).create_key(tenant, role, "bench"))[1]
        finally:
            await db.close()

    return asyncio.run(go())


def delete_tenant(settings: Settings, tenant: str) -> None:
    """Every node of the bench tenant, in batches (a large tenant would not fit one
    transaction)."""
    from neo4j import GraphDatabase

    conn = settings.neo4j()
    with (
        GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver,
        driver.session(database=conn.database) as session,
    ):
        session.run(
            "MATCH (n) WHERE n.tenant = $t "
            "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS",
            t=tenant,
        ).consume()
