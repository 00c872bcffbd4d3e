"""`graph-memory export` then `graph-memory import`: a tenant's memory leaves the store and
comes back whole (facts with their whole history and timeline, episodes, provenance, audit,
procedures), answering every read as before; a bad file changes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode, fact

GM = str(Path(sys.executable).parent / "graph-memory")
SCOPES = ["user:alice"]
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def gm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([GM, *args], capture_output=True, text=True, timeout=120, check=False)


# The tenant's nodes as the export sees them (its API keys aside).
OF_TENANT = "MATCH (n) WHERE (n.tenant = $t OR (n:Tenant AND n.id = $t)) AND NOT n:ApiKey "


def drop_tenant(settings: Settings, tenant: str) -> None:
    """The tenant gone from the store, its API keys aside (a fresh store where the operator
    made the tenant's key first)."""
    bolt(settings, OF_TENANT + "DETACH DELETE n", {"t": tenant})


def count(settings: Settings, tenant: str) -> int:
    return int(bolt(settings, OF_TENANT + "RETURN count(n) AS c", {"t": tenant})[0]["c"])


def populate(client: GraphMemoryClient, admin: GraphMemoryClient) -> None:
    e1 = client.record_episode(**episode(summary="Alice said she lives in Paris and likes tea."))
    e2 = client.record_episode(
        **episode(
            summary="Alice said she moved to Berlin in March.",
            startedAt=T0 + timedelta(days=60),
            endedAt=T0 + timedelta(days=60, minutes=5),
        )
    )
    r = client.assert_facts(
        [
            fact("Alice", "lives_in", "Paris", [e1], validFrom=T0, text="Alice lives in Paris"),
            fact("Alice", "likes", "tea", [e1], cardinality="MANY", text="Alice likes tea"),
        ]
    )
    assert all(x["ok"] for x in r["results"]), r
    client.assert_facts(
        [
            fact(
                "Alice",
                "lives_in",
                "Berlin",
                [e2],
                validFrom=T0 + timedelta(days=59),
                text="Alice lives in Berlin",
            )
        ]
    )
    tea = r["results"][1]["factId"]
    admin.retract_fact(tea, "she said it was a joke")
    client.upsert_procedure(
        "book a hotel", "travel-agent", ["ask dates", "search", "book"], "user:alice"
    )


def views(client: GraphMemoryClient, admin: GraphMemoryClient) -> dict[str, Any]:
    """What the tenant's memory answers, everything a reader can see."""
    facts = client.facts(SCOPES, first=100)
    ids = sorted(e["node"]["id"] for e in facts["edges"])
    return {
        "facts": facts,
        "as_of_before_move": client.facts(SCOPES, valid_at=T0 + timedelta(days=10)),
        "history": client.history("Alice", "lives_in", SCOPES),
        "each_fact": [client.fact(i) for i in ids],
        "recall": [
            (i["id"], i["kind"])
            for i in client.recall("where does Alice live", SCOPES, k=5)["items"]
        ],
        "procedures": client.procedures("book a hotel", SCOPES, role="travel-agent"),
        "audit": admin.audit_log(first=200),
    }


@pytest.fixture
def exported(
    tmp_path: Path, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> tuple[Path, dict[str, Any]]:
    """The tenant populated through the API, what it answers, and its export file."""
    populate(client, admin)
    before = views(client, admin)
    assert before["history"] and before["recall"] and before["audit"]["edges"]
    dump = tmp_path / "tenant.jsonl"
    out = gm("export", "--tenant", tenant, "-o", str(dump))
    assert out.returncode == 0, out.stderr
    return dump, before


def test_export_import_round_trip(
    exported: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    dump, before = exported
    lines = [json.loads(x) for x in dump.read_text().splitlines()]
    assert lines[0]["kind"] == "header" and lines[0]["tenant"] == tenant
    assert lines[-1] == {
        "kind": "end",
        "nodes": sum(x["kind"] == "node" for x in lines),
        "relationships": sum(x["kind"] == "rel" for x in lines),
    }
    labels = {label for x in lines if x["kind"] == "node" for label in x["labels"]}
    assert {"Fact", "Episode", "AuditEvent", "Procedure", "Tenant"} <= labels
    assert "ApiKey" not in labels

    drop_tenant(settings, tenant)
    assert client.facts(SCOPES)["edges"] == []

    loaded = gm("import", str(dump))
    assert loaded.returncode == 0, loaded.stderr
    assert f"imported tenant {tenant}" in loaded.stderr
    # Exported again before anything reads it (a recall counts its retrievals): the same
    # graph, element ids and line order aside.
    again = tmp_path / "again.jsonl"
    assert gm("export", "--tenant", tenant, "-o", str(again)).returncode == 0
    assert canonical(again) == canonical(dump)
    assert views(client, admin) == before

    # Importing over a tenant that is there: refused, nothing doubled.
    twice = gm("import", str(dump))
    assert twice.returncode == 1 and "already holds tenant" in twice.stderr
    assert views(client, admin) == before


def canonical(path: Path) -> tuple[list[str], list[str]]:
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    nodes = {
        x["key"]: json.dumps([x["labels"], x["props"]], sort_keys=True)
        for x in lines
        if x["kind"] == "node"
    }
    rels = sorted(
        json.dumps([x["type"], nodes[x["source"]], nodes[x["target"]], x["props"]], sort_keys=True)
        for x in lines
        if x["kind"] == "rel"
    )
    return sorted(nodes.values()), rels


def test_a_bad_file_changes_nothing(
    exported: tuple[Path, dict[str, Any]], tmp_path: Path, settings: Settings, tenant: str
) -> None:
    dump, _ = exported
    drop_tenant(settings, tenant)
    lines = dump.read_text().splitlines()

    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")  # no end record
    out = gm("import", str(cut))
    assert out.returncode == 1 and "cut off" in out.stderr
    assert count(settings, tenant) == 0  # what it had created is gone again

    foreign = tmp_path / "foreign.jsonl"
    records = [json.loads(x) for x in lines]
    node = next(r for r in records if r["kind"] == "node" and "Fact" in r["labels"])
    node["props"]["tenant"] = "someone-else"
    foreign.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = gm("import", str(foreign))
    assert out.returncode == 1 and "not '" in out.stderr and "someone-else" in out.stderr
    assert count(settings, tenant) == 0
    assert count(settings, "someone-else") == 0

    odd = tmp_path / "odd.jsonl"
    node["props"]["tenant"] = tenant
    node["labels"] = ["Fact`) DETACH DELETE (x"]
    odd.write_text("".join(json.dumps(r) + "\n" for r in records))
    out = gm("import", str(odd))
    assert out.returncode == 1 and "plain names" in out.stderr
    assert count(settings, tenant) == 0

    header = json.loads(lines[0])
    header["embedding_model"] = "text-embedding-3-small"
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(header) + "\n" + "\n".join(lines[1:]) + "\n")
    out = gm("import", str(other))
    assert out.returncode == 1 and "text-embedding-3-small" in out.stderr

    # The untouched file still imports.
    assert gm("import", str(dump)).returncode == 0
    assert count(settings, tenant) == sum(json.loads(x)["kind"] == "node" for x in lines)
