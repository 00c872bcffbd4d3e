"""`graph-memory serve` as a user runs it: its own process (or processes, with --workers) on
a free loopback port, stdout and stderr into a file the test can read."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.integration.conftest import _free_port

__all__ = ["GM", "Served", "serve_process"]

GM = str(Path(sys.executable).parent / "graph-memory")


@dataclass(frozen=True)
class Served:
    url: str  # .../graphql
    log: Path
    pid: int

    @property
    def base(self) -> str:
        return self.url.removesuffix("/graphql")


@contextlib.contextmanager
def serve_process(log: Path, *args: str, **env: str) -> Iterator[Served]:
    port = _free_port()
    with log.open("w") as sink:
        proc = subprocess.Popen(
            [GM, "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            stdout=sink,
            stderr=sink,
            env={**os.environ, "GRAPH_MEMORY_INGEST_WORKER": "0", **env},
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"serve did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield Served(f"{url}/graphql", log, proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
