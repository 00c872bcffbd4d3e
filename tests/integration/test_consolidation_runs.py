"""Consolidation runs over HTTP: a dry run shows the diff and applies nothing; an applied run
is stored with its counts, per-step durations and diff, every change audited as actor
'consolidation'; runs on one scope never overlap (leases in the graph); the CLI runs one."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import pytest
from neo4j.exceptions import TransientError

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.domain import Principal, Role
from graph_memory.errors import Conflict
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.consolidation.service import ConsolidationService
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings
from tests.integration.conftest import episode
from tests.integration.consolidation_helpers import (
    CORE,
    M_RUN,
    Q_RUNS,
    SCOPES,
    answers,
    build_store,
    run,
)


def test_dry_run_returns_the_diff_and_applies_nothing(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    before = answers(client)
    dry = run(admin, dry=True)
    assert dry["status"] == "DRY_RUN" and dry["dryRun"] is True
    targets = {(c["action"], c["targetId"]) for c in dry["changes"]}
    assert ("expire", s.expiring) in targets
    assert ("promote", s.candidate) in targets
    assert ("merge_duplicate", s.jira_dup) in targets
    assert ("flag_contradiction", s.core_day) in targets
    assert answers(client) == before  # nothing applied
    assert admin.execute(Q_RUNS, {})["consolidationRuns"] == []  # and nothing stored
    # The diff is what applying does (up to the clock: it is read again when applying).
    applied = run(admin)

    def shape(changes: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [
            (
                c["step"],
                c["action"],
                c["targetId"],
                c["before"],
                sorted(c["after"]),
                c["after"].get("status"),
            )
            for c in changes
        ]

    assert shape(applied["changes"]) == shape(dry["changes"])


Q_METRICS = "{ consolidationRuns { batches changed durationMs rollbackMs restored } }"


def test_applied_run_is_stored_with_counts_durations_diff_and_audit(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    s = build_store(settings, tenant, client, admin)
    out = run(admin)
    assert out["status"] == "APPLIED" and out["actor"] == "consolidation"
    assert out["requestedBy"].startswith("admin:")
    steps = {st["step"]: st for st in out["steps"]}
    assert list(steps) == [
        "EXPIRY",
        "PROMOTION",
        "ENTITIES",
        "DEDUPE",
        "CONTRADICTIONS",
        "COMPACTION",
        "DECAY",
    ]
    assert [c["value"] for c in steps["ENTITIES"]["counts"]] == [0, 0, 0]
    counts = {(k, c["name"]): c["value"] for k, st in steps.items() for c in st["counts"]}
    assert counts[("EXPIRY", "expired")] == 1
    assert counts[("EXPIRY", "dependents_flagged")] == 1
    assert counts[("PROMOTION", "promoted")] == 1
    assert counts[("DEDUPE", "merged")] == 1
    assert counts[("CONTRADICTIONS", "flagged")] == 2
    assert all(st["durationMs"] >= 0 for st in out["steps"])
    expire = next(c for c in out["changes"] if c["action"] == "expire")
    assert expire["before"]["status"] == "active" and expire["after"]["status"] == "expired"

    listed = analyst.execute(Q_RUNS, {"scope": CORE})["consolidationRuns"]
    assert [r["id"] for r in listed] == [out["id"]]
    # Run metrics: committed batches (one per step that changed something), diff size, time.
    (m,) = analyst.execute(Q_METRICS, {})["consolidationRuns"]
    changing = [st for st in out["steps"] if any(c["value"] for c in st["counts"])]
    assert m["batches"] == len(changing) >= 4 and m["changed"] == len(out["changes"])
    assert m["durationMs"] >= sum(st["durationMs"] for st in out["steps"]) * 0.99
    assert m["rollbackMs"] is None and m["restored"] == 0
    assert listed[0]["changes"] == out["changes"] and listed[0]["steps"] == out["steps"]

    events = analyst.audit_log(actor="consolidation", first=100)["edges"]
    by_action: dict[str, set[str]] = {}
    for e in events:
        by_action.setdefault(e["node"]["action"], set()).add(e["node"]["targetId"])
    assert by_action["expire"] == {s.expiring}
    assert by_action["promote"] == {s.candidate}
    assert by_action["merge_duplicate"] == {s.jira_dup}
    assert by_action["flag_contradiction"] == {s.core_day, s.ops_day}
    assert all(e["node"]["actorType"] == "consolidation" for e in events)

    # A second run finds nothing left to do.
    again = run(admin)
    assert again["changes"] == []


def test_only_admins_run_and_bad_steps_are_refused(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    for who in (client, analyst):
        with pytest.raises(GraphMemoryClientError) as err:
            run(who)
        assert err.value.code == "FORBIDDEN"
    with pytest.raises(GraphMemoryClientError) as err:
        client.execute(Q_RUNS, {})
    assert err.value.code == "FORBIDDEN"
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute('mutation { runConsolidation(scopes: ["bad scope"]) { id } }')
    assert err.value.code == "VALIDATION"
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute('mutation { rollbackConsolidation(runId: "run_nope") { id } }')
    assert err.value.code == "NOT_FOUND"


def test_a_scope_with_nothing_to_consolidate_applies_an_empty_run(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Every step on a scope holding only an episode, and on one holding nothing: applied,
    nothing changed (entity resolution has no entity to compare)."""
    client.record_episode(**episode("quinn", "s1", scope="team:quiet"))
    for scope in ("team:quiet", "team:never"):
        done = admin.execute(M_RUN, {"s": [scope], "steps": None, "dry": False})
        out = done["runConsolidation"]
        assert out["status"] == "APPLIED" and out["changes"] == [], out
        assert all(c["value"] == 0 for st in out["steps"] for c in st["counts"]), out


def test_runs_on_one_scope_never_overlap_across_service_processes(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Two services sharing one Neo4j: while one holds a scope's lease the other is refused
    (a dry run too); a crashed run's lease runs out and the next run marks it abandoned
    (nothing applied)."""
    build_store(settings, tenant, client, admin)
    who = Principal(tenant=tenant, role=Role.ADMIN, key_id="k", name="ops")

    async def go() -> tuple[str, str]:
        db_a, db_b = Database.connect(settings.neo4j()), Database.connect(settings.neo4j())
        try:
            a = ConsolidationService(db_a, PolicyStore(TrustRepository(db_a)).policy_for, 1.0)
            b = ConsolidationService(db_b, PolicyStore(TrustRepository(db_b)).policy_for, 1.0)
            # Process A claims and dies before applying (its one transaction never commits).
            crashed = {
                "id": "run_crashed",
                "scopes": [CORE],
                "steps": ["expiry"],
                "dry_run": False,
                "requested_by": "admin:ops",
                "actor": "consolidation",
            }
            await db_a.write_tx(lambda tx: a._claim(tx, tenant, [CORE], crashed))
            with pytest.raises(Conflict) as err:
                await b.run(who, SCOPES)
            assert "run_crashed" in err.value.message
            # A dry run too: between a run's batches it would read a half-applied store.
            with pytest.raises(Conflict) as err:
                await b.run(who, SCOPES, dry_run=True)
            assert "run_crashed" in err.value.message
            await asyncio.sleep(1.2)  # the lease runs out
            done = await b.run(who, SCOPES)
            runs = await b.runs(who)
            # A rollback under way holds the scopes too (no lease: between its pages).
            await db_a.run_raw(
                "MATCH (r:ConsolidationRun {tenant: $t, id: $id}) SET r.status = 'rolling_back'",
                {"t": tenant, "id": done.id},
            )
            with pytest.raises(Conflict) as err:
                await b.run(who, SCOPES, dry_run=True)
            assert done.id in err.value.message
            return done.status, {r.id: r.status for r in runs}["run_crashed"]
        finally:
            await db_a.close()
            await db_b.close()

    status, crashed_status = asyncio.run(go())
    assert (status, crashed_status) == ("applied", "abandoned")


def test_cli_consolidates_with_json_output(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    argv = [
        sys.executable,
        "-m",
        "graph_memory.cli",
        "consolidate",
        "--tenant",
        tenant,
        "--scope",
        SCOPES[0],
        "--scope",
        SCOPES[1],
        "--json",
    ]
    dry = subprocess.run(
        [*argv, "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )
    assert dry.returncode == 0, dry.stderr
    assert json.loads(dry.stdout)["status"] == "dry_run"
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=120, env=dict(os.environ), check=False
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "applied"
    assert "consolidate" in done.stderr  # the progress bar
    assert {c["target_id"] for c in report["changes"] if c["action"] == "expire"} == {s.expiring}
    # Each change's before/after as GraphQL shows them: the changed properties, not JSON text.
    (expire,) = [c for c in report["changes"] if c["action"] == "expire"]
    assert isinstance(expire["before"], dict) and isinstance(expire["after"], dict), expire
    expired = client.fact(s.expiring)
    assert expired is not None and expired["status"] == "EXPIRED"


def test_an_empty_list_of_steps_is_refused_not_taken_for_all(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    with pytest.raises(GraphMemoryClientError) as err:
        run(admin, steps=[])
    assert err.value.code == "VALIDATION" and "steps is empty" in str(err.value)
    runs = admin.execute(
        "query($s: String) { consolidationRuns(scope: $s) { id } }", {"s": SCOPES[0]}
    )["consolidationRuns"]
    assert runs == []


def test_a_dry_run_retried_after_a_transient_fault_reports_every_step(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """A dry run is one transaction. Retried after a transient fault part way (a deadlock
    Neo4j broke, a dropped connection), it runs every step again: its report is the one a
    run without the fault gives, not only the steps after the fault."""
    build_store(settings, tenant, client, admin)
    who = Principal(tenant=tenant, role=Role.ADMIN, key_id="k", name="ops")

    def shape(report: Any) -> tuple[list[str], list[tuple[str, str, str]], dict[str, Any]]:
        counts = {s.step: sorted((c.name, c.value) for c in s.counts) for s in report.steps}
        changes = sorted((c.step, c.action, c.target_id) for c in report.changes or ())
        return [s.step for s in report.steps], changes, counts

    async def go() -> tuple[Any, Any, list[str]]:
        db = Database.connect(settings.neo4j())
        try:
            svc = ConsolidationService(db, PolicyStore(TrustRepository(db)).policy_for, 1.0)
            clean = await svc.run(who, SCOPES, dry_run=True)
            seen: list[str] = []

            def progress(name: str, done: int, total: int) -> None:
                seen.append(name)
                if len(seen) == 2:  # two steps done: the transaction breaks off
                    raise TransientError("the store broke the transaction off")

            faulted = await svc.run(who, SCOPES, dry_run=True, progress=progress)
            return clean, faulted, seen
        finally:
            await db.close()

    clean, faulted, seen = asyncio.run(go())
    assert faulted.status == "dry_run"
    assert len(seen) > len(clean.steps)  # it did run again
    assert shape(faulted) == shape(clean)
    assert clean.changes  # the store has something to consolidate
