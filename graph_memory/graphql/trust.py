"""Trust & forgetting over GraphQL: review queue, audit log, alerts, tenant policy, expiry and
excision of a contributor. Resolvers translate; the services hold the rules (roles included)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, TypeVar

import strawberry
from strawberry.types import Info

from graph_memory.domain import Role
from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.context import require_role
from graph_memory.graphql.convert import decode_cursor, dt, encode_cursor
from graph_memory.graphql.query import PageInfo
from graph_memory.graphql.types.fact import Evidence, Fact, TrustTier, fact_from_record
from graph_memory.services.audit_log import AuditFilter
from graph_memory.services.trust import PolicyView

__all__ = ["TrustMutation", "TrustQuery"]

T = TypeVar("T")


def _need(service: T | None, name: str) -> T:
    if service is None:  # a container built without the trust services: a wiring bug
        raise GraphMemoryError(f"the {name} service is not configured")
    return service


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


def _event(r: dict[str, Any]) -> AuditEvent:
    return AuditEvent(
        id=strawberry.ID(r["id"]),
        at=dt(r["at"]),  # type: ignore[arg-type]
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


@strawberry.type(description="A candidate fact awaiting corroboration or a human decision.")
class ReviewItem:
    fact: Fact
    sessions: int = strawberry.field(description="Distinct sessions supporting it.")
    needed_sessions: int = strawberry.field(description="Sessions that promote it unaided.")
    contributors: list[str]
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
    version: int
    updated_at: datetime | None
    updated_by: str | None


def _policy(v: PolicyView) -> TenantPolicyGQL:
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


def _changes(p: TenantPolicyInput | None) -> dict[str, Any]:
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


@strawberry.type(description="What forgetting a contributor removed or changed (counts only).")
class ForgetResult:
    receipt: str = strawberry.field(
        description="Pseudonymous id of the forget audit event (the log never names the user)."
    )
    episodes_deleted: int
    fact_versions_deleted: int
    facts_deleted_by_tier: list[TierCount]
    facts_recomputed: int
    facts_returned_to_review: int
    facts_reinstated: int
    dependents_flagged: int
    procedures_demoted: int
    entities_deleted: int
    predicates_deleted: int
    audit_events_redacted: int
    user_deleted: bool
    took_ms: float


@strawberry.type
class ExpireResult:
    expired: int
    dependents_flagged: int
    at: datetime


@strawberry.type
class TrustQuery:
    @strawberry.field(
        description="Candidates awaiting review with their evidence (analyst, "
        "admin), best supported first."
    )
    async def review_queue(
        self, info: Info[Any, None], scopes: list[str], first: int = 50
    ) -> list[ReviewItem]:
        ctx = info.context
        items = await _need(ctx.services.review, "review").queue(ctx.principal, scopes, first)
        return [
            ReviewItem(
                fact=fact_from_record(i.fact),
                sessions=i.sessions,
                needed_sessions=i.needed_sessions,
                contributors=i.contributors,
                evidence=[
                    Evidence(
                        episode_id=strawberry.ID(e["episode_id"]),
                        session_id=e["session_id"],
                        user_id=e.get("user_id"),
                        weight=float(e["weight"] or 0.0),
                        summary=e.get("summary"),
                        source=e.get("source"),
                        started_at=dt(e.get("started_at")),
                        linked_at=dt(e.get("linked_at")),
                    )
                    for e in i.evidence
                ],
            )
            for i in items
        ]

    @strawberry.field(description="The audit log, newest first (analyst, admin).")
    async def audit_log(
        self,
        info: Info[Any, None],
        filter: AuditFilterInput | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> AuditEventConnection:
        ctx = info.context
        f = filter or AuditFilterInput()
        rows = await _need(ctx.services.audit_log, "audit log").list(
            ctx.principal,
            AuditFilter(actor=f.actor, target=f.target, action=f.action, start=f.from_, end=f.to),
            first,
            decode_cursor(after),
        )
        edges = [
            AuditEventEdge(cursor=encode_cursor(r["at"], r["id"]), node=_event(r))
            for r in rows[:first]
        ]
        return AuditEventConnection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=len(rows) > first, end_cursor=edges[-1].cursor if edges else None
            ),
        )

    @strawberry.field(
        description="Tier conflicts in [from, to) with counts per actor (analyst, admin)."
    )
    async def alerts(
        self,
        info: Info[Any, None],
        from_: Annotated[datetime | None, strawberry.argument(name="from")] = None,
        to: datetime | None = None,
        first: int = 100,
    ) -> Alerts:
        ctx = info.context
        rep = await _need(ctx.services.audit_log, "audit log").alerts(
            ctx.principal, from_, to, first
        )
        return Alerts(
            total=rep.total,
            events=[_event(e) for e in rep.events],
            counts=[
                AlertCount(
                    action=c["action"],
                    actor=c["actor"],
                    count=int(c["count"]),
                    first_at=dt(c["first_at"]),  # type: ignore[arg-type]
                    last_at=dt(c["last_at"]),
                )  # type: ignore[arg-type]
                for c in rep.counts
            ],
        )

    @strawberry.field(description="The caller's tenant's effective write-gate policy.")
    async def tenant_policy(self, info: Info[Any, None]) -> TenantPolicyGQL:
        ctx = info.context
        store = _need(ctx.services.policies, "policy")
        return _policy(await store.describe(ctx.principal.tenant))


@strawberry.type
class TrustMutation:
    @strawberry.mutation(description="Approve a candidate: it becomes active (analyst, admin).")
    async def approve_fact(self, info: Info[Any, None], id: strawberry.ID) -> Fact:
        ctx = info.context
        rec = await _need(ctx.services.review, "review").approve(ctx.principal, str(id))
        return fact_from_record(rec)

    @strawberry.mutation(
        description="Reject a candidate: never served, kept in history as "
        "rejected (analyst, admin)."
    )
    async def reject_fact(
        self, info: Info[Any, None], id: strawberry.ID, reason: str | None = None
    ) -> Fact:
        ctx = info.context
        rec = await _need(ctx.services.review, "review").reject(ctx.principal, str(id), reason)
        return fact_from_record(rec)

    @strawberry.mutation(
        description="Excise a contributor from this tenant's memory (admin): "
        "their episodes, facts only they supported (every version), and "
        "their content in the audit log. One transaction."
    )
    async def forget_contributor(self, info: Info[Any, None], user_id: str) -> ForgetResult:
        ctx = info.context
        r = await _need(ctx.services.forget, "forget").forget(ctx.principal, user_id)
        return ForgetResult(
            receipt=r.receipt,
            episodes_deleted=r.episodes_deleted,
            fact_versions_deleted=r.fact_versions_deleted,
            facts_deleted_by_tier=[
                TierCount(tier=TrustTier(t), count=n) for t, n in r.facts_deleted.items()
            ],
            facts_recomputed=r.facts_recomputed,
            facts_returned_to_review=r.facts_returned_to_review,
            facts_reinstated=r.facts_reinstated,
            dependents_flagged=r.dependents_flagged,
            procedures_demoted=r.procedures_demoted,
            entities_deleted=r.entities_deleted,
            predicates_deleted=r.predicates_deleted,
            audit_events_redacted=r.audit_events_redacted,
            user_deleted=r.user_deleted,
            took_ms=round(r.took_ms, 3),
        )

    @strawberry.mutation(description="Expire this tenant's facts whose TTL has elapsed (admin).")
    async def expire_facts(self, info: Info[Any, None]) -> ExpireResult:
        ctx = info.context
        require_role(ctx.principal, Role.ADMIN)
        rep = await _need(ctx.services.expiry, "expiry").sweep(ctx.principal.tenant, ctx.principal)
        return ExpireResult(
            expired=rep.expired, dependents_flagged=rep.dependents_flagged, at=rep.at
        )

    @strawberry.mutation(
        description="Change this tenant's write-gate policy (admin); `reset` "
        "starts from the defaults. Audited."
    )
    async def configure_tenant(
        self, info: Info[Any, None], policy: TenantPolicyInput | None = None, reset: bool = False
    ) -> TenantPolicyGQL:
        ctx = info.context
        require_role(ctx.principal, Role.ADMIN)
        store = _need(ctx.services.policies, "policy")
        return _policy(await store.configure(ctx.principal, _changes(policy), reset=reset))
