"""Consolidation applies in bounded batches, each committed with its snapshots and diff: a
run that dies part way is interrupted (never half applied), and is resumed from its recorded
progress to the same end state as an uninterrupted run, or rolled back to exactly the state
before it; a write made between its batches to a memory it changed makes the rollback refuse."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
import time
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.domain import Principal, Role
from graph_memory.errors import Conflict
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.consolidation.service import ConsolidationService, RunReport
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings
from tests.integration.consolidation_helpers import SCOPES, answers, build_store, run


class Crash(BaseException):
    """The process dies between two batches (nothing of ours catches a BaseException)."""


def _crash_after(step: str) -> Any:
    def progress(name: str, done: int, total: int) -> None:
        if name == step:
            raise Crash(step)

    return progress


def _service(db: Database) -> ConsolidationService:
    # One memory per batch, a one-second lease: many batches, and a dead run goes stale fast.
    return ConsolidationService(
        db, PolicyStore(TrustRepository(db)).policy_for, lease_seconds=1.0, batch_size=1
    )


def _timeless(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Answers with the moments in reasons blanked (two runs flag at different times)."""
    return [
        tuple(re.sub(r"\d{4}-\d\d-\d\dT[\d:.+]+", "T", v) if isinstance(v, str) else v for v in row)
        for row in rows
    ]


def _who(tenant: str) -> Principal:
    return Principal(tenant=tenant, role=Role.ADMIN, key_id="k", name="ops")


async def _crashed_run(settings: Settings, tenant: str, step: str) -> str:
    db = Database.connect(settings.neo4j())
    try:
        service = _service(db)
        with pytest.raises(Crash):
            await service.run(_who(tenant), SCOPES, progress=_crash_after(step))
        (latest,) = await service.runs(_who(tenant), first=1)
        assert latest.status == "running" and latest.batches >= 1
        return latest.id
    finally:
        await db.close()


def test_a_crashed_run_is_interrupted_and_resumes_to_the_same_end_state(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    build_store(settings, tenant, client, admin)
    before = answers(client)

    run_id = asyncio.run(_crashed_run(settings, tenant, "promotion"))
    assert answers(client) != before  # the crashed run's committed batches are in force

    async def go(rollback: bool) -> RunReport:
        db = Database.connect(settings.neo4j())
        try:
            service = _service(db)
            if rollback:
                return await service.rollback(_who(tenant), run_id)
            with pytest.raises(Conflict):  # still holding its lease: not resumable yet
                await service.resume(_who(tenant), run_id)
            await asyncio.sleep(1.2)  # the lease runs out
            return await service.resume(_who(tenant), run_id)
        finally:
            await db.close()

    resumed = asyncio.run(go(rollback=False))
    assert resumed.status == "applied" and resumed.batches >= 4
    assert [s.step for s in resumed.steps] == [
        "expiry",
        "promotion",
        "dedupe",
        "contradictions",
        "decay",
    ]
    assert [c.seq for c in resumed.changes or ()] == list(range(resumed.changed))
    resumed_state = _timeless(answers(client))
    back = asyncio.run(go(rollback=True))
    assert back.status == "rolled_back" and back.restored > 0
    assert answers(client) == before  # every batch, before and after the crash, undone
    # An uninterrupted run (GraphQL, default batches) reaches what the resumed one reached.
    done = run(admin)
    assert _timeless(answers(client)) == resumed_state
    counts = {
        (s["step"].lower(), c["name"]): c["value"]
        for s in done["steps"]
        for c in s["counts"]
        if s["step"] not in ("ENTITIES", "COMPACTION")  # GDS steps the resumed run lacked
    }
    assert counts == {(s.step, c.name): c.value for s in resumed.steps for c in s.counts}


def test_an_interrupted_run_rolls_back_and_a_write_between_batches_is_never_overwritten(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    before = answers(client)

    async def crash_and_back() -> RunReport:
        run_id = await _crashed_run(settings, tenant, "expiry")
        await asyncio.sleep(1.2)
        db = Database.connect(settings.neo4j())
        try:
            return await _service(db).rollback(_who(tenant), run_id)
        finally:
            await db.close()

    back = asyncio.run(crash_and_back())
    assert back.status == "rolled_back"
    assert answers(client) == before

    # Again, but someone changes a memory the run already changed while it is down: the
    # resumed run notes the foreign write, and its rollback refuses rather than undo it.
    async def crash_write_resume() -> tuple[str, Conflict]:
        run_id = await _crashed_run(settings, tenant, "expiry")
        client.retract_fact(s.conclusion, "no longer true")
        await asyncio.sleep(1.2)
        db = Database.connect(settings.neo4j())
        try:
            service = _service(db)
            await service.resume(_who(tenant), run_id)
            with pytest.raises(Conflict) as err:
                await service.rollback(_who(tenant), run_id)
            return run_id, err.value
        finally:
            await db.close()

    run_id, refused = asyncio.run(crash_write_resume())
    assert s.conclusion in refused.message and run_id in refused.message
    assert client.fact(s.conclusion)["status"] == "RETRACTED"  # type: ignore[index]


def test_the_cli_resumes_an_interrupted_run(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    build_store(settings, tenant, client, admin)
    run_id = asyncio.run(_crashed_run(settings, tenant, "expiry"))
    time.sleep(1.2)  # the lease runs out
    argv = [sys.executable, "-m", "graph_memory.cli", "consolidate", "--tenant", tenant]
    out = subprocess.run(
        [*argv, "--resume", run_id, "--json", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert (report["id"], report["status"]) == (run_id, "applied")
    # The steps the run was started with (its service had no GDS steps), in run order.
    assert [s["step"] for s in report["steps"]] == [
        "expiry",
        "promotion",
        "dedupe",
        "contradictions",
        "decay",
    ]
    bare = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert bare.returncode == 2 and "--scope" in bare.stderr
