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
from graph_memory.graphql.types.fact import Evidence, Fact, fact_from_version
from graph_memory.graphql.types.trust import (
    AlertCount,
    Alerts,
    AuditEventConnection,
    AuditEventEdge,
    AuditFilterInput,
    ExpireResult,
    ForgetResult,
    ReviewItem,
    TenantPolicyGQL,
    TenantPolicyInput,
    audit_event,
    forget_result,
    policy_changes,
    policy_view,
    when,
)
from graph_memory.services.audit.log import AuditFilter

__all__ = ["TrustMutation", "TrustQuery"]

T = TypeVar("T")


def _need(service: T | None, name: str) -> T:
    if service is None:  # a container built without the trust services: a wiring bug
        raise GraphMemoryError(f"the {name} service is not configured")
    return service


@strawberry.type
class TrustQuery:
    @strawberry.field(
        description="What awaits a human decision (analyst, admin), with its evidence: "
        "active facts flagged for verification first (a contradiction consolidation found, a "
        "premise in doubt; `reason` says which), then candidates awaiting corroboration, best "
        "supported first. approveFact clears a flag or promotes a candidate; rejectFact ends "
        "either."
    )
    async def review_queue(
        self, info: Info[Any, None], scopes: list[str], first: int = 50
    ) -> list[ReviewItem]:
        ctx = info.context
        items = await _need(ctx.services.review, "review").queue(ctx.principal, scopes, first)
        return [
            ReviewItem(
                fact=fact_from_version(i.fact),
                sessions=i.sessions,
                needed_sessions=i.needed_sessions,
                reason=i.reason,
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
            AuditEventEdge(cursor=encode_cursor(r["at"], r["id"]), node=audit_event(r))
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
            events=[audit_event(e) for e in rep.events],
            counts=[
                AlertCount(
                    action=c["action"],
                    actor=c["actor"],
                    count=int(c["count"]),
                    first_at=when(c["first_at"]),
                    last_at=when(c["last_at"]),
                )
                for c in rep.counts
            ],
        )

    @strawberry.field(description="A forget's purge job: progress and counts so far (admin).")
    async def forget_job(self, info: Info[Any, None], id: strawberry.ID) -> ForgetResult:
        ctx = info.context
        return forget_result(await _need(ctx.services.forget, "forget").job(ctx.principal, str(id)))

    @strawberry.field(description="The caller's tenant's effective write-gate policy.")
    async def tenant_policy(self, info: Info[Any, None]) -> TenantPolicyGQL:
        ctx = info.context
        store = _need(ctx.services.policies, "policy")
        return policy_view(await store.describe(ctx.principal.tenant))


@strawberry.type
class TrustMutation:
    @strawberry.mutation(description="Approve a candidate: it becomes active (analyst, admin).")
    async def approve_fact(self, info: Info[Any, None], id: strawberry.ID) -> Fact:
        ctx = info.context
        rec = await _need(ctx.services.review, "review").approve(ctx.principal, str(id))
        return fact_from_version(rec)

    @strawberry.mutation(
        description="Reject a candidate: never served, kept in history as "
        "rejected (analyst, admin)."
    )
    async def reject_fact(
        self, info: Info[Any, None], id: strawberry.ID, reason: str | None = None
    ) -> Fact:
        ctx = info.context
        rec = await _need(ctx.services.review, "review").reject(ctx.principal, str(id), reason)
        return fact_from_version(rec)

    @strawberry.mutation(
        description="Forget a contributor (admin): from this call's first transaction on, "
        "nothing only they gave (episodes, facts only they supported at every version, "
        "memos, procedures, entities only those facts name) is answerable by any read at "
        "any asOf; a purge job then deletes it in batches (resumable) and writes one "
        "counts-only audit event. The call waits up to waitSeconds (0..60) for the purge (0: "
        "return at once; follow it with forgetJob). A second forget of the same user joins the "
        "job."
    )
    async def forget_contributor(
        self, info: Info[Any, None], user_id: str, wait_seconds: float = 10.0
    ) -> ForgetResult:
        ctx = info.context
        job = await _need(ctx.services.forget, "forget").forget(
            ctx.principal, user_id, wait_seconds=wait_seconds
        )
        return forget_result(job)

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
        return policy_view(
            await store.configure(ctx.principal, policy_changes(policy), reset=reset)
        )
