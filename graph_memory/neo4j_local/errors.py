"""Errors of the local Neo4j tooling; each message is one line saying what is wrong and what to do.

    Neo4jLocalError
    ├── LockFileError        the bundled jar lock file is missing or malformed
    ├── DownloadError        Maven Central cannot be reached, or answered with an error
    ├── ChecksumMismatch     a jar still differs from the lock after a fresh download
    ├── JavaError            no usable Java, or JAVA_HOME points at Java < 21
    ├── ConfigError          a bad setting (heap size, port) in the environment
    ├── PortInUse            the Bolt or HTTP port is taken by another process
    ├── PasswordError        the password file and the store disagree (or the file is gone)
    ├── StartError           the server exited or did not answer in time
    └── StopError            the server would not die, even after SIGKILL

The CLI prints ``graph-memory: <message>`` and exits 1 for all of them.
"""

from __future__ import annotations

__all__ = [
    "ChecksumMismatch",
    "ConfigError",
    "DownloadError",
    "JavaError",
    "LockFileError",
    "Neo4jLocalError",
    "PasswordError",
    "PortInUse",
    "StartError",
    "StopError",
]


class Neo4jLocalError(Exception):
    """Base class: ``str(error)`` is the one-line message shown to the user."""


class LockFileError(Neo4jLocalError):
    pass


class DownloadError(Neo4jLocalError):
    pass


class ChecksumMismatch(Neo4jLocalError):
    pass


class JavaError(Neo4jLocalError):
    pass


class ConfigError(Neo4jLocalError):
    pass


class PortInUse(Neo4jLocalError):
    pass


class PasswordError(Neo4jLocalError):
    pass


class StartError(Neo4jLocalError):
    pass


class StopError(Neo4jLocalError):
    pass
