"""Consolidation runs: the memory cleans itself out of band, and every run can be undone.

A run claims its scopes with a lease stored in the graph (so service processes sharing one
Neo4j never overlap on a scope), then applies its steps in bounded batches, each its own
transaction under the tenant lock and the run's scope locks, committed together with its
snapshots, its diff entries and the run's progress (consolidation_context). A crash loses only
the batch in flight: the lease runs out, the next claim marks the run interrupted (abandoned
if no batch committed), and ``resume`` finishes it from its recorded progress or ``rollback``
undoes what it committed. The run node keeps its diff (before/after per change), counts,
per-step durations and batch count. A dry run puts every batch in one transaction rolled back
at the end: the diff it returns is exactly what applying would do.

Rollback (consolidation_rollback) undoes the run's batches newest first, restoring their
snapshots and inverting their journaled timeline writes (or recomputing the slots), so every
read at every asOf answers as before the run; it refuses (Conflict) when a memory the run
changed has changed again since.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from graph_memory import metrics
from graph_memory.db import Database, Record, Tx
from graph_memory.domain import Principal, Role, as_datetime, parse_scope, parse_scopes, utcnow
from graph_memory.errors import Conflict, Forbidden, NotFound, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.services.background import cancel_all
from graph_memory.services.consolidation.compaction import Compactor
from graph_memory.services.consolidation.context import BATCH, RunContext
from graph_memory.services.consolidation.entities import EntityResolver, MergeProposal
from graph_memory.services.consolidation.report import RunReport, StepReport, report_of
from graph_memory.services.consolidation.rollback import roll_back, sweep
from graph_memory.services.consolidation.steps import ACTOR, STEPS, Step

__all__ = ["ConsolidationService", "RunReport", "StepReport"]

log = logging.getLogger(__name__)

RESUMABLE = ("interrupted", "failed")

LEASE_SECONDS = 600.0
MAX_RUNS = 200
Progress = Callable[[str, int, int], None]  # step name, steps done, steps in all


class _DryRun(Exception):
    """Carries a dry run's report out of the transaction it rolls back."""

    def __init__(self, report: RunReport) -> None:
        super().__init__("dry run")
        self.report = report


def _require_admin(principal: Principal) -> None:
    if principal.role is not Role.ADMIN:
        raise Forbidden(f"role {principal.role.value} may not run consolidation (admin)")


def _held(held: list[Record]) -> Conflict:
    return Conflict(
        "consolidation of " + ", ".join(f"{h['scope']} is held by run {h['run_id']}" for h in held)
    )


def _steps(steps: Sequence[str] | None) -> list[str]:
    wanted = list(dict.fromkeys(s.strip().lower() for s in (steps or list(STEPS))))
    unknown = [s for s in wanted if s not in STEPS]
    if unknown or not wanted:
        raise ValidationError(
            f"unknown consolidation step(s) {unknown}; known: {sorted(STEPS)}", field="steps"
        )
    return [s for s in STEPS if s in wanted]  # always in run order


class ConsolidationService:
    def __init__(
        self,
        db: Database,
        policy_for: Callable[[str], Awaitable[TenantPolicy]],
        lease_seconds: float = LEASE_SECONDS,
        resolver: EntityResolver | None = None,
        batch_size: int = BATCH,
        compactor: Compactor | None = None,
    ) -> None:
        self.db = db
        self._policy_for = policy_for
        self.lease_seconds = lease_seconds
        self.resolver = resolver
        self.batch_size = batch_size
        self.compactor = compactor
        # Sweeps of rolled-back runs' spent snapshots this process runs (by run id).
        self._sweeps: dict[str, asyncio.Task[int]] = {}

    def _has(self, name: str) -> bool:
        if name == "entities":
            return self.resolver is not None
        if name == "compaction":
            return self.compactor is not None
        return True

    def _step(self, name: str) -> Step:
        found = STEPS[name]
        if found is not None:
            return found
        if name == "compaction":
            if self.compactor is None:
                raise ValidationError("episode compaction is not configured here", field="steps")
            return self.compactor.step
        if self.resolver is None:  # a container built without GDS/embedder: a wiring bug
            raise ValidationError("entity resolution is not configured here", field="steps")
        return self.resolver.step

    async def run(
        self,
        principal: Principal,
        scopes: list[str],
        steps: Sequence[str] | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
    ) -> RunReport:
        """Consolidate ``scopes`` now with ``steps`` (default: all), in bounded batches.
        Admin only. Raises Forbidden, ValidationError (scopes, steps), Conflict (a run holds a
        lease on one of the scopes)."""
        _require_admin(principal)
        tenant = principal.tenant
        scopes = parse_scopes(scopes)
        if steps is not None and not steps:
            # An empty list is not "all": a caller who built the list wrong would get every
            # step, garbage collection and compaction included.
            raise ValidationError(
                "steps is empty: name the steps to run, or leave steps out for all of them",
                field="steps",
            )
        if steps is None:  # by default, every step this service has
            steps = [n for n in STEPS if self._has(n)]
        names = _steps(steps)
        for n in names:
            self._step(n)  # an unconfigured step is refused before anything is claimed
        policy = await self._policy_for(tenant)
        if "entities" in names and self.resolver is not None:
            await self.resolver.prepare(tenant, scopes)
        run: dict[str, Any] = {
            "id": f"run_{uuid.uuid4().hex}",
            "scopes": scopes,
            "steps": names,
            "dry_run": dry_run,
            "requested_by": principal.actor,
            "actor": ACTOR,
            "batches": 0,
            "changed": 0,
            # Every timeline write of its batches is journaled, settles included (runs from
            # before that journaled only entity merges'): a quiet rollback recomputes nothing.
            "settles_journaled": True,
        }
        if dry_run:
            t0 = time.perf_counter()
            try:
                # A fresh context for every attempt: a transaction retried after a transient
                # fault starts over, and the steps a failed attempt finished (done_steps,
                # counts, changes) were rolled back with it.
                await self.db.write_tx(
                    lambda tx: self._dry(
                        tx, self._context(tenant, scopes, run["id"], policy), run, names, progress
                    )
                )
            except _DryRun as done:
                metrics.observe_consolidation("dry_run", "dry_run", time.perf_counter() - t0, 0)
                return done.report
            raise AssertionError("a dry run always rolls back")  # pragma: no cover
        ctx = self._context(tenant, scopes, run["id"], policy)

        await self._sweep_left(tenant)
        started = await self.db.write_tx(lambda tx: self._claim(tx, tenant, scopes, run))
        return await self._go(ctx, run, names, started, progress)

    def _context(
        self, tenant: str, scopes: list[str], run_id: str, policy: TenantPolicy
    ) -> RunContext:
        return RunContext(
            self.db,
            tenant,
            list(scopes),
            run_id,
            policy.promote_sessions,
            self.lease_seconds,
            batch_size=self.batch_size,
        )

    async def _go(
        self,
        ctx: RunContext,
        run: dict[str, Any],
        names: list[str],
        started: datetime,
        progress: Progress | None,
    ) -> RunReport:
        t0, batches = time.perf_counter(), ctx.batches
        try:
            await self._steps(ctx, names, progress)
            done = await self.db.write_tx(lambda tx: self._finish(tx, ctx, "applied", None))
        except Exception as e:
            # Batches that committed stay, recorded with their snapshots (the run can be
            # resumed or rolled back); the one in flight rolled back. Record why, re-raise.
            error = repr(e)
            await self.db.write_tx(lambda tx: self._finish(tx, ctx, "failed", error[:500]))
            spent = time.perf_counter() - t0
            metrics.observe_consolidation("run", "failed", spent, ctx.batches - batches)
            raise
        spent = time.perf_counter() - t0
        metrics.observe_consolidation("run", "applied", spent, ctx.batches - batches)
        return self._from_ctx(ctx, run, "applied", started, done)

    async def _steps(self, ctx: RunContext, names: list[str], progress: Progress | None) -> None:
        for i, name in enumerate(names):
            if name in ctx.done_steps:
                continue
            ctx.step = name
            t0 = time.perf_counter()
            had = dict(ctx.counts.get(name, {}))  # a resumed step goes on from these
            await self._step(name)(ctx)
            await ctx.step_done(name, t0)
            mine = {c: n - had.get(c, 0) for c, n in ctx.counts.get(name, {}).items()}
            applied = ctx.shared is None
            metrics.observe_consolidation_step(name, time.perf_counter() - t0, mine, applied)
            if progress is not None:
                progress(name, i + 1, len(names))

    async def _dry(
        self,
        tx: Tx,
        ctx: RunContext,
        run: dict[str, Any],
        names: list[str],
        progress: Progress | None,
    ) -> None:
        await WriteLocks.tenant(tx, ctx.tenant)
        await WriteLocks.scopes(tx, ctx.tenant, ctx.scopes)
        started = utcnow()
        # A run applying these scopes: between its batches the store is half applied.
        held = await Repo.held(tx, ctx.tenant, ctx.scopes, started)
        if held:
            raise _held(held)
        ctx.shared = tx
        await self._steps(ctx, names, progress)
        raise _DryRun(self._from_ctx(ctx, run, "dry_run", started, utcnow()))

    def _from_ctx(
        self,
        ctx: RunContext,
        run: dict[str, Any],
        status: str,
        started: datetime | None,
        finished: datetime | None,
    ) -> RunReport:
        props = ctx.props()
        return report_of(
            {
                **run,
                **props,
                "status": status,
                "started_at": started,
                "finished_at": finished,
                "batches": ctx.batches,
            },
            [c.row() for c in ctx.changes],
        )

    async def _claim(self, tx: Tx, tenant: str, scopes: list[str], run: dict[str, Any]) -> datetime:
        await FactRepository.lock_tenant(tx, tenant)
        now = utcnow()
        await Repo.abandon_stale(tx, tenant, scopes, now)
        until = now + timedelta(seconds=self.lease_seconds)
        held = await Repo.claim(tx, tenant, scopes, run, now, until)
        if held:
            raise _held(held)
        return now

    async def _finish(self, tx: Tx, ctx: RunContext, status: str, error: str | None) -> datetime:
        now = utcnow()
        props = ctx.props() | {"batches": ctx.batches, "error": error}
        await Repo.finish(tx, ctx.tenant, ctx.run_id, status, props, [], now)
        await Repo.release(tx, ctx.tenant, ctx.run_id)
        return now

    async def resume(
        self, principal: Principal, run_id: str, progress: Progress | None = None
    ) -> RunReport:
        """Finish a run that stopped part way (interrupted: its lease ran out; or failed) from
        its recorded progress: the steps it completed are skipped, the one it was in plans
        again from the graph (what its committed batches did is not planned twice). Admin
        only. Raises Forbidden, NotFound, Conflict (not resumable, or a scope is held)."""
        _require_admin(principal)
        tenant = principal.tenant
        found = await self.db.read_tx(lambda tx: Repo.run(tx, tenant, run_id))
        if found is None:
            raise NotFound(f"no consolidation run {run_id}")
        scopes = list(found.get("scopes") or [])

        async def claim(tx: Tx) -> Record:
            await FactRepository.lock_tenant(tx, tenant)
            now = utcnow()
            await Repo.abandon_stale(tx, tenant, scopes, now)
            run = await Repo.run(tx, tenant, run_id) or found
            if run["status"] not in RESUMABLE or not run.get("batches"):
                raise Conflict(
                    f"run {run_id} is {run['status']}; only an interrupted or failed run that "
                    "committed batches resumes"
                )
            until = now + timedelta(seconds=self.lease_seconds)
            held = await Repo.reclaim(tx, tenant, scopes, run_id, now, until)
            if held:
                raise Conflict(
                    "consolidation of "
                    + ", ".join(f"{h['scope']} is held by run {h['run_id']}" for h in held)
                )
            props = {"error": None, "resumed_at": now, "finished_at": None}
            await Repo.set_status(tx, tenant, run_id, "running", list(RESUMABLE), props)
            snaps = await Repo.snapshots(tx, tenant, run_id, 10_000_000)
            return {"run": run, "touched": [r["id"] for r in snaps]}

        state = await self.db.write_tx(claim)
        run = state["run"]
        names = list(run.get("steps") or [])
        policy = await self._policy_for(tenant)
        ctx = self._context(tenant, scopes, run_id, policy)
        _load(ctx, run, state["touched"])
        if "entities" in names and "entities" not in ctx.done_steps and self.resolver:
            await self.resolver.prepare(tenant, scopes)
        report = await self._go(
            ctx, run, names, as_datetime(run.get("started_at")) or utcnow(), progress
        )
        rows = await self.db.read_tx(lambda tx: Repo.runs(tx, tenant, [run_id], None, 1))
        return report_of(rows[0]["run"], rows[0]["changes"]) if rows else report

    async def runs(
        self, principal: Principal, scope: str | None = None, first: int = 20, diff: bool = True
    ) -> list[RunReport]:
        """Runs of the caller's tenant, newest first (analyst, admin), each with its diff
        unless ``diff`` is off."""
        if principal.role not in (Role.ANALYST, Role.ADMIN):
            raise Forbidden(f"role {principal.role.value} may not list consolidation runs")
        if not 1 <= first <= MAX_RUNS:
            raise ValidationError(f"first must be in 1..{MAX_RUNS}", field="first")
        if scope is not None:
            scope = parse_scope(scope)  # a malformed one is VALIDATION, not an empty list
        tenant = principal.tenant
        rows = await self.db.read_tx(lambda tx: Repo.runs(tx, tenant, None, scope, first, diff))
        return [report_of(r["run"], r["changes"]) for r in rows]

    async def proposals(
        self, principal: Principal, scopes: list[str], first: int = 50
    ) -> list[MergeProposal]:
        """Open entity-merge proposals of ``scopes``, most alike first (analyst, admin)."""
        if principal.role not in (Role.ANALYST, Role.ADMIN):
            raise Forbidden(f"role {principal.role.value} may not review merge proposals")
        if not 1 <= first <= MAX_RUNS:
            raise ValidationError(f"first must be in 1..{MAX_RUNS}", field="first")
        if self.resolver is None:
            return []
        return await self.resolver.proposals(principal.tenant, parse_scopes(scopes), first)

    async def rollback(self, principal: Principal, run_id: str, diff: bool = True) -> RunReport:
        """Undo a run in one call (consolidation_rollback.roll_back; its diff read back unless
        ``diff`` is off). Admin only."""
        _require_admin(principal)
        report = await roll_back(self.db, principal, run_id, diff)
        self.sweep_later(principal.tenant, run_id)
        return report

    # -- the spent snapshots of rolled-back runs ----------------------------------------------
    def sweep_later(self, tenant: str, run_id: str) -> asyncio.Task[int]:
        """Delete a rolled-back run's snapshots in the background (once per run at a time):
        the rollback answers as soon as every memory is restored. A sweep this process does not
        finish is done by the tenant's next run (``snapshots_left`` on the run)."""
        task = self._sweeps.get(run_id)
        if task is None or task.done():
            task = asyncio.create_task(self._sweep_logged(tenant, run_id), name=f"sweep-{run_id}")
            self._sweeps[run_id] = task
            task.add_done_callback(
                lambda t: self._sweeps.pop(run_id) if self._sweeps.get(run_id) is t else None
            )
        return task

    async def _sweep_logged(self, tenant: str, run_id: str) -> int:
        try:
            return await sweep(self.db, tenant, run_id)
        except Exception:  # housekeeping: the run keeps snapshots_left, the next run sweeps it
            log.exception("sweeping the snapshots of rolled-back run %s failed", run_id)
            return 0

    async def _sweep_left(self, tenant: str) -> None:
        """Before a run: the snapshots earlier rollbacks left unswept (their process stopped
        first), unless this process is sweeping them now."""
        left = await self.db.read_tx(lambda tx: Repo.unswept(tx, tenant, 20))
        for run_id in left:
            if run_id not in self._sweeps:
                await self._sweep_logged(tenant, run_id)

    async def stop(self) -> None:
        """Cancel this process's sweeps (shutdown): the tenant's next run finishes them."""
        await cancel_all(self._sweeps.values())


def _load(ctx: RunContext, run: Record, touched: list[str]) -> None:
    """A resumed run's context from what its committed batches recorded."""
    report = report_of(run, [])
    ctx.done_steps = list(run.get("done_steps") or [])
    ctx.durations = {s.step: s.duration_ms for s in report.steps}
    ctx.counts = {s.step: {c.name: c.value for c in s.counts} for s in report.steps}
    ctx.seq_base = int(run.get("changed") or 0)
    ctx.batches = int(run.get("batches") or 0)
    ctx.changed_batches = [int(b) for b in run.get("changed_batches") or []]
    ctx.seqs = [int(s) for s in run.get("seqs") or []] or None
    ctx.foreign = bool(run.get("foreign_writes"))
    ctx.touched = set(touched)
