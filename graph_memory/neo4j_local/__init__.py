"""A local Neo4j (with GDS and Browser) fetched from Maven Central and run on a PyPI JDK.

No Docker, no Maven, no system Java: ``graph-memory neo4j start`` downloads the jars named
in ``neo4j-jars.lock.json`` (each checked against its sha256), writes ``neo4j.conf``,
sets a generated password on first start and waits until Bolt and GDS answer. When
``NEO4J_URI`` is set, start/stop do nothing: the external server is the database.
"""

from __future__ import annotations

from .commands import register
from .errors import (
    ChecksumMismatch,
    ConfigError,
    DownloadError,
    JavaError,
    LockFileError,
    Neo4jLocalError,
    PasswordError,
    PortInUse,
    StartError,
    StopError,
)
from .fetch import InstallReport
from .java import JavaRuntime, find_java
from .lockfile import Lock, load_lock
from .readiness import ServerInfo
from .server import StartResult, install_jars, start, stop
from .status import ServerStatus, render_status, status

__all__ = [
    "ChecksumMismatch",
    "ConfigError",
    "DownloadError",
    "InstallReport",
    "JavaError",
    "JavaRuntime",
    "Lock",
    "LockFileError",
    "Neo4jLocalError",
    "PasswordError",
    "PortInUse",
    "ServerInfo",
    "ServerStatus",
    "StartError",
    "StartResult",
    "StopError",
    "find_java",
    "install_jars",
    "load_lock",
    "register",
    "render_status",
    "start",
    "status",
    "stop",
]
