"""Consolidation runs: the memory cleans itself out of band, and every run can be undone.

A run claims its scopes with a lease stored in the graph (so service processes sharing one
Neo4j never overlap on a scope), then applies all its steps in ONE transaction under the
tenant's write lock: a crash leaves nothing half applied (the lease runs out and the next claim
marks the run abandoned). Before its first change to a memory the run snapshots it; the run
node keeps its diff (before/after per change), counts and per-step durations. A dry run is the
same transaction rolled back: the diff it returns is exactly what applying would do.

Rollback restores every snapshot and rebuilds the touched slots' timelines from the restored
versions, so every read at every asOf answers as before the run; it refuses (Conflict) when a
memory the run changed has changed again since.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import Principal, Role, as_datetime, parse_scopes, utcnow
from graph_memory.errors import Conflict, Forbidden, NotFound, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.timeline import SlotKey, TimelineRepository
from graph_memory.services import audit
from graph_memory.services.consolidation_entities import EntityResolver, MergeProposal
from graph_memory.services.consolidation_steps import (
    ACTOR,
    STEPS,
    Change,
    Count,
    RunContext,
    Step,
    fingerprint,
)

__all__ = ["ConsolidationService", "RunReport", "StepReport"]

LEASE_SECONDS = 600.0
MAX_RUNS = 200
Progress = Callable[[str, int, int], None]  # step name, steps done, steps in all


@dataclass(frozen=True)
class StepReport:
    step: str
    duration_ms: float
    counts: tuple[Count, ...]


@dataclass(frozen=True)
class RunReport:
    id: str
    scopes: tuple[str, ...]
    steps: tuple[StepReport, ...]
    status: str  # running | applied | dry_run | failed | abandoned | rolled_back
    dry_run: bool
    requested_by: str
    actor: str
    started_at: datetime | None
    finished_at: datetime | None
    rolled_back_at: datetime | None
    error: str | None
    changes: tuple[Change, ...]


class _DryRun(Exception):
    """Carries a dry run's report out of the transaction it rolls back."""

    def __init__(self, report: RunReport) -> None:
        super().__init__("dry run")
        self.report = report


def _require_admin(principal: Principal) -> None:
    if principal.role is not Role.ADMIN:
        raise Forbidden(f"role {principal.role.value} may not run consolidation (admin)")


def _steps(steps: Sequence[str] | None) -> list[str]:
    wanted = list(dict.fromkeys(s.strip().lower() for s in (steps or list(STEPS))))
    unknown = [s for s in wanted if s not in STEPS]
    if unknown or not wanted:
        raise ValidationError(
            f"unknown consolidation step(s) {unknown}; known: {sorted(STEPS)}", field="steps"
        )
    return [s for s in STEPS if s in wanted]  # always in run order


def _report(run: Record, changes: list[Record]) -> RunReport:
    names = list(run.get("step_names") or [])
    durations = list(run.get("step_durations_ms") or [])
    triples = zip(
        run.get("count_steps") or [],
        run.get("count_names") or [],
        run.get("count_values") or [],
        strict=True,
    )
    counts: dict[str, list[Count]] = {}
    for step, name, value in triples:
        counts.setdefault(step, []).append(Count(name, int(value)))
    return RunReport(
        id=run["id"],
        scopes=tuple(run.get("scopes") or []),
        steps=tuple(
            StepReport(n, float(d), tuple(counts.get(n, [])))
            for n, d in zip(names, durations, strict=True)
        ),
        status=run["status"],
        dry_run=bool(run.get("dry_run")),
        requested_by=run.get("requested_by") or "",
        actor=run.get("actor") or ACTOR,
        started_at=as_datetime(run.get("started_at")),
        finished_at=as_datetime(run.get("finished_at")),
        rolled_back_at=as_datetime(run.get("rolled_back_at")),
        error=run.get("error"),
        changes=tuple(
            Change(
                int(c["seq"]),
                c["step"],
                c["action"],
                c["target_id"],
                c.get("reason"),
                c.get("before"),
                c.get("after"),
            )
            for c in changes
        ),
    )


class ConsolidationService:
    def __init__(
        self,
        db: Database,
        policy_for: Callable[[str], Awaitable[TenantPolicy]],
        lease_seconds: float = LEASE_SECONDS,
        resolver: EntityResolver | None = None,
    ) -> None:
        self.db = db
        self._policy_for = policy_for
        self.lease_seconds = lease_seconds
        self.resolver = resolver

    def _step(self, name: str) -> Step:
        found = STEPS[name]
        if found is not None:
            return found
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
        """Consolidate ``scopes`` now (the transaction's clock) with ``steps`` (default: all).
        Admin only. Raises Forbidden, ValidationError (scopes, steps), Conflict (a run holds a
        lease on one of the scopes)."""
        _require_admin(principal)
        tenant = principal.tenant
        scopes = parse_scopes(scopes)
        if not steps and self.resolver is None:  # by default, every step this service has
            steps = [n for n, fn in STEPS.items() if fn is not None]
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
        }
        if dry_run:
            try:
                await self.db.write_tx(
                    lambda tx: self._apply(tx, tenant, run, names, policy, progress)
                )
            except _DryRun as done:
                return done.report
            raise AssertionError("a dry run always rolls back")  # pragma: no cover

        await self.db.write_tx(lambda tx: self._claim(tx, tenant, scopes, run))
        try:
            report: RunReport = await self.db.write_tx(
                lambda tx: self._apply(tx, tenant, run, names, policy, progress)
            )
        except Exception as e:
            # Nothing of the run committed; record why and hand the scopes back, then re-raise.
            error = repr(e)
            await self.db.write_tx(lambda tx: self._fail(tx, tenant, run["id"], error))
            raise
        return report

    async def _claim(self, tx: Tx, tenant: str, scopes: list[str], run: dict[str, Any]) -> None:
        await FactRepository.lock_tenant(tx, tenant)
        now = utcnow()
        await Repo.abandon_stale(tx, tenant, scopes, now)
        until = now + timedelta(seconds=self.lease_seconds)
        held = await Repo.claim(tx, tenant, scopes, run, now, until)
        if held:
            raise Conflict(
                "consolidation of "
                + ", ".join(f"{h['scope']} is held by run {h['run_id']}" for h in held)
            )

    async def _fail(self, tx: Tx, tenant: str, run_id: str, error: str) -> None:
        await Repo.finish(tx, tenant, run_id, "failed", {"error": error[:500]}, [], utcnow())
        await Repo.release(tx, tenant, run_id)

    async def _apply(
        self,
        tx: Tx,
        tenant: str,
        run: dict[str, Any],
        names: list[str],
        policy: TenantPolicy,
        progress: Progress | None,
    ) -> RunReport:
        # The tenant lock, then the run's scopes: writers of those scopes wait for the run
        # (writes lock per scope), writers elsewhere in the tenant go on.
        await WriteLocks.tenant(tx, tenant)
        await WriteLocks.scopes(tx, tenant, list(run["scopes"]))
        now = utcnow()  # read under the lock: the run's changes follow commit order
        ctx = RunContext(tx, tenant, list(run["scopes"]), now, run["id"], policy.promote_sessions)
        reports: list[StepReport] = []
        for i, name in enumerate(names):
            t0 = time.perf_counter()
            counts = await self._step(name)(ctx)
            reports.append(StepReport(name, (time.perf_counter() - t0) * 1000.0, tuple(counts)))
            if progress is not None:
                progress(name, i + 1, len(names))
        status = "dry_run" if run["dry_run"] else "applied"
        report = RunReport(
            id=run["id"],
            scopes=tuple(run["scopes"]),
            steps=tuple(reports),
            status=status,
            dry_run=bool(run["dry_run"]),
            requested_by=run["requested_by"],
            actor=ACTOR,
            started_at=now,
            finished_at=utcnow(),
            rolled_back_at=None,
            error=None,
            changes=tuple(ctx.changes),
        )
        if run["dry_run"]:
            raise _DryRun(report)
        final = await FactRepository.get_in_tx(tx, tenant, ctx.touched)
        props = {
            "step_names": [s.step for s in reports],
            "step_durations_ms": [s.duration_ms for s in reports],
            "count_steps": [s.step for s in reports for _ in s.counts],
            "count_names": [c.name for s in reports for c in s.counts],
            "count_values": [c.value for s in reports for c in s.counts],
            "touched_ids": ctx.touched,
            "touched_prints": [fingerprint(final.get(i)) for i in ctx.touched],
            "changed": len(ctx.changes),
        }
        await Repo.finish(
            tx, tenant, run["id"], status, props, [c.row() for c in ctx.changes], utcnow()
        )
        await Repo.release(tx, tenant, run["id"])
        return report

    async def runs(
        self, principal: Principal, scope: str | None = None, first: int = 20
    ) -> list[RunReport]:
        """Runs of the caller's tenant, newest first (analyst, admin)."""
        if principal.role not in (Role.ANALYST, Role.ADMIN):
            raise Forbidden(f"role {principal.role.value} may not list consolidation runs")
        if not 1 <= first <= MAX_RUNS:
            raise ValidationError(f"first must be in 1..{MAX_RUNS}", field="first")
        tenant = principal.tenant
        rows = await self.db.read_tx(lambda tx: Repo.runs(tx, tenant, None, scope, first))
        return [_report(r["run"], r["changes"]) for r in rows]

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

    async def rollback(self, principal: Principal, run_id: str) -> RunReport:
        """Undo an applied run in one transaction: every memory it changed gets back its state
        from before the run, and the touched slots' timelines are rebuilt, so reads at every
        asOf answer as if the run never happened (audited 'rollback' as ``consolidation``).
        Raises Forbidden, NotFound, Conflict (not applied, or changed again since)."""
        _require_admin(principal)
        tenant = principal.tenant

        async def work(tx: Tx) -> RunReport:
            await FactRepository.lock_tenant(tx, tenant)
            now = utcnow()
            found = await Repo.runs(tx, tenant, [run_id], None, 1)
            if not found:
                raise NotFound(f"no consolidation run {run_id}")
            run = found[0]["run"]
            if run["status"] != "applied":
                raise Conflict(f"run {run_id} is {run['status']}; only an applied run rolls back")
            # Writers of the run's scopes wait while its changes are undone.
            await WriteLocks.scopes(tx, tenant, list(run.get("scopes") or []))
            ids = list(run.get("touched_ids") or [])
            current = await FactRepository.get_in_tx(tx, tenant, ids)
            stale = [
                i
                for i, p in zip(ids, run.get("touched_prints") or [], strict=True)
                if fingerprint(current.get(i)) != p
            ]
            if stale:
                raise Conflict(
                    f"memories changed since run {run_id}: {stale[:5]}; roll back or undo "
                    "the later changes first"
                )
            # The slots the versions are in now and those they go back to (a merge moved some).
            moved = await TimelineRepository.slots_of(tx, tenant, ids)
            restored = await Repo.restore(tx, tenant, run_id)
            slots = {SlotKey(r["scope"], r["subject"], r["predicate"]) for r in restored}
            await TimelineRepository.rebuild(tx, tenant, slots | set(moved))
            await ResolutionRepository.undo(tx, tenant, run_id)
            after = await FactRepository.get_in_tx(tx, tenant, ids)
            events = [
                audit.event(
                    None,
                    "rollback",
                    "fact",
                    i,
                    now,
                    before={"status": (current.get(i) or {}).get("status")},
                    after={"status": (after.get(i) or {}).get("status")},
                    reason=f"rollback of consolidation run {run_id} by {principal.actor}",
                    actor=ACTOR,
                    actor_type="consolidation",
                )
                for i in ids
            ]
            await AuditRepository.record_in_tx(tx, tenant, events)
            await Repo.mark_rolled_back(tx, tenant, run_id, now, principal.actor)
            rows = await Repo.runs(tx, tenant, [run_id], None, 1)
            return _report(rows[0]["run"], rows[0]["changes"])

        result: RunReport = await self.db.write_tx(work)
        return result
