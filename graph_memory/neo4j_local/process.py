"""Processes and ports: is the server alive, which Java runs it, how to end it for sure.

A pid is only trusted when the process behind it is a Neo4j JVM: a pid file left by a
crash can name a recycled pid that now belongs to something else, which must never be
signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from .errors import StopError

__all__ = [
    "cmdline",
    "executable",
    "find_servers",
    "is_alive",
    "is_neo4j",
    "port_free",
    "read_pid",
    "terminate",
]

_PROC = Path("/proc")
NEO4J_MARK = "org.neo4j"


def is_alive(pid: int) -> bool:
    if pid <= 0:
        return False  # kill(0 or -1, ...) would address whole process groups
    # Reap it first if it is our own child (start and stop in one process, as in tests):
    # a zombie still answers kill(0) but is dead for every practical purpose.
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat_file = _PROC / str(pid) / "stat"
    with contextlib.suppress(OSError):
        state = stat_file.read_text().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    return True


def cmdline(pid: int) -> list[str] | None:
    proc = _PROC / str(pid) / "cmdline"
    if proc.exists():
        try:
            raw = proc.read_bytes()
        except OSError:
            return None
        return [p.decode(errors="replace") for p in raw.split(b"\0") if p]
    if sys.platform == "win32":
        return None
    try:
        out = subprocess.run(
            ["ps", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout.strip()
    return text.split() if text else None


def is_neo4j(pid: int) -> bool:
    args = cmdline(pid)
    return bool(args) and is_alive(pid) and any(NEO4J_MARK in a for a in args or [])


def executable(pid: int) -> Path | None:
    """The java binary a running process was started from (for a truthful `status`)."""
    with contextlib.suppress(OSError):
        return Path(os.readlink(_PROC / str(pid) / "exe"))
    args = cmdline(pid)
    return Path(args[0]) if args else None


def read_pid(pid_file: Path) -> int | None:
    try:
        text = pid_file.read_text().strip()
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        return int(text)
    except ValueError:
        return 0  # unreadable content: never a live pid, so the caller treats it as stale


def _all_pids() -> list[int]:
    if _PROC.is_dir():
        return [int(p.name) for p in _PROC.iterdir() if p.name.isdigit()]
    try:
        out = subprocess.run(
            ["ps", "-axo", "pid="], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [int(x) for x in out.stdout.split() if x.isdigit()]


def find_servers(home: Path, *, with_tools: bool = False) -> list[int]:
    """Neo4j server JVMs of ``home``, found by command line: catches a lost pid file too.

    ``with_tools`` adds launcher/admin JVMs (``-Dbasedir=``), so that `stop` leaves no Java
    process of this home behind; they are never mistaken for the server elsewhere.
    """
    marks = {f"--home-dir={home}"}
    if with_tools:
        marks.add(f"-Dbasedir={home}")
    found = []
    for pid in _all_pids():
        if pid == os.getpid():
            continue
        args = cmdline(pid)
        if (
            args
            and marks.intersection(args)
            and any(NEO4J_MARK in a for a in args)
            and is_alive(pid)
        ):
            found.append(pid)
    return sorted(found)


def _wait_gone(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not is_alive(pid):
            return True
        time.sleep(0.2)
    return not is_alive(pid)


def terminate(pid: int, timeout: float = 60.0, say: Callable[[str], None] = print) -> None:
    """SIGTERM (Neo4j checkpoints and shuts down cleanly), then SIGKILL after ``timeout``."""
    if pid <= 0:
        raise StopError(f"refusing to signal pid {pid}")
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    if _wait_gone(pid, timeout):
        return
    say(f"Neo4j (pid {pid}) did not stop within {timeout:.0f} s: killing it")
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    if not _wait_gone(pid, 15.0):
        raise StopError(f"Neo4j (pid {pid}) survived SIGKILL: check it with `ps -p {pid}`")


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    """True when nothing listens on ``host:port``.

    SO_REUSEADDR makes the probe ignore sockets in TIME_WAIT (left by a server that just
    stopped) while still failing on a live listener, which is what we want to detect.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True
