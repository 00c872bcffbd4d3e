from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from graph_memory.neo4j_local.errors import ChecksumMismatch, DownloadError
from graph_memory.neo4j_local.fetch import ensure_cached, fetch_plugins, install, verify_file
from graph_memory.neo4j_local.lockfile import Artifact, Lock

JARS = {
    ("org.example", "alpha", "lib"): b"alpha jar bytes " * 100,
    ("org.example.gds", "beta", "plugins"): b"beta plugin bytes " * 50,
}


def _artifact(group: str, name: str, target: str, data: bytes) -> Artifact:
    return Artifact(
        group=group,
        artifact=name,
        version="1.0",
        classifier=None,
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        target=target,
    )


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Lock, Path]:
    """A Maven-layout repository in a temp dir, served over file:// (no network)."""
    root = tmp_path / "repo"
    artifacts = []
    for (group, name, target), data in JARS.items():
        a = _artifact(group, name, target, data)
        path = root / a.repo_path
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        artifacts.append(a)
    lock = Lock("2026.01.4", "2.26.0", "5.24.0", root.as_uri(), tuple(artifacts))
    return lock, tmp_path


def test_install_downloads_once_then_nothing(repo: tuple[Lock, Path]) -> None:
    lock, tmp = repo
    home, cache = tmp / "home", tmp / "cache"
    first = install(lock, home, cache, say=lambda _: None)
    assert first.downloaded == 2
    assert first.downloaded_bytes == lock.total_size
    second = install(lock, home, cache, say=lambda _: None)
    assert (second.downloaded, second.linked) == (0, 0)
    alpha, beta = lock.artifacts
    assert os.path.samefile(home / "lib" / alpha.filename, cache / alpha.repo_path)
    assert verify_file(home / "plugins" / beta.filename, beta)
    assert not list(cache.rglob("*.part"))


def test_half_downloaded_or_altered_cache_jar_is_fetched_again(repo: tuple[Lock, Path]) -> None:
    lock, tmp = repo
    home, cache = tmp / "home", tmp / "cache"
    install(lock, home, cache, say=lambda _: None)
    alpha, beta = lock.artifacts
    cached = cache / alpha.repo_path
    cached.write_bytes(cached.read_bytes()[:100])  # half a file
    altered = cache / beta.repo_path
    data = bytearray(altered.read_bytes())
    data[5] ^= 0xFF  # same size, different bytes
    altered.write_bytes(bytes(data))
    messages: list[str] = []
    report = install(lock, home, cache, say=messages.append)
    assert report.downloaded == 2
    assert verify_file(cached, alpha) and verify_file(altered, beta)
    assert verify_file(home / "lib" / alpha.filename, alpha)
    assert sum("re-fetching" in m for m in messages) == 2


def test_repository_serving_other_bytes_is_an_error_after_one_retry(
    repo: tuple[Lock, Path],
) -> None:
    lock, tmp = repo
    alpha = lock.artifacts[0]
    served = Path(lock.repository.removeprefix("file://")) / alpha.repo_path
    served.write_bytes(b"x" * alpha.size)
    messages: list[str] = []
    with pytest.raises(ChecksumMismatch, match="twice"):
        ensure_cached(alpha, tmp / "cache", lock.repository, say=messages.append)
    assert any("retrying" in m for m in messages)
    assert not (tmp / "cache" / alpha.repo_path).exists()
    assert not list((tmp / "cache").rglob("*.part"))


def test_no_network_is_one_clear_error(
    repo: tuple[Lock, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lock, tmp = repo

    def offline(*_: Any, **__: Any) -> Any:
        raise urllib.error.URLError(OSError("Temporary failure in name resolution"))

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    central = "https://repo1.maven.org/maven2"
    with pytest.raises(DownloadError, match="cannot reach Maven Central"):
        ensure_cached(lock.artifacts[0], tmp / "cache", central, say=lambda _: None)


def test_a_dropped_lookup_is_retried_and_the_jar_lands(
    repo: tuple[Lock, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    lock, tmp = repo
    real = urllib.request.urlopen
    calls: list[str] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls.append("x")
        if len(calls) == 1:
            raise urllib.error.URLError(OSError("Temporary failure in name resolution"))
        return real(*args, **kwargs)

    monkeypatch.setattr(urllib.request, "urlopen", flaky)
    artifact = lock.artifacts[0]
    got = ensure_cached(artifact, tmp / "cache", lock.repository, say=lambda _: None)
    assert got == artifact.size and len(calls) == 2
    assert (tmp / "cache" / artifact.repo_path).exists()


def test_stale_jars_are_removed_from_the_home(repo: tuple[Lock, Path]) -> None:
    lock, tmp = repo
    home = tmp / "home"
    (home / "plugins").mkdir(parents=True)
    (home / "plugins" / "old-gds-2.0.jar").write_bytes(b"old")
    report = install(lock, home, tmp / "cache", say=lambda _: None)
    assert report.removed == ["plugins/old-gds-2.0.jar"]
    assert sorted(p.name for p in (home / "plugins").iterdir()) == ["beta-1.0.jar"]


def test_fetch_plugins_keeps_foreign_jars_and_drops_other_versions(
    repo: tuple[Lock, Path],
) -> None:
    lock, tmp = repo
    dest = tmp / "plugins-volume"
    dest.mkdir()
    (dest / "apoc-2026.01.0-core.jar").write_bytes(b"not ours")
    (dest / "beta-0.9.jar").write_bytes(b"older beta")
    report = fetch_plugins(lock, dest, tmp / "cache", say=lambda _: None)
    assert report.downloaded == 1  # only the plugin, not the lib jar
    assert sorted(p.name for p in dest.iterdir()) == ["apoc-2026.01.0-core.jar", "beta-1.0.jar"]
