"""GraphQL types of trust & forgetting: audit events, alerts, the review queue, the tenant
policy and what a forget or an expiry sweep did."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry

from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.convert import dt
from graph_memory.graphql.inputs import prebuilt
from graph_memory.graphql.query import PageInfo
from graph_memory.graphql.types.fact import Evidence, Fact, TrustTier
from graph_memory.services.forget.service import ForgetJob
from graph_memory.services.trust.policy import PolicyView

__all__ = [
    "AlertCount",
    "Alerts",
    "AuditEvent",
    "AuditEventConnection",
    "AuditEventEdge",
    "AuditFilterInput",
    "ExpireResult",
    "ForgetResult",
    "PredicateTtl",
    "ReviewItem",
    "SourceTier",
    "TenantPolicyGQL",
    "TenantPolicyInput",
    "TierCount",
    "audit_event",
    "policy_changes",
    "policy_view",
    "when",
]


def when(value: Any) -> datetime:
    stamp = dt(value)
    if stamp is None:  # audit events always carry their time
        raise GraphMemoryError("audit event without a time")
    return stamp


@strawberry.type(description="One auditable change: who, when, what it was before and after.")
class AuditEvent:
    id: strawberry.ID
    at: datetime
    actor: str
    actor_type: str = strawberry.field(description="user | system | consolidation | admin")
    action: str
    target_type: str
    target_id: str
    before: str | None = strawberry.field(description="JSON snapshot; null once redacted.")
    after: str | None = strawberry.field(description="JSON snapshot; null once redacted.")
    confidence_delta: float | None
    reason: str | None
    redacted: bool = strawberry.field(
        description="Content blanked because its subject was forgotten (who/when/what kept)."
    )


def audit_event(r: dict[str, Any]) -> AuditEvent:
    return AuditEvent(
        id=strawberry.ID(r["id"]),
        at=when(r["at"]),
        actor=r.get("actor") or "",
        actor_type=r.get("actor_type") or "",
        action=r.get("action") or "",
        target_type=r.get("target_type") or "",
        target_id=r.get("target_id") or "",
        before=r.get("before"),
        after=r.get("after"),
        confidence_delta=r.get("confidence_delta"),
        reason=r.get("reason"),
        redacted=r.get("redacted_at") is not None,
    )


@strawberry.type
class AuditEventEdge:
    cursor: str
    node: AuditEvent


@strawberry.type
class AuditEventConnection:
    edges: list[AuditEventEdge]
    page_info: PageInfo

    @strawberry.field
    def nodes(self) -> list[AuditEvent]:
        return [e.node for e in self.edges]


@prebuilt()
@strawberry.input(description="All optional; `actor` matches an actor id or an actor type.")
class AuditFilterInput:
    actor: str | None = None
    target: str | None = None
    action: str | None = None
    from_: datetime | None = strawberry.field(default=None, name="from", description="Inclusive.")
    to: datetime | None = strawberry.field(default=None, description="Exclusive.")


@strawberry.type
class AlertCount:
    action: str
    actor: str
    count: int
    first_at: datetime
    last_at: datetime


@strawberry.type(description="Tier conflicts raised as alerts in a time range.")
class Alerts:
    total: int
    counts: list[AlertCount]
    events: list[AuditEvent]


@strawberry.type(
    description="A fact awaiting a human decision: a candidate awaiting corroboration, or an "
    "active fact flagged for verification."
)
class ReviewItem:
    fact: Fact
    sessions: int = strawberry.field(description="Distinct sessions supporting it.")
    needed_sessions: int = strawberry.field(description="Sessions that promote it unaided.")
    contributors: list[str]
    reason: str | None = strawberry.field(
        default=None,
        description="Why it is flagged (a contradiction with its other side, a premise in "
        "doubt); null for a candidate that only awaits corroboration.",
    )
    evidence: list[Evidence]


@strawberry.type
class SourceTier:
    source: str
    tier: TrustTier


@strawberry.type
class PredicateTtl:
    prefix: str
    days: int


@strawberry.type(name="TenantPolicy", description="The write gate's effective configuration.")
class TenantPolicyGQL:
    long_term_kinds: list[str]
    short_term_kinds: list[str]
    short_term_ttl_days: int
    sources: list[SourceTier]
    protected_prefixes: list[str]
    predicate_ttl_days: list[PredicateTtl]
    promote_sessions: int
    min_text_chars: int
    min_summary_chars: int
    service_phrases: list[str]
    user_capacity: int
    keep_raw_turns: bool = strawberry.field(
        description="Keep a session's raw turns on its ingest job after extraction."
    )
    version: int
    updated_at: datetime | None
    updated_by: str | None


def policy_view(v: PolicyView) -> TenantPolicyGQL:
    p = v.policy
    return TenantPolicyGQL(
        long_term_kinds=sorted(p.long_term_kinds),
        short_term_kinds=sorted(p.short_term_kinds),
        short_term_ttl_days=p.short_term_ttl_days,
        sources=[
            SourceTier(source=s, tier=TrustTier(t.value)) for s, t in sorted(p.source_tiers.items())
        ],
        protected_prefixes=list(p.protected_prefixes),
        predicate_ttl_days=[
            PredicateTtl(prefix=k, days=d) for k, d in sorted(p.predicate_ttl_days.items())
        ],
        promote_sessions=p.promote_sessions,
        min_text_chars=p.min_text_chars,
        min_summary_chars=p.min_summary_chars,
        service_phrases=sorted(p.service_phrases),
        user_capacity=p.user_capacity,
        keep_raw_turns=p.keep_raw_turns,
        version=v.version,
        updated_at=v.updated_at,
        updated_by=v.updated_by,
    )


@strawberry.input
class SourceTierInput:
    source: str
    tier: TrustTier


@strawberry.input
class PredicateTtlInput:
    prefix: str
    days: int


@strawberry.input(
    description="Each given setting replaces the tenant's previous override of "
    "it; sources, protected prefixes, predicate TTLs and service phrases extend "
    "the built-in ones."
)
class TenantPolicyInput:
    long_term_kinds: list[str] | None = None
    short_term_kinds: list[str] | None = None
    short_term_ttl_days: int | None = None
    sources: list[SourceTierInput] | None = None
    protected_prefixes: list[str] | None = None
    predicate_ttl_days: list[PredicateTtlInput] | None = None
    promote_sessions: int | None = None
    min_text_chars: int | None = None
    min_summary_chars: int | None = None
    service_phrases: list[str] | None = None
    user_capacity: int | None = None
    keep_raw_turns: bool | None = None


def policy_changes(p: TenantPolicyInput | None) -> dict[str, Any]:
    if p is None:
        return {}
    out: dict[str, Any] = {
        k: v
        for k, v in p.__dict__.items()
        if v is not None and k not in ("sources", "predicate_ttl_days")
    }
    if p.sources is not None:
        out["sources"] = {s.source: s.tier.value for s in p.sources}
    if p.predicate_ttl_days is not None:
        out["predicate_ttl_days"] = {t.prefix: t.days for t in p.predicate_ttl_days}
    return out


@strawberry.type
class TierCount:
    tier: TrustTier
    count: int


@strawberry.enum(description="Where a forget's purge stands.")
class ForgetState(Enum):
    RUNNING = "running"
    DONE = "done"


@strawberry.type(
    description="A forget: its purge job and what it removed or changed so far (counts only; "
    "final once state is DONE). Nothing only the user gave is answerable from the call on."
)
class ForgetResult:
    receipt: str = strawberry.field(
        description="Pseudonymous id of the forget audit event (the log never names the user)."
    )
    job_id: strawberry.ID = strawberry.field(description="The purge job, for forgetJob(id).")
    state: ForgetState
    batches: int = strawberry.field(description="Purge batches committed so far.")
    finished_at: datetime | None
    episodes_deleted: int
    fact_versions_deleted: int
    facts_deleted_by_tier: list[TierCount]
    facts_recomputed: int
    facts_reworded: int = strawberry.field(
        description="Surviving versions first written citing the user: their text is now the "
        "neutral wording of the triple (the user's free text is gone)."
    )
    facts_returned_to_review: int
    facts_reinstated: int
    dependents_flagged: int
    procedures_demoted: int
    entities_deleted: int
    audit_events_redacted: int
    predicates_deleted: int = strawberry.field(
        description="Predicates only the user's facts used (their names may be the user's)."
    )
    user_deleted: bool
    took_ms: float = strawberry.field(description="Time this call took (ms).")


def forget_result(job: ForgetJob) -> ForgetResult:
    c = job.counts
    return ForgetResult(
        receipt=job.receipt,
        job_id=strawberry.ID(job.id),
        state=ForgetState(job.state),
        batches=job.batches,
        finished_at=job.finished_at,
        episodes_deleted=c.episodes_deleted,
        fact_versions_deleted=c.fact_versions_deleted,
        facts_deleted_by_tier=[
            TierCount(tier=TrustTier(t), count=n) for t, n in c.facts_deleted.items()
        ],
        facts_recomputed=c.facts_recomputed,
        facts_reworded=c.facts_reworded,
        facts_returned_to_review=c.facts_returned_to_review,
        facts_reinstated=c.facts_reinstated,
        dependents_flagged=c.dependents_flagged,
        procedures_demoted=c.procedures_demoted,
        entities_deleted=c.entities_deleted,
        audit_events_redacted=c.audit_events_redacted,
        predicates_deleted=c.predicates_deleted,
        user_deleted=c.user_deleted,
        took_ms=round(job.took_ms, 3),
    )


@strawberry.type
class ExpireResult:
    expired: int
    dependents_flagged: int
    at: datetime
