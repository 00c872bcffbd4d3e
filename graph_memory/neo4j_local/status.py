"""What is true right now: is a server running, which one, on which Java, answering or not.

Everything shown is read from the live system (the process table, the conf file the
server was started with, a Bolt round trip), not from what the last `start` intended.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from neo4j.exceptions import AuthError, DriverError, Neo4jError

from ..settings import Settings, local_password_file
from .config import ServerConfig, conf_ports
from .errors import Neo4jLocalError
from .home import dir_size, home_for, reset_hint
from .java import JavaRuntime, find_java, inspect_java
from .lockfile import load_lock
from .process import executable
from .readiness import ServerInfo, probe
from .server import running_pid

__all__ = ["ServerStatus", "render_status", "status"]

Reporter = Callable[[str], None]


@dataclass(frozen=True)
class ServerStatus:
    external: bool
    running: bool
    pid: int | None
    bolt_uri: str
    browser_url: str | None
    locked_version: str
    info: ServerInfo | None
    problem: str | None  # why Bolt did not answer, when it did not
    java: JavaRuntime | None
    java_problem: str | None
    home: Path | None
    store_bytes: int | None
    password_file: Path | None

    @property
    def exit_code(self) -> int:
        """0 when a server is up (locally: the process runs), 3 otherwise (LSB `status`)."""
        return 0 if self.running else 3


_REJECTED = "the server rejects the password"


def _ask(bolt_uri: str, user: str, password: str) -> tuple[ServerInfo | None, str | None]:
    try:
        return probe(bolt_uri, user, password, timeout=3.0), None
    except AuthError:
        return None, _REJECTED
    except (Neo4jError, DriverError, OSError) as e:
        return None, (str(e) or type(e).__name__).splitlines()[0][:200]


def _external(settings: Settings, locked: str) -> ServerStatus:
    conn = settings.neo4j()
    info, problem = _ask(conn.uri, conn.user, conn.password)
    if problem == _REJECTED:
        problem = f"reachable, but it rejects NEO4J_USER={conn.user} / NEO4J_PASSWORD"
    return ServerStatus(
        external=True,
        # A server that refuses our credentials is up: the fix is the credentials.
        running=info is not None or (problem or "").startswith("reachable"),
        pid=None,
        bolt_uri=conn.uri,
        browser_url=None,
        locked_version=locked,
        info=info,
        problem=problem,
        java=None,
        java_problem=None,
        home=None,
        store_bytes=None,
        password_file=None,
    )


def status(say: Reporter = print) -> ServerStatus:
    settings = Settings.from_env()
    lock = load_lock()
    if settings.external_uri:
        return _external(settings, lock.neo4j)
    home = home_for(lock)
    pw_file = local_password_file()
    pid = running_pid(home, say) if home.root.exists() else None
    java: JavaRuntime | None = None
    java_problem: str | None = None
    ports = conf_ports(home.conf_file) if pid is not None else None
    try:
        if pid is not None and (exe := executable(pid)) is not None:
            java = inspect_java(exe, "the running server")
        else:
            java = find_java()
    except Neo4jLocalError as e:
        java_problem = str(e)
    if ports is None:
        cfg = ServerConfig(settings.bolt_port, settings.http_port)
        ports = (cfg.bolt_port, cfg.http_port)
    bolt_uri = f"bolt://127.0.0.1:{ports[0]}"
    info: ServerInfo | None = None
    problem: str | None = None
    if pid is not None:
        if pw_file.exists():
            info, problem = _ask(bolt_uri, "neo4j", pw_file.read_text().strip())
        else:
            problem = f"no password file {pw_file}"
        if problem in (_REJECTED, f"no password file {pw_file}"):
            problem += f": {reset_hint(home, pw_file)}"
    return ServerStatus(
        external=False,
        running=pid is not None,
        pid=pid,
        bolt_uri=bolt_uri,
        browser_url=f"http://127.0.0.1:{ports[1]}/browser/",
        locked_version=lock.neo4j,
        info=info,
        problem=problem,
        java=java,
        java_problem=java_problem,
        home=home.root,
        store_bytes=dir_size(home.data) if home.data.exists() else None,
        password_file=pw_file if pw_file.exists() else None,
    )


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def render_status(st: ServerStatus) -> str:
    rows: list[tuple[str, str]] = []
    if st.info is not None:
        gds = f"GDS {st.info.gds_version}" if st.info.gds_version else "no GDS plugin"
        rows.append(("version", f"Neo4j {st.info.neo4j_version} {st.info.edition}, {gds}"))
    elif not st.external:
        rows.append(("version", f"Neo4j {st.locked_version} (pinned; not answering)"))
    if st.java is not None:
        rows.append(("java", f"{st.java.java} (Java {st.java.version})"))
    elif st.java_problem:
        rows.append(("java", f"unusable: {st.java_problem}"))
    if st.info is not None:
        answer = "answering"
    elif st.problem and st.problem.startswith("reachable"):
        answer = st.problem
    else:
        answer = f"not answering: {st.problem or 'down'}"
    rows.append(("bolt", f"{st.bolt_uri} ({answer})"))
    if st.browser_url:
        rows.append(("browser", st.browser_url))
    if st.home is not None:
        rows.append(("home", str(st.home)))
        store = _mb(st.store_bytes) if st.store_bytes is not None else "none yet"
        rows.append(("store", f"{store} in {st.home / 'data'}"))
        rows.append(("password", str(st.password_file) if st.password_file else "not created yet"))
    if st.external:
        head = "Neo4j (external, from NEO4J_URI): " + ("reachable" if st.running else "unreachable")
    elif st.running:
        head = f"Neo4j (local): running, pid {st.pid}"
    else:
        head = "Neo4j (local): not running (start it with `graph-memory neo4j start`)"
    width = max(len(k) for k, _ in rows)
    return "\n".join([head, *(f"  {k.ljust(width)}  {v}" for k, v in rows)])
