"""Pure builders for the write path: a new version's node properties, its derived confidence,
and the audit events of a batch. No I/O, so the rules are unit-testable."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from graph_memory.db import Record
from graph_memory.domain import (
    TIER_CAP,
    TIER_RANK,
    Cardinality,
    Principal,
    Status,
    Tier,
    as_datetime,
    entity_id,
    ft_token,
    noisy_or,
    session_key,
)
from graph_memory.services.audit import events as audit
from graph_memory.services.facts import validity
from graph_memory.services.facts.confidence_steps import Step
from graph_memory.services.facts.gate import CheckedFact

if TYPE_CHECKING:
    from graph_memory.services.facts.writes import ItemResult

__all__ = [
    "Claimed",
    "claimed_validity",
    "created_confidence",
    "default_valid_from",
    "native",
    "new_row",
    "write_events",
]

# What an audit snapshot of a version keeps: enough to say what it claimed, not its vectors.
_AUDIT_KEYS = (
    "caption",
    "scope",
    "subject",
    "predicate",
    "object",
    "version",
    "status",
    "tier",
    "confidence",
    "valid_from",
    "valid_to",
    "expires_at",
    "supersedes",
    "source",
    "kind",
)


def native(value: Any) -> datetime | None:
    return as_datetime(value)


def _starts(cf: CheckedFact, episodes: dict[str, Record]) -> list[datetime]:
    return [
        s
        for c in cf.item.citations
        if (s := native(episodes[c.episode_id].get("started_at"))) is not None
    ]


def told_at(cf: CheckedFact, episodes: dict[str, Record], now: datetime) -> datetime:
    """When the claim was last said: the latest cited episode's start, else now. Sessions can
    be recorded out of order; this, not the recording order, says which was told last."""
    starts = _starts(cf, episodes)
    return max(starts) if starts else now


def default_valid_from(cf: CheckedFact, episodes: dict[str, Record], now: datetime) -> datetime:
    """When the claim became true: the caller's validFrom, else when it was first said."""
    if cf.valid_from is not None:
        return cf.valid_from
    starts = _starts(cf, episodes)
    return min(starts) if starts else now


@dataclass(frozen=True)
class Claimed:
    """The validity a new version claims, defaults applied (``claimed_validity``)."""

    valid_from: datetime
    valid_to: datetime | None
    stated: bool  # the start was given (or taken from the claim it ends, which had it given)
    explicit: bool  # some validity was given or implied, not all defaulted
    # When the start was taken from the claim it ends: the start it would have had alone
    # (when it was first said), which is what its evidence link keeps (link_claim).
    own_start: datetime | None = None


def claimed_validity(
    cf: CheckedFact,
    episodes: dict[str, Record],
    now: datetime,
    current: list[dict[str, Any]],
    premise_end: datetime | None,
) -> Claimed:
    """What a new version says about valid time, where the caller left things out:

    * validTo alone ends a claim already held: the start is that version's. "Had Rex until
      March", told in a March session, ends "has Rex" (its start defaulting to the March
      session would put the end before the start);
    * validFrom defaults to when it was first said (the earliest cited episode's start);
    * validTo of a conclusion defaults to the earliest end among its premises: it cannot
      outlive what it was derived from ("premium features" while "on trial until June").
    """
    if cf.valid_from is None and cf.valid_to is not None:
        held = validity.held_claim(current, cf.object_key, cf.valid_to)
        if held is not None and held.get("valid_from_us") is not None:
            start = validity.from_micros(held["valid_from_us"])
            own = default_valid_from(cf, episodes, now)
            return Claimed(start, cf.valid_to, bool(held.get("valid_from_stated")), True, own)
    valid_from = default_valid_from(cf, episodes, now)
    valid_to = cf.valid_to
    if valid_to is None and premise_end is not None and premise_end > valid_from:
        valid_to = premise_end
    return Claimed(
        valid_from,
        valid_to,
        cf.valid_from is not None,
        valid_to is not None or cf.valid_from is not None,
    )


def link_claim(cf: CheckedFact, claim: Claimed) -> dict[str, Any]:
    """What a telling said, kept on each of its evidence links (temporal/withdrawal.Said):
    its own start, not one it took from the claim it ends (once that claim's tellers are
    forgotten, it was never held)."""
    borrowed = claim.own_start is not None
    start = claim.own_start if claim.own_start is not None else claim.valid_from
    return {
        "tier": cf.tier.value,
        "claim_source": cf.item.source,
        "claim_from": start.isoformat(),
        "claim_to": claim.valid_to.isoformat() if claim.valid_to is not None else None,
        "claim_stated": claim.stated and not borrowed,
    }


def _by_session(cites: list[dict[str, Any]], episodes: dict[str, Record]) -> dict[str, list[float]]:
    by_session: dict[str, list[float]] = {}
    for c in cites:
        ep = episodes[c["episode_id"]]
        # A session is (user, session id), as in fact.recompute_confidence.
        by_session.setdefault(session_key(ep["user_id"], ep["session_id"]), []).append(c["weight"])
    return by_session


def starts_active(
    cf: CheckedFact, cites: list[dict[str, Any]], episodes: dict[str, Record], promote_sessions: int
) -> bool:
    """Inferred facts wait for corroboration by distinct sessions (or review); declared ones
    are active at once."""
    return cf.tier is not Tier.INFERRED or len(_by_session(cites, episodes)) >= promote_sessions


def premise_superseded(old_id: str, new_id: str, now: datetime) -> dict[str, str]:
    """The flag its dependents get when ``old_id`` is superseded by ``new_id`` (at its
    writing, or at its promotion). Ids only: a reason is copied into the dependents' audit
    trail, where a forgotten contributor's words must not survive (forgetContributor)."""
    return {"id": old_id, "reason": f"premise {old_id} superseded by {new_id} at {now.isoformat()}"}


def new_row(
    cf: CheckedFact,
    scope: str,
    card: Cardinality,
    cites: list[dict[str, Any]],
    prior: dict[str, Any] | None,
    principal: Principal,
    vector: list[float] | None,
    episodes: dict[str, Record],
    now: datetime,
    promote_sessions: int,
    version: int,
    valid: Claimed,
    told: datetime,
) -> dict[str, Any]:
    """Everything needed to write one new version; ``props`` is the node's property map.
    ``valid`` is its (validFrom, validTo), already placed in the slot (services/facts/validity.py);
    ``told`` when it was said (told_at, computed once by the caller)."""
    tenant = principal.tenant
    item = cf.item
    valid_from, valid_to = valid.valid_from, valid.valid_to
    by_session = _by_session(cites, episodes)
    confidence = noisy_or(by_session, TIER_CAP[cf.tier])
    status = (
        Status.ACTIVE if starts_active(cf, cites, episodes, promote_sessions) else Status.CANDIDATE
    )
    fact_id = f"fact_{uuid.uuid4().hex}"
    subject_name = item.subject.strip()
    obj = item.object.strip()
    props: dict[str, Any] = {
        "id": fact_id,
        "tenant": tenant,
        "scope": scope,
        "ft_scope": ft_token(tenant, scope),
        "subject": cf.subject_key,
        "subject_name": subject_name,
        "predicate": cf.predicate,
        "object": obj,
        "object_key": cf.object_key,
        "object_is_entity": item.object_is_entity,
        "text": cf.text,
        "caption": f"{subject_name} · {cf.predicate} · {obj}"[:120],
        # Neo4j Browser captions a node by `name` first: show the triple, not a field of it.
        "name": f"{subject_name} · {cf.predicate} · {obj}"[:120],
        "kind": item.kind,
        "source": item.source,
        "tier": cf.tier.value,
        "tier_rank": TIER_RANK[cf.tier],
        "tier_cap": TIER_CAP[cf.tier],
        "status": status.value,
        "cardinality": card.value,
        "confidence": confidence,
        "version": version,
        "recorded_at": now,
        # When it became served as truth: reads asOf earlier never see it as active.
        "activated_at": now if status is Status.ACTIVE else None,
        "valid_from": valid_from,
        # Whether validFrom was given or defaulted to when it was said (services/facts/validity.py).
        "valid_from_stated": valid.stated,
        "told_at": told,
        "valid_to": valid_to,
        "expires_at": now + timedelta(days=cf.ttl_days) if cf.ttl_days else None,
        "ttl_days": cf.ttl_days,
        "created_by": principal.actor,
        # Whom a session token wrote it for (forget/acted_for_marks finds it by this).
        "created_for": principal.user_id,
        "supersedes": prior["id"] if prior else None,
        "needs_verification": False,
        "retrieval_count": 0,
    }
    return {
        "id": fact_id,
        "scope": scope,
        "status": status.value,
        "version": props["version"],
        "props": props,
        "subject": cf.subject_key,
        "subject_id": entity_id(tenant, item.subject),
        "subject_name": subject_name,
        "object": obj,
        "object_key": cf.object_key,
        "object_id": entity_id(tenant, item.object),
        "object_is_entity": item.object_is_entity,
        "citations": cites,
        "sessions": len(by_session),
        "depends_on": list(item.depends_on),
        "supersedes": prior["id"] if prior else None,
        "valid_from": valid_from,
        "embedding": vector,
    }


def created_confidence(creates: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The recompute-shaped record for versions whose confidence was set at creation."""
    return {
        c["id"]: {
            "id": c["id"],
            "before": 0.0,
            "after": c["props"]["confidence"],
            "status_before": None,
            "status": c["status"],
            "sessions": c["sessions"],
        }
        for c in creates
    }


def write_events(
    principal: Principal,
    results: dict[int, ItemResult],
    creates: list[dict[str, Any]],
    steps: dict[int, Step],
    recomputed: dict[str, Any],
    now: datetime,
) -> list[dict[str, Any]]:
    """One event per accepted item with the confidence change that item caused (``steps``),
    and one ``promote`` by the item that brought a candidate to the threshold, if it was
    promoted."""
    rows = {c["id"]: c["props"] for c in creates}
    out = []
    for r in results.values():
        if not r.ok or r.fact_id is None:
            continue
        step = steps.get(r.index)
        props = rows.get(r.fact_id)
        after = {k: props.get(k) for k in _AUDIT_KEYS} if props else None
        out.append(
            audit.event(
                principal,
                r.action or "write",
                "fact",
                r.fact_id,
                now,
                before={"id": r.supersedes} if r.supersedes else None,
                after=after,
                confidence_delta=step.delta if step else 0.0,
            )
        )
        # Reaching the threshold promotes only what no higher tier holds back
        # (fact/_outranked): the recount's status says whether it did.
        if step and step.promoted and recomputed[r.fact_id]["status"] == "active":
            out.append(
                audit.event(
                    principal,
                    "promote",
                    "fact",
                    r.fact_id,
                    now,
                    reason=f"corroborated by {recomputed[r.fact_id]['sessions']} sessions",
                )
            )
    return out
