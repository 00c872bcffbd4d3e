"""TTL expiry over HTTP: once a fact's TTL has elapsed it is not served as truth, and the sweep
(admin mutation or `graph-memory expire`) demotes it to expired/needs-verification, audited.

Waiting a day for a 1-day TTL is not an option in a test, so the only setup done over Bolt is
moving a fact's ``expires_at`` into the past: the passage of time, nothing else."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings
from tests.integration.conftest import elapse_ttl, episode, fact

SCOPES = ["user:alice"]
M_EXPIRE = "mutation { expireFacts { expired dependentsFlagged at } }"


def _by_object(client: GraphMemoryClient, **flt: Any) -> dict[str, dict[str, Any]]:
    return {e["node"]["object"]: e["node"] for e in client.facts(SCOPES, **flt)["edges"]}


def _setup(client: GraphMemoryClient) -> dict[str, str]:
    e = client.record_episode(**episode("alice"))
    out = client.assert_facts(
        [
            fact("alice", "likes", "sushi", [e], cardinality="MANY", ttlDays=1),
            fact("alice", "likes", "ramen", [e], ttlDays=30),
            fact("alice", "likes", "tea", [e]),
        ]
    )
    ids = {o: r["factId"] for o, r in zip(("sushi", "ramen", "tea"), out["results"], strict=True)}
    concl = client.assert_facts(
        [
            fact(
                "alice",
                "favourite_restaurant",
                "Sushi Bar",
                [e],
                cardinality="ONE",
                dependsOn=[ids["sushi"]],
            )
        ]
    )
    ids["restaurant"] = concl["results"][0]["factId"]
    return ids


def test_sweep_demotes_elapsed_facts_to_expired(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    ids = _setup(client)
    elapse_ttl(settings, tenant, ids["sushi"])
    # Reads stop serving it the moment the TTL elapses, before any sweep.
    assert "sushi" not in _by_object(client, predicate="likes")
    assert _by_object(client, includeExpired=True)["sushi"]["status"] == "ACTIVE"

    with pytest.raises(GraphMemoryClientError) as err:
        client.execute(M_EXPIRE)
    assert err.value.code == "FORBIDDEN"
    result = admin.execute(M_EXPIRE)["expireFacts"]
    assert (result["expired"], result["dependentsFlagged"]) == (1, 1)

    expired = _by_object(client, includeExpired=True)["sushi"]
    assert expired["status"] == "EXPIRED" and expired["needsVerification"] is True
    assert "TTL of 1 days elapsed" in expired["verificationReason"]
    assert sorted(_by_object(client, predicate="likes")) == ["ramen", "tea"]
    conclusion = client.fact(ids["restaurant"])
    assert conclusion and conclusion["needsVerification"]
    assert ids["sushi"] in conclusion["verificationReason"]
    assert "expired" in conclusion["verificationReason"]

    ev = analyst.audit_log(action="expire")["edges"]
    assert [e["node"]["targetId"] for e in ev] == [ids["sushi"]]
    assert ev[0]["node"]["actorType"] == "admin"
    # A second sweep finds nothing new.
    assert admin.execute(M_EXPIRE)["expireFacts"]["expired"] == 0


def test_cli_sweep_expires_as_the_system(
    settings: Settings, tenant: str, client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    ids = _setup(client)
    elapse_ttl(settings, tenant, ids["ramen"])
    done = subprocess.run(
        [sys.executable, "-m", "graph_memory.cli", "expire", "--tenant", tenant],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"{tenant}\texpired 1" in done.stdout
    assert _by_object(client, includeExpired=True)["ramen"]["status"] == "EXPIRED"
    ev = analyst.audit_log(action="expire", actor="system")["edges"]
    assert [e["node"]["actor"] for e in ev] == ["system:expiry"]
