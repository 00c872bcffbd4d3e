"""The steps of a consolidation run, each planned from the graph and applied in batches.

A step plans what to change (a read), then hands bounded batches to ``RunContext.each``: in
each batch's transaction it snapshots every memory before its first change in the run (so a
rollback restores it exactly), applies the change through the repositories the services use,
records before/after per change for the run's diff, audits it as actor ``consolidation`` and
settles the timeline of every version whose part in the rule changed. Each apply query
re-checks its own guard (still due, still live), so a batch planned before a concurrent write
does nothing wrong; a resumed run plans again and finds only what is left.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import as_datetime, entity_key
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.services.consolidation.context import (
    ACTOR,
    Change,
    Count,
    RunContext,
    fingerprint,
)
from graph_memory.services.facts.rows import premise_superseded

__all__ = ["ACTOR", "STEPS", "Change", "Count", "RunContext", "Step", "fingerprint"]

Step = Callable[[RunContext], Awaitable[None]]


async def expire(ctx: RunContext) -> None:
    """TTL-elapsed facts of the run's scopes demoted, as the expiry sweep does."""
    ctx.zero("expired", "dependents_flagged")
    due = await ctx.plan(lambda tx: Repo.due_expiry(tx, ctx.tenant, ctx.scopes, ctx.now))

    async def batch(rows: list[Record]) -> list[Count]:
        ids = [r["id"] for r in rows]
        before = await ctx.touch(ids + [d for r in rows for d in r["dependents"]])
        done = await Repo.expire(ctx.tx, ctx.tenant, ids, ctx.now)
        reasons: dict[str, str | None] = {
            r["id"]: f"TTL of {r['ttl_days']} days elapsed at {r['expires_at']}" for r in done
        }
        flagged = await FactRepository.flag_dependents(
            ctx.tx,
            ctx.tenant,
            [
                {"id": i, "reason": f"premise {i} expired at {ctx.now.isoformat()} (TTL elapsed)"}
                for i in reasons
            ],
            ctx.now,
        )
        events = await ctx.record("expire", before, reasons)
        dependents: dict[str, str | None] = {
            r["id"]: f"premise {r['premise']} expired" for r in flagged
        }
        events += await ctx.record("flag_needs_verification", before, dependents)
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        return [Count("expired", len(reasons)), Count("dependents_flagged", len(dependents))]

    await ctx.each(due, batch)


async def promote(ctx: RunContext) -> None:
    """Candidates whose evidence reached the corroboration threshold become active, through
    the same confidence recompute a write runs."""
    ctx.zero("promoted")
    ids = await ctx.plan(
        lambda tx: Repo.promotable(tx, ctx.tenant, ctx.scopes, ctx.now, ctx.promote_sessions)
    )

    async def batch(chunk: list[str]) -> list[Count]:
        before = await ctx.touch(
            chunk + await FactRepository.promotion_ends(ctx.tx, ctx.tenant, chunk)
        )
        rows = await FactRepository.recompute_confidence(
            ctx.tx, ctx.tenant, chunk, ctx.promote_sessions, ctx.now
        )
        promoted: dict[str, str | None] = {
            r["id"]: f"corroborated by {r['sessions']} sessions (threshold {ctx.promote_sessions})"
            for r in rows
            if r["status_before"] == "candidate" and r["status"] == "active"
        }
        events = await ctx.record("promote", before, promoted)
        events += await _promotions_ended(ctx, before, rows)
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        await ctx.settle(list(promoted))
        return [Count("promoted", len(promoted))]

    await ctx.each(ids, batch)


async def _promotions_ended(
    ctx: RunContext, before: dict[str, Record], recomputed: list[Record]
) -> list[dict[str, Any]]:
    """A candidate a batch promoted (fact.recompute_confidence) ended the version it was
    written to supersede: its diff and audit, and its conclusions flagged. ``before`` holds
    their snapshots (FactRepository.promotion_ends, touched first)."""
    ended = [premise_superseded(r["closed"], r["id"], ctx.now) for r in recomputed if r["closed"]]
    events = await ctx.record("supersede", before, {e["id"]: e["reason"] for e in ended})
    flagged = await FactRepository.flag_dependents(ctx.tx, ctx.tenant, ended, ctx.now)
    dependents: dict[str, str | None] = {
        r["id"]: f"premise {r['premise']} superseded" for r in flagged
    }
    return events + await ctx.record("flag_needs_verification", before, dependents)


def _claimed(version: Record) -> str:
    """What a version's object says, told apart from another's only by case, whitespace,
    a sentence's end or quotes ("Jazz." / "jazz") or an entity merged since (its survivor)."""
    key = str(version.get("alias") or entity_key(str(version["object"])))
    return _EDGES.sub("", key) or key


def _start(version: Record) -> datetime:
    """When it holds from (given or defaulted; consolidation.duplicates falls back to when it
    was recorded)."""
    return as_datetime(version["starts"]) or datetime.min.replace(tzinfo=UTC)


def _best(versions: list[Record]) -> Record:
    # The highest tier first: merging must not lower the trust a fact is held at (a user-tier
    # survivor of a system-tier fact could then be overridden by any agent). Then a served
    # version before a candidate (a reviewer's approval is never folded into a candidate).
    # Then the one that holds from the earliest (told without a start, each holds from its
    # own telling): the others, merged into it, leave no moment of the world without its
    # answer. Then the best supported: most independent sessions, then confidence, then the
    # oldest telling (it has been believed longest); the id breaks ties.
    return sorted(
        versions,
        key=lambda v: (
            -int(v.get("tier_rank") or 0),
            v["status"] != "active",
            _start(v),
            -int(v["sessions"]),
            -float(v["confidence"]),
            v["recorded_at"],
            v["id"],
        ),
    )[0]


def _covered(keep: Record, versions: list[Record]) -> list[str]:
    """The versions merged into ``keep``: those it holds for all along (same claim, same end:
    from their start or earlier), and candidates beside a served ``keep`` (a candidate
    answers no moment). A served one of a lower tier that holds from earlier stays: its
    period would otherwise lose its answer, and ``keep`` may not be moved to it."""
    served = keep["status"] == "active"
    return [
        v["id"]
        for v in versions
        if v is not keep and (_start(v) >= _start(keep) or (served and v["status"] != "active"))
    ]


async def dedupe(ctx: RunContext) -> None:
    """Live versions of one (subject, predicate, object) told apart by case or whitespace, and
    told to hold over the same time (the same stated start, the same end: Finn as CEO in
    2015-2020 and again from 2023 are two claims, not one told twice), are merged onto the
    best one: evidence copied over, the others retracted naming the survivor, the survivor's
    confidence (and promotion) recomputed."""
    ctx.zero("groups", "merged")
    slots = await ctx.plan(lambda tx: Repo.duplicates(tx, ctx.tenant, ctx.scopes, ctx.now))
    groups: list[tuple[str, list[str]]] = []  # (survivor, its duplicates): one batch each
    for slot in slots:
        same: dict[tuple[str, str | None, str | None], list[Record]] = {}
        for v in slot["versions"]:
            told = (_claimed(v), v.get("valid_from"), v.get("valid_to"))
            same.setdefault(told, []).append(v)
        for versions in same.values():
            keep = _best(versions)
            dups = _covered(keep, versions)
            if dups:
                groups.append((keep["id"], dups))

    async def batch(chunk: list[tuple[str, list[str]]]) -> list[Count]:
        moves = [{"from": d, "to": keep} for keep, dups in chunk for d in dups]
        keeps = [keep for keep, _ in chunk]
        dups = [m["from"] for m in moves]
        # The survivor's recount may promote it, ending what it was written to supersede.
        ends = await FactRepository.promotion_ends(ctx.tx, ctx.tenant, keeps)
        before = await ctx.touch(keeps + dups + ends)
        await Repo.merge_duplicates(ctx.tx, ctx.tenant, moves, ctx.now)
        recomputed = await FactRepository.recompute_confidence(
            ctx.tx, ctx.tenant, keeps, ctx.promote_sessions, ctx.now
        )
        events = await ctx.record(
            "merge_duplicate", before, {m["from"]: f"merged into {m['to']}" for m in moves}
        )
        events += await ctx.record(
            "absorb_duplicate",
            before,
            {k: "evidence of " + ", ".join(d) for k, d in chunk},
        )
        events += await _promotions_ended(ctx, before, recomputed)
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        await ctx.settle(keeps + dups)
        return [Count("groups", len(keeps)), Count("merged", len(dups))]

    await ctx.each(groups, batch)


async def contradictions(ctx: RunContext) -> None:
    """Facts that disagree across the run's scopes, and claims an entity merge carried into a
    slot that answers another value, are flagged needs-verification with the reason (the
    review queue's needs-verification side; nothing is decided for the human)."""
    ctx.zero("flagged")
    rows = await ctx.plan(lambda tx: Repo.contradictions(tx, ctx.tenant, ctx.scopes, ctx.now))
    reasons: dict[str, str] = {}
    # A claim a merge carried into a slot that answers another value: the served version a
    # reviewer's approval ends (review/approve) so that the approved claim answers.
    rivals: dict[str, str | None] = {}
    for r in rows:
        reasons.setdefault(r["id"], r["reason"])
        rivals.setdefault(r["id"], r["rival"])

    async def batch(chunk: list[tuple[str, str]]) -> list[Count]:
        mine: dict[str, str | None] = dict(chunk)
        before = await ctx.touch(list(mine))
        flags: list[dict[str, Any]] = [
            {"id": i, "reason": why, "rival": rivals[i]} for i, why in chunk
        ]
        await FactRepository.flag(ctx.tx, ctx.tenant, flags, ctx.now)
        events = await ctx.record("flag_contradiction", before, mine)
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        return [Count("flagged", len(chunk))]

    await ctx.each(list(reasons.items()), batch)


# A sentence's punctuation and quotes around a value ("Jazz." told at a sentence's end) say
# nothing about it; other signs may ("C++" is not "C").
_EDGES = re.compile(r"^[\"'\s]+|[\"'\s.,;:!?]+$")

# The decay step's garbage: believed this weakly and unretrieved this long.
GC_CONFIDENCE = 0.3
GC_UNUSED_DAYS = 90


async def decay(ctx: RunContext) -> None:
    """Garbage collection: live facts with confidence below GC_CONFIDENCE that nobody
    retrieved for GC_UNUSED_DAYS stop being believed (retracted with the reason, kept for
    history; a rollback brings them back). Ranking's decay (salience) needs no run."""
    ctx.zero("collected")
    rows = await ctx.plan(
        lambda tx: Repo.collectable(
            tx, ctx.tenant, ctx.scopes, ctx.now, GC_CONFIDENCE, GC_UNUSED_DAYS
        )
    )

    async def batch(chunk: list[Record]) -> list[Count]:
        why = {
            r["id"]: (
                f"collected: confidence {float(r['confidence'] or 0.0):.2f} < {GC_CONFIDENCE} "
                f"and unretrieved since {r['last_used']} ({GC_UNUSED_DAYS} days or more)"
            )
            for r in chunk
        }
        before = await ctx.touch(list(why))
        rows = [{"id": r["id"], "last_used": r["last_used"], "reason": why[r["id"]]} for r in chunk]
        done = await Repo.collect(ctx.tx, ctx.tenant, rows, ctx.now)
        reasons: dict[str, str | None] = {i: why[i] for i in done}
        events = await ctx.record("collect", before, reasons)
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        await ctx.settle(done)
        return [Count("collected", len(done))]

    await ctx.each(rows, batch)


# In run order: expiry first (an expired fact is neither promoted nor merged), then
# promotion, entity resolution (its merges can bring duplicates into one slot), dedupe (which
# may promote a survivor), contradictions (on the result), episode compaction, decay last (it
# collects what is still weak after all that). "entities" and "compaction" need GDS (and the
# embedder), so their functions come from the service (None here).
STEPS: dict[str, Step | None] = {
    "expiry": expire,
    "promotion": promote,
    "entities": None,
    "dedupe": dedupe,
    "contradictions": contradictions,
    "compaction": None,
    "decay": decay,
}
