"""What a batch of fact writes changes beyond its new versions, in the same transaction.

Evidence added to versions already held, their recounted confidence (and promotions), the
audit events with each item's own confidence change, and doubt: dependents of superseded
premises, and new conclusions drawn from premises already in doubt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from graph_memory.db import Record, Tx
from graph_memory.domain import Principal, session_key
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.facts import FactRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.facts import confidence_steps
from graph_memory.services.facts import rows as fact_rows
from graph_memory.services.facts.confidence_steps import Touch
from graph_memory.services.facts.rules import Premises

if TYPE_CHECKING:
    from graph_memory.services.facts.writes import ItemResult

__all__ = ["Batch", "settle"]


@dataclass(frozen=True)
class Batch:
    """A decided batch: per-item results, the versions to create, the evidence for versions
    already held, every accepted item's touch, the premises it supersedes, what its
    dependsOn lists said, and the episodes it cites."""

    results: dict[int, ItemResult]
    creates: list[dict[str, Any]]
    evidence: list[dict[str, Any]]
    touches: list[Touch]
    superseded: list[dict[str, str]]
    premises: Premises
    episodes: dict[str, Record]


async def settle(
    tx: Tx, principal: Principal, policy: TenantPolicy, batch: Batch, now: datetime
) -> list[dict[str, Any]]:
    """Writes the batch's versions and evidence and returns its audit events."""
    tenant = principal.tenant
    results, creates, evidence, touches = (
        batch.results,
        batch.creates,
        batch.evidence,
        batch.touches,
    )
    superseded, premises, episodes = batch.superseded, batch.premises, batch.episodes
    events: list[dict[str, Any]] = []
    corroborated = sorted({e["id"] for e in evidence})
    created_ids = {c["id"] for c in creates}
    before = await FactRepository.evidence_before(
        tx, tenant, [f for f in corroborated if f not in created_ids]
    )
    await FactRepository.write_versions(tx, tenant, creates, now)
    await FactRepository.add_evidence(tx, tenant, evidence, now)
    events += [
        audit.event(
            principal,
            "verify",
            "fact",
            r["id"],
            now,
            before={"needs_verification": True, "verification_reason": r["reason"]},
            after={"needs_verification": False},
            reason="confirmed again by a new assertion after it was flagged",
        )
        for r in await FactRepository.reverify(tx, tenant, corroborated, now)
    ]
    # New versions got their confidence from their citations; only corroborated ones
    # need the evidence recounted from their edges.
    recomputed = await FactRepository.recompute_confidence(
        tx, tenant, corroborated, policy.promote_sessions, now
    )
    by_id = {r["id"]: r for r in recomputed}
    for fact_id, rec in fact_rows.created_confidence(creates).items():
        # A version created and corroborated in one batch: the recount is the truth.
        by_id.setdefault(fact_id, rec)
    for r in results.values():
        if r.ok and r.fact_id in by_id:
            r.status = by_id[r.fact_id]["status"]
            r.confidence = by_id[r.fact_id]["after"]
    item_steps = confidence_steps.steps(
        touches,
        before,
        {c["id"]: c["props"] for c in creates},
        {fid: float(rec["after"]) for fid, rec in by_id.items()},
        {eid: session_key(ep["user_id"], ep["session_id"]) for eid, ep in episodes.items()},
        policy.promote_sessions,
    )
    events += fact_rows.write_events(principal, results, creates, item_steps, by_id, now)
    # A candidate this batch promoted ended the version it was written to supersede.
    superseded = superseded + [
        fact_rows.premise_superseded(r["closed"], r["id"], now)
        for r in recomputed
        if r.get("closed") is not None
    ]
    flagged = await FactRepository.flag_dependents(tx, tenant, superseded, now)
    events += audit.flagged(principal, flagged, now, "superseded")
    # Derived from a premise already in doubt: born needing verification, saying why (the
    # flag's reason and its audit event read the same, as audit.flagged writes them).
    doubted: dict[str, list[dict[str, str]]] = {}
    for t in touches:
        if t.created and t.index in premises.doubts:
            premise, why = premises.doubts[t.index]
            cause = f"{why} when this was derived from it"
            row = {"id": t.fact_id, "premise": premise, "reason": f"premise {premise} {cause}"}
            doubted.setdefault(cause, []).append(row)
    if doubted:
        await FactRepository.flag(tx, tenant, [r for rows in doubted.values() for r in rows], now)
        for cause, rows in doubted.items():
            events += audit.flagged(principal, rows, now, cause)
    return events
