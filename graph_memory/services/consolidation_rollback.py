"""Rollback of a consolidation run, in bounded batches that each restore and spend snapshots.

First, under the tenant lock and the run's scope locks, the run is checked for memories
changed since it left them. The lock counters make that cheap in the usual case: every writer
bumps the counters of the locks it takes, the run recorded them after its last batch and
whether anyone else wrote between its batches, so counters that moved by exactly our own
bump prove nothing else changed its memories; only otherwise is each memory's fingerprint
compared. A stale memory refuses the whole rollback (Conflict) before anything is restored.

Then each batch, its own transaction under the same locks, restores a page of snapshots (read
once, slot by slot)
(properties, evidence, the entity a fact is about), deletes them in the same transaction,
rebuilds the timelines of the slots those versions left and return to, and audits every
restored memory as a 'rollback' by actor ``consolidation``. A batch that finds the counters
moved (someone wrote since the previous batch) compares its own memories' fingerprints
first. A rollback that stops part way (a crash, a Conflict) is 'rolling_back' and a second
call goes on from the snapshots left. The last transaction drops the run's entity-merge
edges and proposals and its episode digests (their members served again), and marks the run
rolled back.
"""

from __future__ import annotations

import time
from datetime import datetime

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import Principal, utcnow
from graph_memory.errors import Conflict, NotFound
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.compaction import CompactionRepository
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.timeline import SlotKey, TimelineRepository
from graph_memory.services import audit
from graph_memory.services.consolidation_context import ACTOR, fingerprint
from graph_memory.services.consolidation_report import RunReport, report_of
from graph_memory.services.consolidation_timeline import reslot

__all__ = ["ROLLS_BACK", "roll_back"]

# A run that committed batches rolls back whether it finished or stopped part way.
ROLLS_BACK = ("applied", "interrupted", "failed", "rolling_back")
_ALL = 10_000_000


async def _locked(tx: Tx, tenant: str, run_id: str) -> tuple[Record, list[int]]:
    """The run, under the tenant lock and its scope locks, and the lock counters as they are
    with our own bump."""
    await WriteLocks.tenant(tx, tenant)
    run = await Repo.run(tx, tenant, run_id)
    if run is None:
        raise NotFound(f"no consolidation run {run_id}")
    scopes = list(run.get("scopes") or [])
    await WriteLocks.scopes(tx, tenant, scopes)
    return run, await Repo.seqs(tx, tenant, scopes)


async def _stale(tx: Tx, tenant: str, snaps: list[Record]) -> list[str]:
    """The memories of ``snaps`` whose state is no longer the one the run left them in."""
    out: list[str] = []
    for i in range(0, len(snaps), 2_000):
        page = snaps[i : i + 2_000]
        current = await FactRepository.get_in_tx(tx, tenant, [s["id"] for s in page])
        out += [s["id"] for s in page if fingerprint(current.get(s["id"])) != s["print"]]
    return out


def _refuse(run_id: str, stale: list[str]) -> Conflict:
    return Conflict(
        f"memories changed since run {run_id}: {stale[:5]}; roll back or undo the later "
        "changes first"
    )


async def _begin(tx: Tx, tenant: str, run_id: str, actor: str) -> tuple[list[int], list[str]]:
    run, seqs = await _locked(tx, tenant, run_id)
    if run["status"] == "running":  # its lease may have run out: then it is interrupted
        await Repo.abandon_stale(tx, tenant, list(run.get("scopes") or []), utcnow())
        run = await Repo.run(tx, tenant, run_id) or run
    status = run["status"]
    if status not in ROLLS_BACK or (status != "applied" and not run.get("batches")):
        raise Conflict(f"run {run_id} is {status}; only an applied run rolls back")
    recorded = [int(s) for s in run.get("seqs") or []]
    quiet = (
        status == "applied"
        and not run.get("foreign_writes")
        and recorded
        and seqs == [s + 1 for s in recorded]
    )
    snaps = await Repo.snapshots(tx, tenant, run_id, _ALL)
    if not quiet:  # someone wrote these scopes since (or during) the run: compare each memory
        stale = await _stale(tx, tenant, snaps)
        if stale:
            raise _refuse(run_id, stale)
    props = {"seqs": seqs, "rolled_back_by": actor}
    await Repo.set_status(tx, tenant, run_id, "rolling_back", list(ROLLS_BACK), props)
    return seqs, [s["id"] for s in snaps]


async def _batch(
    tx: Tx, tenant: str, run_id: str, before: list[int], ids: list[str], actor: str
) -> list[int]:
    run, seqs = await _locked(tx, tenant, run_id)
    if run["status"] != "rolling_back":
        raise Conflict(f"run {run_id} is {run['status']}; its rollback was stopped")
    if seqs != [s + 1 for s in before]:  # a write since our previous batch: check ours
        prints = await Repo.snapshot_prints(tx, tenant, run_id, ids)
        stale = await _stale(tx, tenant, prints)
        if stale:
            raise _refuse(run_id, stale)
    now = utcnow()
    # The slots the versions are in now and those they go back to (a merge moved some).
    moved = await TimelineRepository.slots_of(tx, tenant, ids)
    restored = await Repo.restore(tx, tenant, run_id, ids)
    slots = {SlotKey(r["scope"], r["subject"], r["predicate"]) for r in restored}
    await reslot(tx, tenant, slots | set(moved))
    events = [
        audit.event(
            None,
            "rollback",
            "fact",
            r["id"],
            now,
            before={"status": r["status_before"]},
            after={"status": r["status"]},
            reason=f"rollback of consolidation run {run_id} by {actor}",
            actor=ACTOR,
            actor_type="consolidation",
        )
        for r in restored
    ]
    await AuditRepository.record_in_tx(tx, tenant, events)
    done = int(run.get("restored") or 0) + len(restored)
    await Repo.set_status(
        tx, tenant, run_id, "rolling_back", ["rolling_back"], {"seqs": seqs, "restored": done}
    )
    return seqs


async def _end(tx: Tx, tenant: str, run_id: str, actor: str, spent_ms: float) -> RunReport:
    await _locked(tx, tenant, run_id)
    now: datetime = utcnow()
    await ResolutionRepository.undo(tx, tenant, run_id)
    await CompactionRepository.undo(tx, tenant, run_id)
    await Repo.mark_rolled_back(tx, tenant, run_id, now, actor)
    await Repo.set_status(
        tx, tenant, run_id, "rolled_back", ["rolled_back"], {"rollback_ms": spent_ms}
    )
    rows = await Repo.runs(tx, tenant, [run_id], None, 1)
    return report_of(rows[0]["run"], rows[0]["changes"])


async def roll_back(db: Database, principal: Principal, run_id: str, size: int) -> RunReport:
    """Undo a run (applied, or stopped part way) so every read at every asOf answers as if it
    never happened. Raises NotFound, Conflict (not rollbackable, or changed again since)."""
    tenant, actor = principal.tenant, principal.actor
    t0 = time.perf_counter()
    seqs, ids = await db.write_tx(lambda tx: _begin(tx, tenant, run_id, actor))
    for i in range(0, len(ids), size):
        page, prev = ids[i : i + size], seqs
        seqs = await db.write_tx(
            lambda tx, page=page, prev=prev: _batch(tx, tenant, run_id, prev, page, actor)  # type: ignore[misc]
        )
    spent = (time.perf_counter() - t0) * 1000.0
    result: RunReport = await db.write_tx(lambda tx: _end(tx, tenant, run_id, actor, spent))
    return result
