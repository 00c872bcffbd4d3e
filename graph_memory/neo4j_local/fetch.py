"""Download the locked jars into a shared cache, verified, and lay them out in a Neo4j home.

The cache (``<data_home>/jars``) uses the Maven repository layout. A jar lands there only
after its size and sha256 match the lock: it is streamed to a temp file in the same
directory and renamed into place, so an interrupted download never looks complete. A
cached jar that no longer matches (half-written by an older tool, altered on disk) is
fetched again; a second mismatch is an error, never a silent accept.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tenacity import Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from .errors import ChecksumMismatch, DownloadError
from .lockfile import TARGETS, Artifact, Lock, sha256_file

__all__ = [
    "InstallReport",
    "ensure_cached",
    "fetch_plugins",
    "install",
    "repository_url",
    "verify_file",
]

Reporter = Callable[[str], None]
# Mirrors (corporate Nexus/Artifactory) serve the same bytes: the sha256 check still holds.
REPOSITORY_ENV = "GRAPH_MEMORY_MAVEN_REPO"
_USER_AGENT = "graph-memory-neo4j-local/1 (+python-urllib)"
_TIMEOUT_S = 60.0
_WORKERS = 8
_ATTEMPTS = 5


@dataclass
class InstallReport:
    downloaded: int = 0
    downloaded_bytes: int = 0
    linked: int = 0
    removed: list[str] = field(default_factory=list)
    seconds: float = 0.0


class _Transient(DownloadError):
    """A network failure worth retrying (DNS hiccup, reset, timeout, 5xx, 429)."""


class _Mismatch(Exception):
    def __init__(self, size: int, sha256: str) -> None:
        super().__init__(f"size {size}, sha256 {sha256}")
        self.size = size
        self.sha256 = sha256


def repository_url(lock: Lock) -> str:
    return os.environ.get(REPOSITORY_ENV) or lock.repository


def verify_file(path: Path, artifact: Artifact) -> bool:
    """True when ``path`` is exactly the locked jar (size first: it is free to check)."""
    try:
        if path.stat().st_size != artifact.size:
            return False
    except FileNotFoundError:
        return False
    return sha256_file(path) == artifact.sha256


def _download(url: str, dest: Path, artifact: Artifact) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".part")
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        size = 0
        request = urllib.request.Request(url, headers={"User-Agent": _USER_AGENT})
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request, timeout=_TIMEOUT_S) as r:
            while chunk := r.read(1 << 16):
                size += len(chunk)
                if size > artifact.size:
                    # Stop early: a longer file can never match, and it may be unbounded.
                    break
                digest.update(chunk)
                out.write(chunk)
        if size != artifact.size or digest.hexdigest() != artifact.sha256:
            raise _Mismatch(size, digest.hexdigest())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; jars are not secrets
        os.replace(tmp, dest)
    except urllib.error.HTTPError as e:
        if e.code >= 500 or e.code == 429:
            raise _Transient(
                f"{url} answered HTTP {e.code} {e.reason}; retry later, or point "
                f"{REPOSITORY_ENV} at a mirror"
            ) from e
        raise DownloadError(
            f"{url} answered HTTP {e.code} {e.reason}: the repository does not serve "
            f"{artifact.coordinates}; check {REPOSITORY_ENV} if you use a mirror"
        ) from e
    except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
        reason = getattr(e, "reason", e)
        host = url.split("/", 3)[2] if "://" in url else url
        where = "Maven Central" if host == "repo1.maven.org" else "the Maven repository"
        raise _Transient(
            f"cannot reach {where} ({host}): {reason}; check the network or proxy "
            f"(HTTPS_PROXY), or point {REPOSITORY_ENV} at a reachable mirror, then run "
            "`graph-memory neo4j install` again"
        ) from e
    finally:
        tmp.unlink(missing_ok=True)


def _download_retrying(url: str, dest: Path, artifact: Artifact, say: Reporter) -> None:
    """Networks drop a lookup or a connection now and then: retry those with backoff (the
    last failure is raised as is, with its one-line advice); a 404 or a bad hash is final."""
    retrying = Retrying(
        retry=retry_if_exception_type(_Transient),
        stop=stop_after_attempt(_ATTEMPTS),
        wait=wait_exponential(multiplier=1, max=15),
        reraise=True,
        before_sleep=lambda state: say(
            f"{artifact.filename}: network error, retrying "
            f"(attempt {state.attempt_number + 1} of {_ATTEMPTS})"
        ),
    )
    for attempt in retrying:
        with attempt:
            _download(url, dest, artifact)


def ensure_cached(artifact: Artifact, cache: Path, repository: str, say: Reporter = print) -> int:
    """Make ``cache/<repo path>`` the verified jar; returns the bytes downloaded (0 if cached)."""
    path = cache / artifact.repo_path
    if path.exists():
        if verify_file(path, artifact):
            return 0
        say(f"cached {artifact.filename} does not match the lock (partial or altered): re-fetching")
        path.unlink()
    url = artifact.url(repository)
    for attempt in (1, 2):
        try:
            _download_retrying(url, path, artifact, say)
            return artifact.size
        except _Mismatch as e:
            if attempt == 2:
                raise ChecksumMismatch(
                    f"{artifact.coordinates} from {url} has sha256 {e.sha256} ({e.size} bytes) "
                    f"but the lock expects {artifact.sha256} ({artifact.size} bytes), twice: "
                    "the repository or a proxy serves a different file; retry later or set "
                    f"{REPOSITORY_ENV} to a trusted mirror"
                ) from e
            say(f"{artifact.filename}: download did not match the lock ({e}), retrying once")
    return 0  # unreachable: the loop returns or raises


def _place(src: Path, dst: Path, artifact: Artifact) -> bool:
    """Hard-link (or copy, across file systems) a verified cache jar into the home."""
    try:
        if os.path.samefile(src, dst):
            return False
    except OSError:
        pass  # dst does not exist yet
    tmp = dst.with_name(f".{dst.name}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        # No hard links here (another file system): keep a good copy rather than re-copy.
        if verify_file(dst, artifact):
            return False
        shutil.copyfile(src, tmp)
    os.replace(tmp, dst)
    return True


def _parallel(fn: Callable[[Artifact], int], items: Iterable[Artifact]) -> list[int]:
    with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
        futures = [pool.submit(fn, a) for a in items]
        try:
            return [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _fetch_missing(
    lock: Lock, artifacts: tuple[Artifact, ...], cache: Path, say: Reporter, report: InstallReport
) -> None:
    repository = repository_url(lock)

    def needs_fetch(a: Artifact) -> int:
        return 0 if verify_file(cache / a.repo_path, a) else 1

    # Hashing releases the GIL, so verification runs in parallel too (~180 MB).
    flags = _parallel(needs_fetch, artifacts)
    missing = [a for a, f in zip(artifacts, flags, strict=True) if f]
    if not missing:
        return
    total = sum(a.size for a in missing)
    jars = "jar" if len(missing) == 1 else "jars"
    say(f"downloading {len(missing)} {jars} ({total / 1e6:.1f} MB) from {repository}")
    done: list[int] = []
    step = max(1, len(missing) // 10)

    def fetch(a: Artifact) -> int:
        got = ensure_cached(a, cache, repository, say)
        done.append(got)
        if len(done) % step == 0 and len(done) < len(missing):
            say(f"  {len(done)}/{len(missing)} jars, {sum(done) / 1e6:.1f} MB")
        return got

    sizes = _parallel(fetch, missing)
    report.downloaded = sum(1 for s in sizes if s)
    report.downloaded_bytes = sum(sizes)


def _mirror(
    artifacts: tuple[Artifact, ...],
    directory: Path,
    cache: Path,
    report: InstallReport,
    prune: Callable[[str], bool],
) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    wanted = {a.filename: a for a in artifacts}
    for name, a in wanted.items():
        if _place(cache / a.repo_path, directory / name, a):
            report.linked += 1
    for extra in sorted(directory.glob("*.jar")):
        if extra.name not in wanted and prune(extra.name):
            extra.unlink()
            report.removed.append(f"{directory.name}/{extra.name}")


def install(lock: Lock, home: Path, cache: Path, say: Reporter = print) -> InstallReport:
    """Fetch what the cache lacks, then mirror exactly the locked jars into home/lib, plugins."""
    started = time.monotonic()
    report = InstallReport()
    _fetch_missing(lock, lock.artifacts, cache, say, report)
    for target in TARGETS:
        # Stale jars (an older lock, a hand-copied plugin) would shadow the locked ones:
        # plugins/ comes first on the server class path. The home is ours: prune all.
        _mirror(lock.target(target), home / target, cache, report, prune=lambda _: True)
    report.seconds = time.monotonic() - started
    return report


def fetch_plugins(lock: Lock, dest: Path, cache: Path, say: Reporter = print) -> InstallReport:
    """Put the locked GDS plugin jars into ``dest`` (e.g. the Docker image's /plugins volume).

    ``dest`` may hold plugins that are not ours (APOC installed by the Neo4j image), so
    only other versions of the locked artifacts are removed, never unrelated jars.
    """
    started = time.monotonic()
    report = InstallReport()
    plugins = lock.target("plugins")
    _fetch_missing(lock, plugins, cache, say, report)
    prefixes = tuple(f"{a.artifact}-" for a in plugins)
    _mirror(plugins, dest, cache, report, prune=lambda name: name.startswith(prefixes))
    report.seconds = time.monotonic() - started
    return report
