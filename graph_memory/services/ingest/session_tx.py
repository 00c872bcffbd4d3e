"""One write transaction per session: the episode, its facts, events, todos and procedure
evidence, their tags and the job's completion commit together or not at all.

Each part is written by its own service's transaction-level function (one rule, one place):
EpisodeService.record_in_tx, FactService.write_prepared (the write gate's verdicts, trust
tiers, corroboration, the timeline settle), MemoService.write_in_tx, practice_in_tx. The job's
completion is the last statement and is conditional on the worker's claim: a worker that
lost its lease (or whose job a forget stopped) rolls the whole session back, and a crash
anywhere before the commit leaves nothing half written, so a resumed job starts clean.

The session's texts are still being embedded when the transaction begins (SessionPlan.
vectors): its statements write the rows without vectors, and the completion sets them with
the session's audit events (Applied.events, .vectors; one round trip for the three). The
procedure's vector, which its statement reads, is awaited before it. The embedding (a core
of its own) and the statements (the store's) overlap instead of following each other; the
locks are held no longer than the slower of the two.

Lock order, the same as every writer's (repositories/locks.py): the tenant lock when a fact
registers a predicate or the session records procedure evidence, then scope locks
(the facts' and the episode's, in one sorted statement), and the job's own lock last.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from graph_memory.db import Tx
from graph_memory.errors import GraphMemoryError
from graph_memory.repositories.locks import WriteLocks
from graph_memory.services.episodes import EpisodeService
from graph_memory.services.facts.writes import ItemResult
from graph_memory.services.ingest.memos import MemoService
from graph_memory.services.ingest.plan import (
    Applied,
    SessionPlan,
    SessionVectors,
    drop_vectors,
)
from graph_memory.services.procedures.practice import SCOPE as PRACTICE_SCOPE
from graph_memory.services.procedures.practice import practice_in_tx

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["Complete", "write_session"]

# Runs the job's completion inside the session's transaction, given the outcomes, writing
# with it the session's audit events and vectors (Applied.events, .vectors); raises (rolling
# the session back) when the worker's claim no longer holds the job.
Complete = Callable[[Tx, Applied], Awaitable[None]]


async def write_session(services: Services, plan: SessionPlan, complete: Complete) -> Applied:
    """Write the session and complete the job in one transaction; returns the per-item
    outcomes."""
    principal = plan.job.principal
    tenant = principal.tenant
    batch = plan.facts.batch

    async def work(tx: Tx) -> Applied:
        # Rebuilt on every attempt: a retried transaction starts from the plan.
        out = Applied(episode_id=plan.episode_id)
        out.add(
            "episode", 0, action=plan.episode_action, id=plan.episode_id, text=plan.episode_text
        )
        events: list[dict[str, Any]] = []
        registers = batch is not None and batch.register
        practising = plan.practice is not None and plan.practice.done is None
        if registers or practising:
            # Procedures and new predicates are decided under the tenant lock, which comes
            # before scope locks.
            await WriteLocks.tenant(tx, tenant)
        # Every scope lock the session needs in one sorted statement (the facts', the
        # episode's, and the practice procedures' scope when it records one), the order every
        # writer takes them in and before the clock; the writes below find them held.
        scopes = set(batch.scopes) if batch is not None else set()
        if practising:
            scopes.add(PRACTICE_SCOPE)
        await WriteLocks.scopes(tx, tenant, scopes | {r["scope"] for r in plan.episode_rows})
        if plan.episode_rows:
            events += await EpisodeService.record_in_tx(tx, principal, plan.episode_rows)
        facts = Applied(items=list(plan.fact_refused.items))
        results: list[ItemResult] = []
        if batch is not None:
            results = await services.facts.write_prepared(tx, batch)
            _fact_outcomes(plan, results, facts)
        memos = Applied(items=list(plan.memo_refused.items))
        written: dict[str, tuple[str, bool]] = {}
        if plan.memos is not None:
            if plan.memos.rows:
                written, memo_events = await MemoService.write_in_tx(tx, principal, plan.memos)
                events += memo_events
            # Every draft is reported, the gate's refusals too when none passed it.
            _memo_outcomes(plan, written, memos)
        practice = Applied()
        if plan.practice is not None:
            vector = (await _vectors(plan)).practice
            res = await practice_in_tx(tx, principal, plan.practice, vector, plan.episode_id)
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
        out.items += facts.items + memos.items + practice.items
        out.fact_tags = facts.fact_tags
        out.events = events
        out.vectors = _vector_rows(plan, await _vectors(plan), results, written)
        await complete(tx, out)
        return out

    if services.settings.embedder.strip().lower() != "local" and plan.vectors is not None:
        # A remote embedder may take seconds (timeouts, retries): waited for before the
        # transaction takes its locks, which would stall the scopes' writers and their as-of
        # readers meanwhile. The local one (~20 ms) runs beside the statements.
        await plan.vectors
    try:
        applied: Applied = await services.db.write_tx(work)
    finally:
        drop_vectors(plan.vectors)
    return applied


async def _vectors(plan: SessionPlan) -> SessionVectors:
    # A retried transaction awaits the same embedding again: it is computed once.
    return await plan.vectors if plan.vectors is not None else SessionVectors()


# The actions of a fact item that wrote a new version (services/facts/decide.py): only those
# carry the item's text as theirs; a corroborated one is a version already stored.
_NEW_VERSION = frozenset({"created", "superseded"})


def _vector_rows(
    plan: SessionPlan,
    vectors: SessionVectors,
    results: list[ItemResult],
    written: dict[str, tuple[str, bool]],
) -> dict[str, list[dict[str, Any]]]:
    """The vectors of what this transaction created: its episode, new fact versions and new
    memos (a memo told before, or found by a resumed job, keeps its own)."""
    facts = [
        {"id": r.fact_id, "embedding": vectors.facts[r.index]}
        for r in results
        if r.ok and r.action in _NEW_VERSION and r.index in vectors.facts
    ]
    memos = [
        {"id": memo, "embedding": vectors.memos[rid]}
        for rid, (memo, made) in written.items()
        if made and rid in vectors.memos
    ]
    episodes = [
        {"id": r["id"], "embedding": vectors.episodes[r["id"]]}
        for r in plan.episode_rows
        if r["id"] in vectors.episodes
    ]
    return {"episodes": episodes, "facts": facts, "memos": memos}


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
