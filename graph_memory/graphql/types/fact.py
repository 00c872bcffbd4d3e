"""Fact, its evidence and its versions as GraphQL types."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.domain import TIER_CAP, Tier
from graph_memory.graphql.convert import dt
from graph_memory.services.facts.belief import confidence_at, held_at

__all__ = [
    "Cardinality",
    "Entity",
    "Evidence",
    "Fact",
    "FactStatus",
    "Predicate",
    "TrustTier",
    "fact_from_record",
]


@strawberry.enum(description="Trust tiers, highest first: system > admin > user > inferred.")
class TrustTier(Enum):
    SYSTEM = "system"
    ADMIN = "admin"
    USER = "user"
    INFERRED = "inferred"


@strawberry.enum
class FactStatus(Enum):
    CANDIDATE = "candidate"
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    RETRACTED = "retracted"
    REJECTED = "rejected"


@strawberry.enum
class Cardinality(Enum):
    ONE = "one"
    MANY = "many"


@strawberry.type(description="A predicate and whether it holds one value or many.")
class Predicate:
    name: str
    cardinality: Cardinality


@strawberry.type(description="One episode supporting a fact, with its weight and contributor.")
class Evidence:
    episode_id: strawberry.ID
    session_id: str
    user_id: str | None
    weight: float
    summary: str | None
    source: str | None
    started_at: datetime | None
    linked_at: datetime | None


@strawberry.type(description="Something facts are about.")
class Entity:
    id: strawberry.ID
    name: str
    key: str

    @strawberry.field(description="Facts about this entity in force at (asOf, validAt).")
    async def facts(
        self,
        info: Info[Any, None],
        scopes: list[str],
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        first: int = 100,
    ) -> list[Fact]:
        from graph_memory.services.facts.reads import FactFilter

        ctx = info.context
        rows = await ctx.services.reads.list_facts(
            ctx.principal,
            FactFilter(scopes=tuple(scopes), subject=self.key),
            as_of=as_of,
            valid_at=valid_at,
            first=first,
            after=None,
        )
        return [fact_from_record(r, as_of) for r in rows[:first]]


@strawberry.type(description="A versioned (subject, predicate, object) triple with provenance.")
class Fact:
    id: strawberry.ID
    scope: str
    subject: str = strawberry.field(description="The subject's normalised key.")
    subject_name: str
    predicate: str
    object: str
    object_is_entity: bool
    text: str
    kind: str
    source: str
    tier: TrustTier
    status: FactStatus
    cardinality: Cardinality
    version: int
    recorded_at: datetime = strawberry.field(description="Belief start (transaction time).")
    superseded_at: datetime | None = strawberry.field(description="Belief end by a new version.")
    superseded_by: strawberry.ID | None
    retracted_at: datetime | None
    retracted_by: str | None
    retract_reason: str | None
    valid_from: datetime | None = strawberry.field(description="Validity start (inclusive).")
    valid_to: datetime | None = strawberry.field(description="Validity end (exclusive).")
    expires_at: datetime | None
    needs_verification: bool
    verification_reason: str | None
    created_by: str | None
    last_retrieved_at: datetime | None
    retrieval_count: int
    supersedes_id: strawberry.Private[str | None] = None
    stored_confidence: strawberry.Private[float] = 0.0
    # Set when read as of a past moment: provenance then shows the evidence held at that time.
    as_of: strawberry.Private[datetime | None] = None

    @strawberry.field(
        description="Derived from the evidence: the strongest weight per session, noisy-OR "
        "across sessions, capped by the trust tier. As of the read's asOf: evidence linked "
        "later does not count."
    )
    async def confidence(self, info: Info[Any, None]) -> float:
        if self.as_of is None:
            return self.stored_confidence
        rows = await info.context.loader("provenance").load(str(self.id))
        cap = TIER_CAP[Tier(self.tier.value)]
        return confidence_at(rows, self.as_of, cap, self.stored_confidence)

    @strawberry.field(
        description="Supporting episodes, weights and contributors (as of the read's asOf)."
    )
    async def provenance(self, info: Info[Any, None]) -> list[Evidence]:
        rows = await info.context.loader("provenance").load(str(self.id))
        if self.as_of is not None:
            rows = held_at(rows, self.as_of)
        return [
            Evidence(
                episode_id=strawberry.ID(r["episode_id"]),
                session_id=r["session_id"],
                user_id=r.get("user_id"),
                weight=float(r["weight"] or 0.0),
                summary=r.get("summary"),
                source=r.get("source"),
                started_at=dt(r.get("started_at")),
                linked_at=dt(r.get("linked_at")),
            )
            for r in rows
        ]

    @strawberry.field(description="The version this one replaced.")
    async def supersedes(self, info: Info[Any, None]) -> Fact | None:
        if not self.supersedes_id:
            return None
        rec = await info.context.loader("facts").load(self.supersedes_id)
        return fact_from_record(rec) if rec else None

    @strawberry.field(description="Facts this one was derived from (DEPENDS_ON).")
    async def depends_on(self, info: Info[Any, None]) -> list[Fact]:
        deps = await info.context.loader("deps").load(str(self.id))
        recs = await info.context.loader("facts").load_many(deps["premises"])
        return [fact_from_record(r) for r in recs if r]

    @strawberry.field(description="Facts derived from this one.")
    async def dependents(self, info: Info[Any, None]) -> list[Fact]:
        deps = await info.context.loader("deps").load(str(self.id))
        recs = await info.context.loader("facts").load_many(deps["dependents"])
        return [fact_from_record(r) for r in recs if r]

    @strawberry.field
    async def subject_entity(self, info: Info[Any, None]) -> Entity | None:
        from graph_memory.domain import entity_id

        rec = await info.context.loader("entities").load(
            entity_id(info.context.principal.tenant, self.subject)
        )
        return Entity(id=rec["id"], name=rec["name"], key=rec["key"]) if rec else None


def fact_from_record(r: dict[str, Any], as_of: datetime | None = None) -> Fact:
    return Fact(
        id=strawberry.ID(r["id"]),
        scope=r["scope"],
        subject=r["subject"],
        subject_name=r.get("subject_name") or r["subject"],
        predicate=r["predicate"],
        object=r["object"],
        object_is_entity=bool(r.get("object_is_entity")),
        text=r.get("text") or "",
        kind=r.get("kind") or "fact",
        source=r.get("source") or "",
        tier=TrustTier(r["tier"]),
        status=FactStatus(r["status"]),
        cardinality=Cardinality(r.get("cardinality") or "one"),
        stored_confidence=float(r.get("confidence") or 0.0),
        version=int(r.get("version") or 1),
        recorded_at=dt(r["recorded_at"]),  # type: ignore[arg-type]
        superseded_at=dt(r.get("superseded_at")),
        superseded_by=r.get("superseded_by"),
        retracted_at=dt(r.get("retracted_at")),
        retracted_by=r.get("retracted_by"),
        retract_reason=r.get("retract_reason"),
        valid_from=dt(r.get("valid_from")),
        valid_to=dt(r.get("valid_to")),
        expires_at=dt(r.get("expires_at")),
        needs_verification=bool(r.get("needs_verification")),
        verification_reason=r.get("verification_reason"),
        created_by=r.get("created_by"),
        last_retrieved_at=dt(r.get("last_retrieved_at")),
        retrieval_count=int(r.get("retrieval_count") or 0),
        supersedes_id=r.get("supersedes"),
        as_of=as_of,
    )
