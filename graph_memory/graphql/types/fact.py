"""Fact, its evidence and its versions as GraphQL types."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.domain import TIER_CAP, Tier
from graph_memory.services.facts.belief import confidence_at, held_at
from graph_memory.versions import EntityRef, FactVersion

__all__ = [
    "Cardinality",
    "Entity",
    "Evidence",
    "Fact",
    "FactStatus",
    "Predicate",
    "TrustTier",
    "entity_from_ref",
    "fact_from_record",
    "fact_from_version",
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
        return [fact_from_version(v, as_of) for v in rows[:first]]


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
    merged_into: strawberry.ID | None = strawberry.field(
        description="The version consolidation carried this one on as: the copy an entity "
        "merge made about the surviving entity, or the duplicate it was merged into."
    )
    merged_from: strawberry.ID | None = strawberry.field(
        description="On an entity merge's copy: the version it carries on (retracted then)."
    )
    subject_merged_from: str | None = strawberry.field(
        description="On an entity merge's copy: the key of the entity it was first about."
    )
    entered_at: datetime | None = strawberry.field(
        description="On an entity merge's copy: when it joined its slot, belief in it starting "
        "then (recordedAt stays when the claim it carries on was recorded)."
    )
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
        evidence = await info.context.loaders.provenance.load(str(self.id))
        cap = TIER_CAP[Tier(self.tier.value)]
        return confidence_at(evidence, self.as_of, cap, self.stored_confidence)

    @strawberry.field(
        description="Supporting episodes, weights and contributors (as of the read's asOf)."
    )
    async def provenance(self, info: Info[Any, None]) -> list[Evidence]:
        evidence = await info.context.loaders.provenance.load(str(self.id))
        if self.as_of is not None:
            evidence = held_at(evidence, self.as_of)
        return [
            Evidence(
                episode_id=strawberry.ID(e.episode_id),
                session_id=e.session_id,
                user_id=e.user_id,
                weight=e.weight,
                summary=e.summary,
                source=e.source,
                started_at=e.started_at,
                linked_at=e.linked_at,
            )
            for e in evidence
        ]

    @strawberry.field(
        description="The version this one replaced; a candidate's: the one it replaces once "
        "promoted (until then that version is not superseded)."
    )
    async def supersedes(self, info: Info[Any, None]) -> Fact | None:
        if not self.supersedes_id:
            return None
        found = await info.context.loaders.facts.load(self.supersedes_id)
        return fact_from_version(found) if found else None

    @strawberry.field(description="Facts this one was derived from (DEPENDS_ON).")
    async def depends_on(self, info: Info[Any, None]) -> list[Fact]:
        deps = await info.context.loaders.deps.load(str(self.id))
        found = await info.context.loaders.facts.load_many(deps.premises)
        return [fact_from_version(v) for v in found if v]

    @strawberry.field(description="Facts derived from this one.")
    async def dependents(self, info: Info[Any, None]) -> list[Fact]:
        deps = await info.context.loaders.deps.load(str(self.id))
        found = await info.context.loaders.facts.load_many(deps.dependents)
        return [fact_from_version(v) for v in found if v]

    @strawberry.field
    async def subject_entity(self, info: Info[Any, None]) -> Entity | None:
        from graph_memory.domain import entity_id

        found = await info.context.loaders.entities.load(
            entity_id(info.context.principal.tenant, self.subject)
        )
        return entity_from_ref(found) if found else None


def entity_from_ref(e: EntityRef) -> Entity:
    return Entity(id=strawberry.ID(e.id), name=e.name, key=e.key)


def fact_from_version(v: FactVersion, as_of: datetime | None = None) -> Fact:
    """The GraphQL view of a version (already as believed at ``as_of`` when read as of a past
    moment: ``as_of`` here only tells provenance and confidence which evidence to count)."""
    return Fact(
        id=strawberry.ID(v.id),
        scope=v.scope,
        subject=v.subject,
        subject_name=v.subject_name,
        predicate=v.predicate,
        object=v.object,
        object_is_entity=v.object_is_entity,
        text=v.text,
        kind=v.kind,
        source=v.source,
        tier=TrustTier(v.tier.value),
        status=FactStatus(v.status.value),
        cardinality=Cardinality(v.cardinality.value),
        stored_confidence=v.confidence,
        version=v.version,
        recorded_at=v.recorded_at,
        superseded_at=v.superseded_at,
        superseded_by=strawberry.ID(v.superseded_by) if v.superseded_by else None,
        retracted_at=v.retracted_at,
        retracted_by=v.retracted_by,
        retract_reason=v.retract_reason,
        merged_into=strawberry.ID(v.merged_into) if v.merged_into else None,
        merged_from=strawberry.ID(v.merged_from) if v.merged_from else None,
        subject_merged_from=v.subject_merged_from,
        entered_at=v.entered_at,
        valid_from=v.valid_from,
        valid_to=v.valid_to,
        expires_at=v.expires_at,
        needs_verification=v.needs_verification,
        verification_reason=v.verification_reason,
        created_by=v.created_by,
        last_retrieved_at=v.last_retrieved_at,
        retrieval_count=v.retrieval_count,
        supersedes_id=v.supersedes,
        as_of=as_of,
    )


def fact_from_record(r: dict[str, Any], as_of: datetime | None = None) -> Fact:
    """A fact row a write returns (retract, approve, reject) as the GraphQL view."""
    return fact_from_version(FactVersion.from_row(r), as_of)
