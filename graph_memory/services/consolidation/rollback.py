"""Rollback of a consolidation run: the run's batches undone newest first, each in one
transaction, then the slots the rule settled recomputed.

First, under the tenant lock and the run's scope locks, the run is checked for memories
changed since it left them. The lock counters make that cheap in the usual case: every writer
bumps the counters of the locks it takes, the run recorded them after its last batch and
whether anyone else wrote between its batches, so counters that moved by exactly our own
bump prove nothing else changed its scopes (quiet); only otherwise is each memory's
fingerprint compared. A stale memory refuses the whole rollback (Conflict) before anything is
restored.

Then one transaction per run batch that changed something, newest first, under the same
locks: one set-based query restores the memories that batch snapshotted first (properties,
evidence, the entity a fact is about; only what differs is written) and spends their
snapshots, and audits every memory it restores as a 'rollback' by actor ``consolidation`` (one
event each, written by that statement rather than built here and sent back as ~24,000 maps
for a 100k-fact run).
The timeline, which must read at every asOf as before the run:
- quiet: the batch's journaled timeline writes (an entity merge's relabelled, created and
  deleted segments, consolidation_timeline.SlotWrites) are inverted exactly, ids and all,
  with no slot read or recomputed: nothing else wrote those segments since;
- otherwise (someone wrote the scopes since, or a second call goes on with a rollback that
  stopped part way): the slots the restored versions leave and return to are recomputed from
  the versions (reslot), the general way, and journals are not used.
A step that settles by the rule (every step but an entity merge) journals what the settle
wrote too (the segments it ended and opened at the batch's moment), so a rollback that stays
quiet to the end recomputes no slot at all. Otherwise (or for a run from before settles were
journaled) a memory some step settled is marked on its snapshot and the last pass recomputes
the slots those memories left and returned to, from the restored versions. The
recomputation is authoritative, so every slot ends as the rule gives for the versions as
they were before the run, which is the stored timeline before it.

A rollback that stops part way is 'rolling_back' and a second call goes on from the
snapshots not spent yet (recomputing, not trusting journals). The last transaction drops the
run's entity-merge edges and proposals and its episode digests (their members served again),
any journal left, and marks the run rolled back. The spent snapshots are deleted after that,
in the background (``sweep``): deleting ~45,000 snapshot nodes was a third of the commits of
a 100k-fact run's rollback, and nothing reads them once it is done.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from graph_memory import metrics
from graph_memory.db import Database, Record, Tx
from graph_memory.domain import Principal, utcnow
from graph_memory.errors import Conflict, Forbidden, GraphMemoryError, NotFound
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.compaction import CompactionRepository
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.timeline import SlotKey
from graph_memory.services.audit import events as audit
from graph_memory.services.consolidation.context import ACTOR, fingerprint
from graph_memory.services.consolidation.report import RunReport, report_of
from graph_memory.services.consolidation.timeline import reslot

__all__ = ["ROLLS_BACK", "roll_back", "sweep"]

# What a rollback refuses with, counted apart from its failures.
_REFUSALS = {Conflict.code, NotFound.code, Forbidden.code}

# A run that committed batches rolls back whether it finished or stopped part way.
ROLLS_BACK = ("applied", "interrupted", "failed", "rolling_back")
_ALL = 10_000_000
_LEGACY = -1  # the batch of snapshots made before runs numbered them (migration 040)
# Memories restored (or whose slots the last pass recomputes) per transaction: a run batch
# snapshots about BATCH, so one page each; the snapshots of a run from before batches were
# numbered are all batch -1, and a transaction holding all of them would run out of memory.
# (Two run batches a transaction, half the commits, measured no faster at 100k facts: the
# fixed cost of a commit is small beside its index updates, and a larger transaction's reads
# and heap cost more.)
_PAGE = 2_500
# Spent snapshots deleted per transaction by the sweep after a rollback.
_SWEEP_PAGE = 5_000


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


async def _begin(
    tx: Tx, tenant: str, run_id: str, actor: str
) -> tuple[list[int], bool, list[int], bool]:
    """Checks and marks the run rolling back; returns the lock counters, whether nothing else
    wrote its scopes since it ran (quiet), its batches to undo, newest first, and whether its
    journals hold every timeline write it made (settles too)."""
    run, seqs = await _locked(tx, tenant, run_id)
    if run["status"] == "running":  # its lease may have run out: then it is interrupted
        await Repo.abandon_stale(tx, tenant, list(run.get("scopes") or []), utcnow())
        run = await Repo.run(tx, tenant, run_id) or run
    status = run["status"]
    if status not in ROLLS_BACK or (status != "applied" and not run.get("batches")):
        raise Conflict(f"run {run_id} is {status}; only an applied run rolls back")
    recorded = [int(s) for s in run.get("seqs") or []]
    quiet = bool(
        status == "applied"
        and not run.get("foreign_writes")
        and recorded
        and seqs == [s + 1 for s in recorded]
    )
    if not quiet:  # someone wrote these scopes since (or during) the run: compare each memory
        stale = await _stale(tx, tenant, await Repo.snapshots(tx, tenant, run_id, _ALL))
        stale += await Repo.later_versions(tx, tenant, run_id, run.get("started_at"))
        if stale:
            raise _refuse(run_id, stale)
    # Whether or not the scopes were written (an outcome report on a digest writes no memory
    # a snapshot compares, only a verdict on it): a digest others built on would go with the
    # rollback.
    used = await Repo.used_digests(tx, tenant, run_id)
    if used:
        raise _refuse(run_id, used)
    props = {"seqs": seqs, "rolled_back_by": actor}
    await Repo.set_status(tx, tenant, run_id, "rolling_back", list(ROLLS_BACK), props)
    changed = run.get("changed_batches")
    if changed is None:  # a run from before batches were numbered: all its snapshots at once
        return seqs, False, [_LEGACY], False
    batches = [*sorted({int(b) for b in changed}, reverse=True), _LEGACY]
    return seqs, quiet, batches, bool(run.get("settles_journaled"))


async def _page(
    tx: Tx,
    tenant: str,
    run_id: str,
    before: list[int],
    quiet: bool,
    todo: list[int],
    actor: str,
    written: bool,
) -> tuple[list[int], bool, list[int], bool]:
    """Undo a page of the run batch at the head of ``todo`` (newest first; batches with
    nothing left to restore are passed over in the same transaction); returns the lock
    counters, whether it is still quiet, the batches left (the head stays when its page was
    full) and whether someone else wrote since the rollback began (``written``: from then on
    every batch is checked before it is undone, since that write may have changed any memory
    not restored yet, not only those of the transaction that first saw it)."""
    run, seqs = await _locked(tx, tenant, run_id)
    if run["status"] != "rolling_back":
        raise Conflict(f"run {run_id} is {run['status']}; its rollback was stopped")
    written = written or seqs != [s + 1 for s in before]
    quiet = quiet and not written
    left, done = list(todo), 0
    while left and not done:
        batch = left[0]
        if written:
            prints = await Repo.snapshot_prints(tx, tenant, run_id, batch)
            stale = await _stale(tx, tenant, prints)
            if stale:
                raise _refuse(run_id, stale)
        restored = await Repo.restore(tx, tenant, run_id, batch, _PAGE, _audit(run_id, actor))
        if quiet:  # a journal is spent at its batch's first page
            await Repo.undo_journal(tx, tenant, run_id, batch)
        else:
            await reslot(tx, tenant, _slots(restored))
        done = len(restored)
        if done < _PAGE:  # the batch is undone
            left.pop(0)
    total = int(run.get("restored") or 0) + done
    await Repo.set_status(
        tx, tenant, run_id, "rolling_back", ["rolling_back"], {"seqs": seqs, "restored": total}
    )
    return seqs, quiet, left, written


def _slots(rows: list[Record]) -> set[SlotKey]:
    """The slots restored versions return to and those they left."""
    back = {SlotKey(r["scope"], r["subject"], r["predicate"]) for r in rows}
    return back | {SlotKey(r["left_scope"], r["left_subject"], r["left_predicate"]) for r in rows}


def _audit(run_id: str, actor: str) -> dict[str, Any]:
    """The fields every 'rollback' event of one transaction shares; the restore statement
    writes one event per memory it restores with them (the memory and its status before and
    after are its own)."""
    shared = audit.event(
        None,
        "rollback",
        "fact",
        "",
        utcnow(),
        reason=f"rollback of consolidation run {run_id} by {actor}",
        actor=ACTOR,
        actor_type="consolidation",
    )
    return {k: shared[k] for k in ("at", "actor", "actor_type", "reason")}


async def _resettle(tx: Tx, tenant: str, run_id: str) -> int:
    """One page of the last pass: slots the rule settled, recomputed from restored versions."""
    await _locked(tx, tenant, run_id)
    rows = await Repo.resettle(tx, tenant, run_id, _PAGE)
    await reslot(tx, tenant, _slots([r for r in rows if r["resettle"]]))
    return len(rows)


async def _end(tx: Tx, principal: Principal, run_id: str, spent_ms: float, diff: bool) -> RunReport:
    tenant = principal.tenant
    run, _ = await _locked(tx, tenant, run_id)
    now: datetime = utcnow()
    await ResolutionRepository.undo(tx, tenant, run_id)
    # The episodes a compaction stood a digest for are served again: restored memories too.
    restored = int(run.get("restored") or 0) + await CompactionRepository.undo(tx, tenant, run_id)
    await Repo.mark_rolled_back(tx, tenant, run_id, now, principal.actor)
    await Repo.set_status(
        tx,
        tenant,
        run_id,
        "rolled_back",
        ["rolled_back"],
        {"rollback_ms": spent_ms, "restored": restored},
    )
    # Who undid the run, whatever it changed (a run that only compacted episodes left no
    # other trace).
    undone = audit.event(
        principal,
        "rollback",
        "consolidation_run",
        run_id,
        now,
        after={"status": "rolled_back", "restored": restored},
        reason=f"rollback of consolidation run {run_id}",
    )
    await AuditRepository.record_in_tx(tx, tenant, [undone])
    # The diff (when asked for) is read in the last transaction, not after it: a read that
    # failed once the rollback had committed would report a done rollback as failed, and a
    # retry would be refused.
    rows = await Repo.runs(tx, tenant, [run_id], None, 1, diff)
    return report_of(rows[0]["run"], rows[0]["changes"])


async def roll_back(
    db: Database, principal: Principal, run_id: str, diff: bool = True
) -> RunReport:
    """Undo a run (applied, or stopped part way) so every read at every asOf answers as if it
    never happened; the run as it now stands, with its diff unless ``diff`` is off (a 100k-fact
    run's ~24,000 entries take seconds to read back). Raises NotFound, Conflict (not
    rollbackable, or changed again since)."""
    tenant, actor = principal.tenant, principal.actor
    t0 = time.perf_counter()
    commits = 0
    try:
        seqs, quiet, batches, journaled = await db.write_tx(
            lambda tx: _begin(tx, tenant, run_id, actor)
        )
        written = False
        while batches:
            prev, was_quiet, todo, seen = seqs, quiet, batches, written
            seqs, quiet, batches, written = await db.write_tx(
                lambda tx, prev=prev, q=was_quiet, todo=todo, seen=seen: _page(  # type: ignore[misc]
                    tx, tenant, run_id, prev, q, todo, actor, seen
                )
            )
            commits += 1
        # Quiet to the end, with every timeline write journaled: the journals' inverses already
        # put back the stored timeline as it was (the snapshots left go with the sweep).
        # Otherwise the slots the rule settled are recomputed from the restored versions.
        if not (quiet and journaled):
            while await db.write_tx(lambda tx: _resettle(tx, tenant, run_id)):
                commits += 1
        spent = (time.perf_counter() - t0) * 1000.0
        result: RunReport = await db.write_tx(lambda tx: _end(tx, principal, run_id, spent, diff))
    except GraphMemoryError as e:
        # A refusal (CONFLICT, NOT_FOUND, FORBIDDEN) is the caller's to act on, not a fault.
        status = "refused" if e.code in _REFUSALS else "failed"
        metrics.observe_consolidation("rollback", status, time.perf_counter() - t0, commits)
        raise
    except Exception:
        metrics.observe_consolidation("rollback", "failed", time.perf_counter() - t0, commits)
        raise
    metrics.observe_consolidation("rollback", "rolled_back", time.perf_counter() - t0, commits)
    return result


async def sweep(db: Database, tenant: str, run_id: str) -> int:
    """Delete a rolled-back run's snapshots, a page a transaction; how many went. No lock:
    nothing reads a rolled-back run's snapshots (a forget's trail may drop some first)."""
    dropped = 0
    while True:
        n = await db.write_tx(lambda tx: Repo.sweep(tx, tenant, run_id, _SWEEP_PAGE))
        dropped += n
        if n < _SWEEP_PAGE:
            return dropped
