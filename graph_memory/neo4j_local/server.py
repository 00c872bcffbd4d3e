"""Install, start and stop the local Neo4j server.

Start asks Neo4j's own launcher for the server command line (``console --dry-run``, so
heap, JVM flags and class path come from Neo4j's rules, not ours) and runs it detached
in its own session: we own the server pid, and no launcher JVM lingers beside it.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..settings import Settings, local_password_file
from .config import ServerConfig, conf_ports, write_conf
from .errors import PasswordError, PortInUse, StartError
from .fetch import InstallReport, install
from .home import Home, ensure_password, home_for, jar_cache, reset_hint
from .java import JavaRuntime, find_java
from .lockfile import Lock, load_lock
from .process import find_servers, is_alive, is_neo4j, port_free, read_pid, terminate
from .readiness import wait_ready

__all__ = [
    "START_TIMEOUT_ENV",
    "StartResult",
    "install_jars",
    "running_pid",
    "start",
    "stop",
]

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; start/stop are then not serialised
    fcntl = None  # type: ignore[assignment]

Reporter = Callable[[str], None]
START_TIMEOUT_ENV = "GRAPH_MEMORY_NEO4J_START_TIMEOUT"
_LAUNCHER = "org.neo4j.server.startup.Neo4jCommand"
_ADMIN = "org.neo4j.server.startup.Neo4jAdminCommand"
# Popen objects of servers started by this process: kept so they are not collected
# (and warned about) while the server they stand for keeps running.
_LAUNCHED: list[subprocess.Popen[bytes]] = []


@dataclass(frozen=True)
class StartResult:
    pid: int
    seconds: float
    already_running: bool
    bolt_uri: str
    browser_url: str
    version: str
    java: JavaRuntime | None


def install_jars(lock: Lock | None = None, say: Reporter = print) -> InstallReport:
    lock = lock or load_lock()
    return install(lock, home_for(lock).root, jar_cache(), say)


def running_pid(home: Home, say: Reporter = print) -> int | None:
    """The live server's pid; a stale pid file is removed (with a message), never trusted."""
    pid = read_pid(home.pid_file)
    if pid is not None:
        if is_neo4j(pid):
            return pid
        if pid <= 0:
            what = "it holds no pid"
        elif not is_alive(pid):
            what = f"pid {pid} is not running"
        else:
            what = f"pid {pid} is not a Neo4j process"
        say(f"removed stale pid file {home.pid_file} ({what})")
        home.pid_file.unlink(missing_ok=True)
    # A server whose pid file was deleted by hand is still ours to report and stop.
    orphans = find_servers(home.root)
    if orphans:
        home.run.mkdir(parents=True, exist_ok=True)
        home.pid_file.write_text(f"{orphans[0]}\n")
        return orphans[0]
    return None


def _java_env(home: Home, java: JavaRuntime) -> dict[str, str]:
    env = dict(os.environ)
    # JAVA_OPTS / HEAP_SIZE would silently override the heap written in neo4j.conf.
    for name in ("JAVA_OPTS", "HEAP_SIZE", "NEO4J_DEBUG"):
        env.pop(name, None)
    env.update(NEO4J_HOME=str(home.root), NEO4J_CONF=str(home.conf_dir), JAVA_HOME=str(java.home))
    return env


def _run_tool(home: Home, java: JavaRuntime, main: str, *args: str) -> str:
    cmd = [str(java.java), "-cp", str(home.lib / "*"), f"-Dbasedir={home.root}", main, *args]
    try:
        out = subprocess.run(
            cmd,
            cwd=home.root,
            env=_java_env(home, java),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise StartError(f"cannot run the Neo4j launcher with {java.java}: {e}") from e
    if out.returncode != 0:
        detail = (out.stderr or out.stdout).strip().splitlines()
        raise StartError(
            f"Neo4j launcher `{' '.join(args[:2])}` failed (exit {out.returncode}): "
            f"{detail[0] if detail else 'no output'}; run `graph-memory neo4j install` to "
            "repair the jars"
        )
    return out.stdout


def _server_command(home: Home, java: JavaRuntime) -> list[str]:
    out = _run_tool(home, java, _LAUNCHER, "console", "--dry-run")
    lines = [ln for ln in out.splitlines() if ln.strip()]
    if not lines:
        raise StartError("Neo4j launcher printed no command line for `console --dry-run`")
    cmd = shlex.split(lines[-1])
    if not cmd or "org.neo4j.server.Neo4jCommunity" not in cmd:
        raise StartError(f"unexpected Neo4j launcher output: {lines[-1][:200]}")
    return cmd


def _set_initial_password(home: Home, java: JavaRuntime, password: str) -> None:
    # Handed over in a 0600 @-file (picocli argument file), not on the command line,
    # where any local user could read it from the process list. The password is quoted
    # and follows `--`: a generated one may begin with "-" (picocli would read it as an
    # option) and picocli's argument files strip quotes and treat "#" lines as comments.
    arg_file = home.run / ".initial-password"
    quoted = '"' + password.replace("\\", "\\\\").replace('"', '\\"') + '"'
    fd = os.open(arg_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("--\n" + quoted + "\n")
    try:
        _run_tool(home, java, _ADMIN, "dbms", "set-initial-password", f"@{arg_file}")
    finally:
        arg_file.unlink(missing_ok=True)


def _check_ports(cfg: ServerConfig) -> None:
    for port, name, env in (
        (cfg.bolt_port, "Bolt", "GRAPH_MEMORY_NEO4J_BOLT_PORT"),
        (cfg.http_port, "HTTP", "GRAPH_MEMORY_NEO4J_HTTP_PORT"),
    ):
        if not port_free(port):
            raise PortInUse(
                f"{name} port {port} on 127.0.0.1 is already in use by another process: "
                f"stop it (see `ss -ltnp | grep :{port}`) or set {env} to a free port"
            )


def _timeout() -> float:
    raw = os.environ.get(START_TIMEOUT_ENV)
    try:
        return float(raw) if raw else 120.0
    except ValueError:
        return 120.0


def _urls(bolt: int, http: int) -> tuple[str, str]:
    return f"bolt://127.0.0.1:{bolt}", f"http://127.0.0.1:{http}/browser/"


def start(say: Reporter = print, timeout: float | None = None) -> StartResult | None:
    """Install if needed, then start the server and wait until Bolt and GDS answer.

    Returns None when NEO4J_URI points at an external server (nothing to start).
    Raises PortInUse, PasswordError, JavaError, DownloadError, ChecksumMismatch, StartError.
    """
    settings = Settings.from_env()
    if settings.external_uri:
        say(
            f"NEO4J_URI is set ({settings.external_uri}): an external server is configured, "
            "nothing to start"
        )
        return None
    lock = load_lock()
    home = home_for(lock)
    with _exclusive(home):
        return _start(lock, home, say, _timeout() if timeout is None else timeout)


@contextlib.contextmanager
def _exclusive(home: Home) -> Iterator[None]:
    """Serialise start/stop of one home across processes (parallel test workers, two shells)."""
    home.run.mkdir(parents=True, exist_ok=True)
    with (home.run / ".lifecycle.lock").open("a") as f:
        if fcntl is not None:
            fcntl.flock(f, fcntl.LOCK_EX)
        yield


def _start(lock: Lock, home: Home, say: Reporter, timeout: float) -> StartResult:
    pw_file = local_password_file()
    wanted = ServerConfig.from_env(vector_module=False)

    pid = running_pid(home, say)
    if pid is not None:
        # Talk to the ports it was started with; the environment may have changed since.
        bolt, http = conf_ports(home.conf_file) or (wanted.bolt_port, wanted.http_port)
        if (bolt, http) != (wanted.bolt_port, wanted.http_port):
            say(
                f"note: the running server uses Bolt {bolt} / HTTP {http}, not the configured "
                f"{wanted.bolt_port} / {wanted.http_port}: stop it, then start, to switch"
            )
        bolt_uri, browser_url = _urls(bolt, http)
        password, _ = ensure_password(home, pw_file)
        started = time.monotonic()
        wait_ready(None, pid, bolt_uri, password, timeout, home, reset_hint(home, pw_file))
        return StartResult(
            pid, time.monotonic() - started, True, bolt_uri, browser_url, lock.neo4j, None
        )

    java = find_java()
    cfg = ServerConfig.from_env(vector_module=java.has_vector)
    bolt_uri, browser_url = _urls(cfg.bolt_port, cfg.http_port)
    _check_ports(cfg)
    home.make_dirs()
    report = install(lock, home.root, jar_cache(), say)
    if report.downloaded:
        say(f"installed Neo4j {lock.neo4j} + GDS {lock.gds} in {report.seconds:.1f} s")
    write_conf(home.root, cfg)
    password, first = ensure_password(home, pw_file)
    if first:
        _set_initial_password(home, java, password)
    cmd = _server_command(home, java)

    say(f"starting Neo4j {lock.neo4j} with {java.describe()}")
    started = time.monotonic()
    log_offset = home.neo4j_log.stat().st_size if home.neo4j_log.exists() else 0
    with home.console_log.open("wb") as console:
        proc = subprocess.Popen(
            cmd,
            cwd=home.root,
            env=_java_env(home, java),
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # survives the terminal and Ctrl-C of this CLI
            close_fds=True,
        )
    _LAUNCHED.append(proc)
    home.pid_file.write_text(f"{proc.pid}\n")
    try:
        wait_ready(
            proc,
            proc.pid,
            bolt_uri,
            password,
            timeout,
            home,
            reset_hint(home, pw_file),
            log_offset=log_offset,
        )
    except (StartError, PasswordError):
        # A half-started server would hold the ports and the store lock: take it down.
        if proc.poll() is None:
            terminate(proc.pid, 60.0, say)
        home.pid_file.unlink(missing_ok=True)
        raise
    return StartResult(
        proc.pid, time.monotonic() - started, False, bolt_uri, browser_url, lock.neo4j, java
    )


def stop(say: Reporter = print, timeout: float = 60.0) -> bool | None:
    """Stop the server and wait until no Neo4j JVM of this home is left.

    True if one ran, False if none did, None when NEO4J_URI names an external server.
    """
    settings = Settings.from_env()
    if settings.external_uri:
        say(
            f"NEO4J_URI is set ({settings.external_uri}): an external server is configured, "
            "nothing to stop"
        )
        return None
    home = home_for(load_lock())
    with _exclusive(home):
        return _stop(home, say, timeout)


def _stop(home: Home, say: Reporter, timeout: float) -> bool:
    pids = []
    pid = running_pid(home, say)
    if pid is not None:
        pids.append(pid)
    pids += [p for p in find_servers(home.root, with_tools=True) if p not in pids]
    for p in pids:
        say(f"stopping Neo4j (pid {p})")
        started = time.monotonic()
        terminate(p, timeout, say)
        say(f"stopped in {time.monotonic() - started:.1f} s")
    home.pid_file.unlink(missing_ok=True)
    # Let Popen learn that servers we launched ourselves are gone (no zombie, no warning).
    for proc in list(_LAUNCHED):
        if proc.poll() is not None:
            _LAUNCHED.remove(proc)
    return bool(pids)
