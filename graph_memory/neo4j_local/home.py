"""Layout of the local Neo4j home and the generated password that guards its store.

``<data_home>/neo4j-<version>/`` holds lib/, plugins/ (links into the jar cache), conf/,
data/, logs/ and run/. The password lives outside it (``settings.local_password_file()``)
so the service finds it without knowing the Neo4j version.
"""

from __future__ import annotations

import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

from ..settings import data_home, local_password_file
from .errors import PasswordError
from .lockfile import Lock

__all__ = ["Home", "dir_size", "ensure_password", "home_for", "jar_cache", "reset_hint"]


@dataclass(frozen=True)
class Home:
    root: Path

    @property
    def conf_dir(self) -> Path:
        return self.root / "conf"

    @property
    def conf_file(self) -> Path:
        return self.conf_dir / "neo4j.conf"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def pid_file(self) -> Path:
        # The name Neo4j itself uses: its own `neo4j status` agrees with ours.
        return self.run / "neo4j.pid"

    @property
    def lib(self) -> Path:
        return self.root / "lib"

    @property
    def plugins(self) -> Path:
        return self.root / "plugins"

    @property
    def console_log(self) -> Path:
        """The JVM's stdout/stderr: the only trace of a crash before logging starts."""
        return self.logs / "console.log"

    @property
    def neo4j_log(self) -> Path:
        return self.logs / "neo4j.log"

    @property
    def debug_log(self) -> Path:
        return self.logs / "debug.log"

    @property
    def store_exists(self) -> bool:
        """True once the server has created its system database (the users live there)."""
        return (self.data / "databases" / "system").is_dir()

    def make_dirs(self) -> None:
        for d in (self.conf_dir, self.data, self.logs, self.run, self.lib, self.plugins):
            d.mkdir(parents=True, exist_ok=True)
        (self.root / "import").mkdir(exist_ok=True)


def jar_cache() -> Path:
    """Shared by every Neo4j version: a version bump downloads only what changed.
    ``GRAPH_MEMORY_JAR_CACHE`` lets a second home (the test suite's) share another's jars."""
    raw = os.environ.get("GRAPH_MEMORY_JAR_CACHE")
    return Path(raw).expanduser().resolve() if raw else data_home() / "jars"


def home_for(lock: Lock) -> Home:
    return Home(data_home() / f"neo4j-{lock.neo4j}")


def reset_hint(home: Home, pw_file: Path) -> str:
    return (
        f"restore the original {pw_file}, or delete {home.data} to start from an empty "
        "store (this erases all memories in it)"
    )


def _write_new_password(pw_file: Path) -> str:
    password = secrets.token_urlsafe(24)
    pw_file.parent.mkdir(parents=True, exist_ok=True)
    tmp = pw_file.with_name(f".{pw_file.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(password + "\n")
            f.flush()
            os.fsync(f.fileno())
        # link() fails if another process created the file meanwhile: never overwrite one.
        os.link(tmp, pw_file)
    except FileExistsError:
        return pw_file.read_text(encoding="utf-8").strip()
    finally:
        tmp.unlink(missing_ok=True)
    return password


def ensure_password(home: Home, pw_file: Path | None = None) -> tuple[str, bool]:
    """The password for the store, and whether it must still be set as the initial one.

    Reuses the file when present; creates it (mode 0600) only while no store exists, so a
    store is never paired with a password it was not created with.
    """
    pw_file = pw_file or local_password_file()
    if pw_file.exists():
        mode = stat.S_IMODE(pw_file.stat().st_mode)
        if mode & 0o077:
            pw_file.chmod(0o600)  # a readable secret is a leak waiting to happen
        password = pw_file.read_text(encoding="utf-8").strip()
        if not password:
            raise PasswordError(f"password file {pw_file} is empty: {reset_hint(home, pw_file)}")
        return password, not home.store_exists
    if home.store_exists:
        raise PasswordError(
            f"a Neo4j store exists in {home.data} but its password file {pw_file} is missing: "
            + reset_hint(home, pw_file)
        )
    return _write_new_password(pw_file), True


def dir_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += (Path(root) / name).lstat().st_size
            except OSError:
                continue  # a file removed mid-walk (a rotated log) is not an error
    return total
