"""`scripts/dev.sh test` runs on a Neo4j home and ports of its own, so it never stops the server
`serve` uses; `test-env` prints what it would use (the same function `test` calls)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from graph_memory.neo4j_local.home import jar_cache

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "dev.sh"


def _test_env(tmp_path: Path, **env: str) -> dict[str, str]:
    base = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        ["bash", str(SCRIPT), "test-env"],
        capture_output=True,
        text=True,
        env={**base, **env},
        check=True,
        timeout=30,
    )
    return dict(line.split("=", 1) for line in out.stdout.splitlines())


def test_by_default_tests_get_their_own_home_and_ports_and_share_the_jars(tmp_path: Path) -> None:
    env = _test_env(tmp_path)
    assert env == {
        "GRAPH_MEMORY_HOME": f"{tmp_path}/.cache/graph-memory-test",
        "GRAPH_MEMORY_JAR_CACHE": f"{tmp_path}/.cache/graph-memory/jars",
        "GRAPH_MEMORY_NEO4J_BOLT_PORT": "17687",
        "GRAPH_MEMORY_NEO4J_HTTP_PORT": "17474",
    }


def test_what_the_user_set_is_kept(tmp_path: Path) -> None:
    env = _test_env(tmp_path, GRAPH_MEMORY_NEO4J_BOLT_PORT="27001", XDG_CACHE_HOME="/x")
    assert env["GRAPH_MEMORY_HOME"] == "/x/graph-memory-test"
    assert env["GRAPH_MEMORY_NEO4J_BOLT_PORT"] == "27001"
    chosen = _test_env(tmp_path, GRAPH_MEMORY_HOME="/data/gm")
    assert chosen["GRAPH_MEMORY_HOME"] == "/data/gm"
    assert chosen["GRAPH_MEMORY_JAR_CACHE"] == "/data/gm/jars"
    assert chosen["GRAPH_MEMORY_NEO4J_BOLT_PORT"] == "7687"


def test_the_jar_cache_can_live_outside_the_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRAPH_MEMORY_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GRAPH_MEMORY_JAR_CACHE", raising=False)
    assert jar_cache() == tmp_path / "home" / "jars"
    monkeypatch.setenv("GRAPH_MEMORY_JAR_CACHE", str(tmp_path / "shared"))
    assert jar_cache() == tmp_path / "shared"
