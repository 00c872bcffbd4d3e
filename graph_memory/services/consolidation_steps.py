"""The steps of a consolidation run, each inside the run's one transaction.

A step plans from the graph, snapshots every memory before its first change in the run (so a
rollback restores it exactly), applies the change through the repositories the services use,
records before/after per change for the run's diff, audits it as actor ``consolidation`` and
settles the timeline of every version whose part in the rule changed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.domain import entity_key
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.timeline import TimelineRepository
from graph_memory.services import audit

__all__ = ["ACTOR", "STEPS", "Change", "Count", "RunContext", "Step", "fingerprint"]

ACTOR = "consolidation"
_WHO: dict[str, Any] = {"actor": ACTOR, "actor_type": "consolidation"}
# Usage, not belief: served counts move on every read and never make a run's change stale.
_USAGE = {"retrieval_count", "last_retrieved_at"}


@dataclass(frozen=True)
class Count:
    name: str
    value: int


@dataclass(frozen=True)
class Change:
    seq: int
    step: str
    action: str
    target_id: str
    reason: str | None
    before: str | None  # JSON: the changed properties as they were
    after: str | None  # JSON: the same properties after the change

    def row(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "step": self.step,
            "action": self.action,
            "target_id": self.target_id,
            "reason": self.reason,
            "before": self.before,
            "after": self.after,
        }


def _plain(record: Record) -> dict[str, Any]:
    return {k: v for k, v in record.items() if v is not None and k not in _USAGE}


def fingerprint(record: Record | None) -> str:
    """What a memory looked like, as a digest: a rollback refuses to restore over a change
    made after the run."""
    if record is None:
        return "gone"
    text = json.dumps(_plain(record), default=str, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _diff(before: Record | None, after: Record | None) -> tuple[str | None, str | None]:
    b, a = _plain(before or {}), _plain(after or {})
    keys = sorted(k for k in set(b) | set(a) if b.get(k) != a.get(k))

    def dump(d: dict[str, Any]) -> str:
        return json.dumps({k: d.get(k) for k in keys}, default=str, sort_keys=True)

    return dump(b), dump(a)


@dataclass
class RunContext:
    """What one run has done so far, inside its transaction."""

    tx: Tx
    tenant: str
    scopes: list[str]
    now: datetime
    run_id: str
    promote_sessions: int
    changes: list[Change] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)

    async def touch(self, ids: list[str]) -> dict[str, Record]:
        """Snapshot the memories not yet changed in this run; returns their current state."""
        fresh = [i for i in dict.fromkeys(ids) if i not in self.touched]
        await Repo.snapshot(self.tx, self.tenant, self.run_id, fresh)
        self.touched += fresh
        return await FactRepository.get_in_tx(self.tx, self.tenant, list(dict.fromkeys(ids)))

    async def record(
        self,
        step: str,
        action: str,
        before: dict[str, Record],
        reasons: dict[str, str | None],
    ) -> list[dict[str, Any]]:
        """Diff entries and audit events for the memories in ``reasons``."""
        after = await FactRepository.get_in_tx(self.tx, self.tenant, list(reasons))
        events = []
        for fid, reason in reasons.items():
            b, a = _diff(before.get(fid), after.get(fid))
            self.changes.append(Change(len(self.changes), step, action, fid, reason, b, a))
            old, new = before.get(fid) or {}, after.get(fid) or {}
            delta = (new.get("confidence") or 0.0) - (old.get("confidence") or 0.0)
            events.append(
                audit.event(
                    None,
                    action,
                    "fact",
                    fid,
                    self.now,
                    before=json.loads(b) if b else None,
                    after=json.loads(a) if a else None,
                    confidence_delta=delta,
                    reason=reason,
                    **_WHO,
                )
            )
        return events


Step = Callable[[RunContext], Awaitable[list[Count]]]


async def expire(ctx: RunContext) -> list[Count]:
    """TTL-elapsed facts of the run's scopes demoted, as the expiry sweep does."""
    due = await Repo.due_expiry(ctx.tx, ctx.tenant, ctx.scopes, ctx.now)
    if not due:
        return [Count("expired", 0), Count("dependents_flagged", 0)]
    ids = [r["id"] for r in due]
    before = await ctx.touch(ids + [d for r in due for d in r["dependents"]])
    rows = await Repo.expire(ctx.tx, ctx.tenant, ids, ctx.now)
    reasons: dict[str, str | None] = {
        r["id"]: f"TTL of {r['ttl_days']} days elapsed at {r['expires_at']}" for r in rows
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
    events = await ctx.record("expiry", "expire", before, reasons)
    dependents: dict[str, str | None] = {
        r["id"]: f"premise {r['premise']} expired" for r in flagged
    }
    events += await ctx.record("expiry", "flag_needs_verification", before, dependents)
    await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
    return [Count("expired", len(reasons)), Count("dependents_flagged", len(dependents))]


async def promote(ctx: RunContext) -> list[Count]:
    """Candidates whose evidence reached the corroboration threshold become active, through
    the same confidence recompute a write runs."""
    ids = await Repo.promotable(ctx.tx, ctx.tenant, ctx.scopes, ctx.now, ctx.promote_sessions)
    if not ids:
        return [Count("promoted", 0)]
    before = await ctx.touch(ids)
    rows = await FactRepository.recompute_confidence(
        ctx.tx, ctx.tenant, ids, ctx.promote_sessions, ctx.now
    )
    promoted: dict[str, str | None] = {
        r["id"]: f"corroborated by {r['sessions']} sessions (threshold {ctx.promote_sessions})"
        for r in rows
        if r["status_before"] == "candidate" and r["status"] == "active"
    }
    events = await ctx.record("promotion", "promote", before, promoted)
    await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
    await TimelineRepository.settle_facts(ctx.tx, ctx.tenant, list(promoted), ctx.now)
    return [Count("promoted", len(promoted))]


def _best(versions: list[Record]) -> Record:
    # Best supported: most independent sessions, then confidence, active before candidate,
    # then the oldest telling (it has been believed longest); the id breaks ties.
    return sorted(
        versions,
        key=lambda v: (
            -int(v["sessions"]),
            -float(v["confidence"]),
            v["status"] != "active",
            v["recorded_at"],
            v["id"],
        ),
    )[0]


async def dedupe(ctx: RunContext) -> list[Count]:
    """Live versions of one (subject, predicate, object) told apart by case or whitespace are
    merged onto the best supported one: evidence copied over, the others retracted naming
    the survivor, the survivor's confidence (and promotion) recomputed."""
    groups = await Repo.duplicates(ctx.tx, ctx.tenant, ctx.scopes, ctx.now)
    moves: list[dict[str, str]] = []
    for slot in groups:
        same: dict[str, list[Record]] = {}
        for v in slot["versions"]:
            same.setdefault(entity_key(str(v["object"])), []).append(v)
        for versions in same.values():
            keep = _best(versions)
            moves += [{"from": v["id"], "to": keep["id"]} for v in versions if v is not keep]
    if not moves:
        return [Count("groups", 0), Count("merged", 0)]
    keeps = list(dict.fromkeys(m["to"] for m in moves))
    dups = [m["from"] for m in moves]
    before = await ctx.touch(keeps + dups)
    await Repo.move_evidence(ctx.tx, ctx.tenant, moves, ctx.now)
    for m in moves:
        await FactRepository.retract(
            ctx.tx,
            ctx.tenant,
            m["from"],
            ctx.now,
            ACTOR,
            f"duplicate of {m['to']} (same object up to case and whitespace), merged",
        )
    await FactRepository.recompute_confidence(
        ctx.tx, ctx.tenant, keeps, ctx.promote_sessions, ctx.now
    )
    events = await ctx.record(
        "dedupe",
        "merge_duplicate",
        before,
        {m["from"]: f"merged into {m['to']}" for m in moves},
    )
    events += await ctx.record(
        "dedupe",
        "absorb_duplicate",
        before,
        {k: "evidence of " + ", ".join(m["from"] for m in moves if m["to"] == k) for k in keeps},
    )
    await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
    await TimelineRepository.settle_facts(ctx.tx, ctx.tenant, keeps + dups, ctx.now)
    return [Count("groups", len(keeps)), Count("merged", len(dups))]


async def contradictions(ctx: RunContext) -> list[Count]:
    """Facts that disagree across the run's scopes are flagged needs-verification with the
    reason (the review queue's needs-verification side; nothing is decided for the human)."""
    rows = await Repo.contradictions(ctx.tx, ctx.tenant, ctx.scopes, ctx.now)
    reasons: dict[str, str] = {}
    for r in rows:
        reasons.setdefault(r["id"], r["reason"])
    if not reasons:
        return [Count("flagged", 0)]
    before = await ctx.touch(list(reasons))
    await FactRepository.flag(
        ctx.tx, ctx.tenant, [{"id": i, "reason": why} for i, why in reasons.items()], ctx.now
    )
    events = await ctx.record("contradictions", "flag_contradiction", before, dict(reasons.items()))
    await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
    return [Count("flagged", len(reasons))]


# In run order: expiry first (an expired fact is neither promoted nor merged), then
# promotion, entity resolution (its merges can bring duplicates into one slot), dedupe (which
# may promote a survivor), contradictions last (on the result). "entities" needs GDS and the
# embedder, so its function comes from the service (None here).
STEPS: dict[str, Step | None] = {
    "expiry": expire,
    "promotion": promote,
    "entities": None,
    "dedupe": dedupe,
    "contradictions": contradictions,
}
