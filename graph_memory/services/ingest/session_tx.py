"""One write transaction per session: the episode, its facts, events, todos and procedure
evidence, their tags and the job's completion commit together or not at all.

Each part is written by its own service's transaction-level function (one rule, one place):
EpisodeService.record_in_tx, FactService.write_prepared (the write gate's verdicts, trust
tiers, corroboration, the timeline settle), MemoService.write_in_tx, practice_in_tx. The job's
completion is the last statement and is conditional on the worker's claim: a worker that
lost its lease (or whose job a forget stopped) rolls the whole session back, and a crash
anywhere before the commit leaves nothing half written, so a resumed job starts clean.

Lock order, the same as every writer's (repositories/locks.py): the tenant lock when a fact
registers a predicate or the session records procedure evidence, then scope locks
(the facts' and the episode's, in one sorted statement), and the job's own lock last.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from graph_memory.db import Tx
from graph_memory.errors import GraphMemoryError
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.services.episodes import EpisodeService
from graph_memory.services.facts.writes import ItemResult
from graph_memory.services.ingest.memos import MemoService
from graph_memory.services.ingest.plan import Applied, SessionPlan
from graph_memory.services.procedures.practice import practice_in_tx

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["Complete", "write_session"]

# Runs the job's completion inside the session's transaction, given the outcomes; raises
# (rolling the session back) when the worker's claim no longer holds the job.
Complete = Callable[[Tx, Applied], Awaitable[None]]


async def write_session(services: Services, plan: SessionPlan, complete: Complete) -> Applied:
    """Write the session and complete the job in one transaction; returns the per-item
    outcomes."""
    principal = plan.job.principal
    tenant = principal.tenant
    batch = plan.facts.batch
    if batch is not None:
        batch = dataclasses.replace(batch, vectors=plan.fact_vectors)

    async def work(tx: Tx) -> Applied:
        # Rebuilt on every attempt: a retried transaction starts from the plan.
        out = Applied(episode_id=plan.episode_id)
        out.add(
            "episode", 0, action=plan.episode_action, id=plan.episode_id, text=plan.episode_text
        )
        events: list[dict[str, Any]] = []
        registers = batch is not None and batch.register
        if registers or (plan.practice is not None and plan.practice.done is None):
            # Procedures and new predicates are decided under the tenant lock, which comes
            # before scope locks.
            await WriteLocks.tenant(tx, tenant)
        # Every scope lock the session needs in one sorted statement (the facts' and the
        # episode's), the order every writer takes them in; the writes below find them held.
        scopes = set(batch.scopes) if batch is not None else set()
        await WriteLocks.scopes(tx, tenant, scopes | {r["scope"] for r in plan.episode_rows})
        if plan.episode_rows:
            events += await EpisodeService.record_in_tx(tx, principal, plan.episode_rows)
        facts = Applied(items=list(plan.fact_refused.items))
        if batch is not None:
            results = await services.facts.write_prepared(tx, batch)
            _fact_outcomes(plan, results, facts)
        memos = Applied(items=list(plan.memo_refused.items))
        if plan.memos is not None:
            written: dict[str, tuple[str, bool]] = {}
            if plan.memos.rows:
                written, memo_events = await MemoService.write_in_tx(tx, principal, plan.memos)
                events += memo_events
            # Every draft is reported, the gate's refusals too when none passed it.
            _memo_outcomes(plan, written, memos)
        practice = Applied()
        if plan.practice is not None:
            res = await practice_in_tx(
                tx, principal, plan.practice, plan.practice_vector, plan.episode_id
            )
            p = plan.practice
            practice.add(
                "procedure",
                0,
                action=res.action,
                id=res.procedure_id,
                status=res.status,
                text=f"{p.intent}: {' -> '.join(p.steps)}",
                turns=list(p.turns),
                reason=res.reason,
                error=res.error,
            )
        # The episode's and the memos' audit events in one statement (facts record theirs).
        await AuditRepository.record_in_tx(tx, tenant, events)
        out.items += facts.items + memos.items + practice.items
        out.fact_tags = facts.fact_tags
        await complete(tx, out)
        return out

    applied: Applied = await services.db.write_tx(work)
    return applied


def _fact_outcomes(plan: SessionPlan, results: list[ItemResult], out: Applied) -> None:
    for (i, f, extra), fin, r in zip(plan.facts.meta, plan.facts.inputs, results, strict=True):
        text = f"{fin.subject} {fin.predicate} {fin.object}"
        if r.ok:
            out.tag(str(r.fact_id), f.turns)
            out.add(
                "fact",
                i,
                action=r.action,
                id=r.fact_id,
                status=r.status,
                turns=list(f.turns),
                text=text,
                **extra,
            )
        else:
            err = GraphMemoryError(r.error_message or "refused", field=r.error_field)
            err.code = r.error_code or "VALIDATION"
            out.add("fact", i, turns=list(f.turns), text=text, error=err, **extra)


def _memo_outcomes(plan: SessionPlan, written: dict[str, tuple[str, bool]], out: Applied) -> None:
    assert plan.memos is not None
    outcomes = plan.memos.outcomes(written)
    for (kind, i), d, (memo, made, err) in zip(
        plan.memo_where, plan.memos.drafts, outcomes, strict=True
    ):
        out.add(
            kind,
            i,
            action=("created" if made else "found") if err is None else None,
            id=memo,
            status=("open" if kind == "todo" else None) if err is None else None,
            turns=list(d.turns),
            text=d.text,
            error=err,
        )
