"""Is the server usable? Bolt answers with our password AND the GDS plugin is loaded.

An open port is not enough: Bolt opens before the default database is online, and a
server whose plugins failed to load still accepts connections.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass

from neo4j import GraphDatabase
from neo4j.exceptions import (
    AuthError,
    ClientError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

from .errors import PasswordError, StartError
from .home import Home
from .logs import tail
from .process import is_alive

__all__ = ["ServerInfo", "probe", "wait_ready"]

_POLL_S = 0.5


@dataclass(frozen=True)
class ServerInfo:
    neo4j_version: str
    edition: str
    gds_version: str | None  # None: the server answers but has no GDS plugin


def _is_missing_gds(e: ClientError) -> bool:
    return "gds.version" in (e.message or "")


def probe(bolt_uri: str, user: str, password: str, timeout: float = 5.0) -> ServerInfo:
    """One round trip: versions of Neo4j and GDS. Raises the driver's errors unchanged."""
    with GraphDatabase.driver(
        bolt_uri,
        auth=(user, password),
        connection_timeout=timeout,
        connection_acquisition_timeout=timeout,
        max_connection_pool_size=1,
    ) as driver:
        driver.verify_connectivity()
        records, _, _ = driver.execute_query(
            "CALL dbms.components() YIELD name, versions, edition "
            "WHERE name = 'Neo4j Kernel' RETURN versions[0] AS v, edition"
        )
        version = str(records[0]["v"]) if records else "?"
        edition = str(records[0]["edition"]) if records else "?"
        try:
            gds, _, _ = driver.execute_query("RETURN gds.version() AS v")
        except ClientError as e:
            if _is_missing_gds(e):
                return ServerInfo(version, edition, None)
            raise
        return ServerInfo(version, edition, str(gds[0]["v"]))


def _failure(home: Home, summary: str, log_offset: int) -> StartError:
    parts = [summary]
    console = tail(home.console_log, 15)
    if console.strip():
        parts.append(f"--- {home.console_log} ---\n{console}")
    log = tail(home.neo4j_log, 25, since=log_offset)
    if log.strip():
        parts.append(f"--- {home.neo4j_log} ---\n{log}")
    return StartError("\n".join(parts))


def wait_ready(
    proc: subprocess.Popen[bytes] | None,
    pid: int,
    bolt_uri: str,
    password: str,
    timeout: float,
    home: Home,
    reset_hint: str,
    *,
    log_offset: int = 0,
) -> ServerInfo:
    """Poll until ``probe`` succeeds; fail fast if the process dies or the password is wrong."""
    deadline = time.monotonic() + timeout
    last = "no answer yet"
    while True:
        exited = proc.poll() is not None if proc is not None else not is_alive(pid)
        if exited:
            code = f" with exit code {proc.returncode}" if proc is not None else ""
            raise _failure(
                home,
                f"Neo4j (pid {pid}) exited{code} during start-up: see the log lines below, "
                f"fix the cause, then run `graph-memory neo4j start` again",
                log_offset,
            )
        try:
            info = probe(bolt_uri, "neo4j", password, timeout=5.0)
            if info.gds_version is None:
                raise _failure(
                    home,
                    "Neo4j is up but the GDS plugin did not load (gds.version() is unknown): "
                    "run `graph-memory neo4j install` to repair plugins/, then restart",
                    log_offset,
                )
            return info
        except AuthError as e:
            raise PasswordError(
                f"Neo4j at {bolt_uri} rejects the password from the password file (the store "
                f"was created with another one): {reset_hint}"
            ) from e
        except ClientError as e:
            last = f"{e.code}: {e.message}"
        except (ServiceUnavailable, SessionExpired, TransientError, OSError) as e:
            last = str(e) or type(e).__name__
        except (Neo4jError, DriverError) as e:
            last = str(e) or type(e).__name__
        if time.monotonic() >= deadline:
            raise _failure(
                home,
                f"Neo4j (pid {pid}) did not answer on {bolt_uri} within {timeout:.0f} s "
                f"({last[:160]}): check the log lines below; a slow machine may need "
                "GRAPH_MEMORY_NEO4J_START_TIMEOUT=300",
                log_offset,
            )
        time.sleep(_POLL_S)
