"""Consolidation over GraphQL: run (or dry-run) the steps, list runs with their diffs, roll one
back. Resolvers translate; ConsolidationService holds the rules (roles included)."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.selection import asks_for
from graph_memory.services.consolidation.report import change_value
from graph_memory.services.consolidation.service import ConsolidationService, RunReport

__all__ = ["ConsolidationMutation", "ConsolidationQuery"]


@strawberry.enum(description="A step of a consolidation run, in run order.")
class ConsolidationStep(Enum):
    EXPIRY = "expiry"
    PROMOTION = "promotion"
    ENTITIES = "entities"
    DEDUPE = "dedupe"
    CONTRADICTIONS = "contradictions"
    COMPACTION = "compaction"
    DECAY = "decay"


@strawberry.enum
class ConsolidationStatus(Enum):
    RUNNING = "running"
    APPLIED = "applied"
    DRY_RUN = "dry_run"
    FAILED = "failed"
    INTERRUPTED = "interrupted"
    ABANDONED = "abandoned"
    ROLLING_BACK = "rolling_back"
    ROLLED_BACK = "rolled_back"


@strawberry.type
class ConsolidationCount:
    name: str
    value: int


@strawberry.type
class ConsolidationStepReport:
    step: ConsolidationStep
    duration_ms: float
    counts: list[ConsolidationCount]


@strawberry.type(description="One change of a run: the memory's changed properties before/after.")
class ConsolidationChange:
    seq: int
    step: ConsolidationStep
    action: str
    target_id: strawberry.ID
    reason: str | None
    before: JSON | None
    after: JSON | None


@strawberry.type(name="ConsolidationRun")
class ConsolidationRunGQL:
    id: strawberry.ID
    scopes: list[str]
    status: ConsolidationStatus
    dry_run: bool
    actor: str
    requested_by: str
    started_at: datetime | None
    finished_at: datetime | None
    rolled_back_at: datetime | None
    error: str | None
    steps: list[ConsolidationStepReport]
    changes: list[ConsolidationChange]
    batches: int = strawberry.field(
        description="Transactions that committed changes of the run (each with its diff)."
    )
    changed: int = strawberry.field(description="Diff entries in all.")
    duration_ms: float | None = strawberry.field(
        description="Wall time from start to finish (a resumed run: its first start)."
    )
    rollback_ms: float | None = strawberry.field(description="Wall time of its rollback.")
    restored: int = strawberry.field(
        description="Memories its rollback restored: the facts it changed and the episodes "
        "its digests stood for, served again."
    )


@strawberry.type(description="Two entities of one scope whose names GDS found alike.")
class EntityMergeProposal:
    id: strawberry.ID
    scope: str
    entity_a: str
    name_a: str
    entity_b: str
    name_b: str
    score: float
    run_id: strawberry.ID
    created_at: datetime | None


def run_view(r: RunReport) -> ConsolidationRunGQL:
    return ConsolidationRunGQL(
        id=strawberry.ID(r.id),
        scopes=list(r.scopes),
        status=ConsolidationStatus(r.status),
        dry_run=r.dry_run,
        actor=r.actor,
        requested_by=r.requested_by,
        started_at=r.started_at,
        finished_at=r.finished_at,
        rolled_back_at=r.rolled_back_at,
        error=r.error,
        batches=r.batches,
        changed=r.changed,
        duration_ms=None if r.duration_ms is None else round(r.duration_ms, 3),
        rollback_ms=None if r.rollback_ms is None else round(r.rollback_ms, 3),
        restored=r.restored,
        steps=[
            ConsolidationStepReport(
                step=ConsolidationStep(s.step),
                duration_ms=round(s.duration_ms, 3),
                counts=[ConsolidationCount(name=c.name, value=c.value) for c in s.counts],
            )
            for s in r.steps
        ],
        changes=[
            ConsolidationChange(
                seq=c.seq,
                step=ConsolidationStep(c.step),
                action=c.action,
                target_id=strawberry.ID(c.target_id),
                reason=c.reason,
                before=change_value(c.before),
                after=change_value(c.after),
            )
            for c in r.changes or ()
        ],
    )


def _service(info: Info[Any, None]) -> ConsolidationService:
    service: ConsolidationService | None = info.context.services.consolidation
    if service is None:  # a container built without it: a wiring bug
        raise GraphMemoryError("the consolidation service is not configured")
    return service


@strawberry.type
class ConsolidationQuery:
    @strawberry.field(
        description="Consolidation runs, newest first, with counts, step durations and "
        "their diff (analyst, admin)."
    )
    async def consolidation_runs(
        self, info: Info[Any, None], scope: str | None = None, first: int = 20
    ) -> list[ConsolidationRunGQL]:
        runs = await _service(info).runs(
            info.context.principal, scope, first, asks_for(info, "changes")
        )
        return [run_view(r) for r in runs]

    @strawberry.field(
        description="Open entity-merge proposals from consolidation runs, most alike first "
        "(analyst, admin)."
    )
    async def entity_merge_proposals(
        self, info: Info[Any, None], scopes: list[str], first: int = 50
    ) -> list[EntityMergeProposal]:
        found = await _service(info).proposals(info.context.principal, scopes, first)
        return [
            EntityMergeProposal(
                id=strawberry.ID(p.id),
                scope=p.scope,
                entity_a=p.entity_a,
                name_a=p.name_a,
                entity_b=p.entity_b,
                name_b=p.name_b,
                score=round(p.score, 4),
                run_id=strawberry.ID(p.run_id),
                created_at=p.created_at,
            )
            for p in found
        ]


@strawberry.type
class ConsolidationMutation:
    @strawberry.mutation(
        description="Consolidate these scopes now (admin): the steps (left out: all; an empty "
        "list is VALIDATION) in bounded batches, each committed with its diff, audited as "
        "actor 'consolidation'. dryRun returns the diff without applying it and leaves nothing "
        "behind (its id is not stored: not listed, not rolled back). CONFLICT while another "
        "run holds one of the scopes."
    )
    async def run_consolidation(
        self,
        info: Info[Any, None],
        scopes: list[str],
        steps: list[ConsolidationStep] | None = None,
        dry_run: bool = False,
    ) -> ConsolidationRunGQL:
        names = [s.value for s in steps] if steps is not None else None
        report = await _service(info).run(info.context.principal, scopes, names, dry_run)
        return run_view(report)

    @strawberry.mutation(
        description="Undo a run in one call (admin; applied, or stopped part way): every "
        "memory it changed is restored, and reads at every asOf answer as before it. "
        "Audited as 'rollback'. CONFLICT if one changed again since."
    )
    async def rollback_consolidation(
        self, info: Info[Any, None], run_id: strawberry.ID
    ) -> ConsolidationRunGQL:
        report = await _service(info).rollback(
            info.context.principal, str(run_id), asks_for(info, "changes")
        )
        return run_view(report)

    @strawberry.mutation(
        description="Finish a run that stopped part way (INTERRUPTED: its lease ran out; or "
        "FAILED) from its recorded progress (admin). CONFLICT if it is not resumable or "
        "another run holds one of its scopes."
    )
    async def resume_consolidation(
        self, info: Info[Any, None], run_id: strawberry.ID
    ) -> ConsolidationRunGQL:
        report = await _service(info).resume(info.context.principal, str(run_id))
        return run_view(report)
