from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from graph_memory.neo4j_local.errors import LockFileError
from graph_memory.neo4j_local.lockfile import load_lock, parse_lock, sha256_file

GOOD: dict[str, Any] = {
    "lock_version": 1,
    "repository": "https://repo1.maven.org/maven2",
    "neo4j": "2026.01.4",
    "gds": "2.26.0",
    "browser": "5.24.0",
    "artifacts": [
        {
            "group": "io.netty",
            "artifact": "netty-transport-native-epoll",
            "version": "4.2.9.Final",
            "classifier": "linux-x86_64",
            "sha256": "a" * 64,
            "size": 10,
            "target": "lib",
        },
        {
            "group": "org.neo4j.gds",
            "artifact": "proc",
            "version": "2.26.0",
            "sha256": "b" * 64,
            "size": 20,
            "target": "plugins",
        },
    ],
}


def _with(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(GOOD)
    doc["artifacts"][0].update(changes)
    return doc


def test_parses_coordinates_into_maven_paths() -> None:
    lock = parse_lock(GOOD)
    native, proc = lock.artifacts
    assert native.filename == "netty-transport-native-epoll-4.2.9.Final-linux-x86_64.jar"
    assert native.url(lock.repository) == (
        "https://repo1.maven.org/maven2/io/netty/netty-transport-native-epoll/4.2.9.Final/"
        "netty-transport-native-epoll-4.2.9.Final-linux-x86_64.jar"
    )
    assert proc.repo_path == "org/neo4j/gds/proc/2.26.0/proc-2.26.0.jar"
    assert lock.target("plugins") == (proc,)
    assert lock.total_size == 30


@pytest.mark.parametrize(
    ("changes", "complaint"),
    [
        ({"sha256": "xyz"}, "sha256"),
        ({"size": 0}, "size"),
        ({"size": True}, "size"),
        ({"target": "bin"}, "target"),
        ({"group": "../../etc"}, "unexpected characters"),
        ({"classifier": "a/b"}, "unexpected characters"),
        ({"version": ""}, "version"),
    ],
)
def test_rejects_a_bad_artifact_naming_the_field(changes: dict[str, Any], complaint: str) -> None:
    with pytest.raises(LockFileError, match=complaint):
        parse_lock(_with(**changes))


def test_rejects_two_artifacts_landing_on_one_file() -> None:
    doc = copy.deepcopy(GOOD)
    doc["artifacts"].append(dict(doc["artifacts"][0]))
    with pytest.raises(LockFileError, match="share"):
        parse_lock(doc)


def test_rejects_an_empty_or_shapeless_document() -> None:
    with pytest.raises(LockFileError):
        parse_lock([])
    with pytest.raises(LockFileError, match="artifacts"):
        parse_lock({**GOOD, "artifacts": []})
    with pytest.raises(LockFileError, match="repository"):
        parse_lock({**GOOD, "repository": "ftp://x"})


def test_load_reports_missing_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(LockFileError, match="missing"):
        load_lock(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LockFileError, match="not valid JSON"):
        load_lock(bad)
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps(GOOD))
    assert load_lock(ok).gds == "2.26.0"


def test_bundled_lock_pins_the_supported_stack() -> None:
    lock = load_lock()
    assert (lock.neo4j, lock.gds, lock.browser) == ("2026.01.4", "2.26.0", "5.24.0")
    lib, plugins = lock.target("lib"), lock.target("plugins")
    coords = {(a.group, a.artifact) for a in lib}
    assert ("org.neo4j", "neo4j") in coords
    assert ("org.neo4j.client", "neo4j-browser") in coords
    # Every GDS jar is a plugin, and nothing Neo4j already ships is duplicated there
    # (plugins/ comes first on the class path and would shadow lib/).
    assert all(a.target == "plugins" for a in lock.artifacts if a.group == "org.neo4j.gds")
    assert {"proc", "proc-sysinfo", "opengds-extension", "open-model-catalog"} <= {
        a.artifact for a in plugins
    }
    assert not coords & {(a.group, a.artifact) for a in plugins}
    assert 100_000_000 < lock.total_size < 300_000_000


def test_sha256_file_matches_hashlib(tmp_path: Path) -> None:
    f = tmp_path / "x"
    f.write_bytes(b"abc")
    assert sha256_file(f) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
