from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _lock() -> dict[str, object]:
    data: dict[str, object] = json.loads(
        (ROOT / "graph_memory" / "neo4j_local" / "neo4j-jars.lock.json").read_text()
    )
    return data


def test_compose_neo4j_matches_the_pinned_version() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    neo4j = compose["services"]["neo4j"]
    assert neo4j["image"] == f"neo4j:{_lock()['neo4j']}-community"
    assert "healthcheck" in neo4j and "gds.version()" in " ".join(neo4j["healthcheck"]["test"])


def test_compose_fetches_the_locked_gds_build_and_runs_the_service() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert services["gds-plugins"]["command"][:3] == ["graph-memory", "neo4j", "fetch-plugins"]
    assert _lock()["gds"] == "2.26.0"
    svc = services["graph-memory"]
    assert svc["environment"]["NEO4J_URI"].startswith("bolt://neo4j")
    assert svc["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert "healthcheck" in svc
