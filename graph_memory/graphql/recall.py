"""Recall, context packing and procedural memory over GraphQL."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.domain import Role
from graph_memory.graphql.context import require_role
from graph_memory.graphql.convert import dt
from graph_memory.graphql.types.episode import Episode, episode_from_record
from graph_memory.graphql.types.fact import Fact, TrustTier, fact_from_record
from graph_memory.services import recall as r
from graph_memory.services.context_pack import ContextService, Packed
from graph_memory.services.procedures import ProcedureService
from graph_memory.services.recall import RecallRequest, RecallService, Scored, Weights

__all__ = ["ProcedureMutation", "RecallQuery"]

_WRITERS = (Role.AGENT, Role.ADMIN)


@strawberry.enum(description="What a recalled item is.")
class MemoryKind(Enum):
    FACT = "fact"
    EPISODE = "episode"
    PROCEDURE = "procedure"


_ALL_KINDS = [MemoryKind.FACT, MemoryKind.EPISODE, MemoryKind.PROCEDURE]


@strawberry.input(description="Score weights; normalised to sum 1, so minScore keeps its meaning.")
class RecallWeightsInput:
    vector: float = 0.5
    keyword: float = 0.2
    recency: float = 0.2
    confidence: float = 0.1


@strawberry.type
class RecallWeights:
    vector: float
    keyword: float
    recency: float
    confidence: float


@strawberry.type(description="total = Σ weight·part + tierBoost; every part is in [0, 1].")
class ScoreBreakdown:
    vector: float = strawberry.field(description="Cosine similarity to the query, 0 = unrelated.")
    keyword: float = strawberry.field(description="Full-text score / best among candidates.")
    recency: float = strawberry.field(description="0.5^(age / halfLife), age up to validAt.")
    confidence: float = strawberry.field(
        description="Memory confidence (procedures: success rate, Laplace-smoothed)."
    )
    tier_boost: float = strawberry.field(
        description="system +0.1, admin +0.05, user 0, inferred -0.05 (facts only)."
    )
    total: float


@strawberry.type(description="One supporting episode and who contributed it.")
class ProvenanceEpisode:
    episode_id: strawberry.ID
    session_id: str | None
    user_id: str | None
    weight: float | None
    success: bool | None = strawberry.field(description="Procedures: the outcome reported.")
    started_at: datetime | None
    summary: str | None
    source: str | None


@strawberry.type
class MemoryTimes:
    fresh_at: datetime | None = strawberry.field(description="What recency is measured from.")
    recorded_at: datetime | None
    valid_from: datetime | None
    valid_to: datetime | None
    superseded_at: datetime | None
    retracted_at: datetime | None
    expires_at: datetime | None
    started_at: datetime | None
    ended_at: datetime | None
    created_at: datetime | None
    updated_at: datetime | None
    last_retrieved_at: datetime | None


@strawberry.type
class RecallProvenance:
    episodes: list[ProvenanceEpisode]
    contributors: list[str]
    times: MemoryTimes


@strawberry.type(description="A versioned way of doing something, keyed by (scope, intent, role).")
class Procedure:
    id: strawberry.ID
    scope: str
    intent: str
    role: str
    version: int
    steps: list[str]
    description: str | None
    status: str = strawberry.field(description="candidate | active | demoted")
    success_count: int
    failure_count: int
    created_by: str | None
    created_at: datetime | None
    updated_at: datetime | None
    superseded_at: datetime | None
    superseded_by: strawberry.ID | None
    supersedes: strawberry.ID | None
    retrieval_count: int
    last_retrieved_at: datetime | None


def procedure_from_record(p: dict[str, Any]) -> Procedure:
    return Procedure(
        id=strawberry.ID(p["id"]),
        scope=p["scope"],
        intent=p["intent"],
        role=p["role"],
        version=int(p.get("version") or 1),
        steps=[str(s) for s in p.get("steps") or []],
        description=p.get("description"),
        status=p["status"],
        success_count=int(p.get("success_count") or 0),
        failure_count=int(p.get("failure_count") or 0),
        created_by=p.get("created_by"),
        created_at=dt(p.get("created_at")),
        updated_at=dt(p.get("updated_at")),
        superseded_at=dt(p.get("superseded_at")),
        superseded_by=p.get("superseded_by"),
        supersedes=p.get("supersedes"),
        retrieval_count=int(p.get("retrieval_count") or 0),
        last_retrieved_at=dt(p.get("last_retrieved_at")),
    )


@strawberry.type(
    description="One recalled memory: kind, text, score breakdown, provenance, and "
    "the full fact / episode / procedure for its kind."
)
class RecallItem:
    id: strawberry.ID
    kind: MemoryKind
    text: str
    score: ScoreBreakdown
    provenance: RecallProvenance
    fact: Fact | None
    episode: Episode | None
    procedure: Procedure | None


@strawberry.type
class RecallResult:
    items: list[RecallItem] = strawberry.field(description="Best first; may be empty.")
    weights: RecallWeights = strawberry.field(description="The normalised weights used.")
    as_of: datetime
    valid_at: datetime
    considered: int = strawberry.field(description="Candidates found before thresholds.")
    below_threshold: int


@strawberry.type
class ContextItem:
    id: strawberry.ID
    kind: MemoryKind
    score: float
    tokens: int
    reason: str | None = strawberry.field(description="Why it was dropped (over_budget).")


@strawberry.type
class ContextResult:
    text: str = strawberry.field(description="Facts, then episodes, then procedures.")
    tokens: int = strawberry.field(description="Tokens in text; never above tokenBudget.")
    token_budget: int
    tokenizer: str
    included: list[ContextItem]
    dropped: list[ContextItem]
    as_of: datetime | None
    valid_at: datetime | None


@strawberry.type
class UpsertProcedureResult:
    action: str = strawberry.field(description="created | new_version | unchanged")
    procedure: Procedure


@strawberry.type
class ProcedureOutcomeResult:
    procedure: Procedure
    status_before: str
    status: str


def _item(s: Scored) -> RecallItem:
    rec = s.record
    ev = [
        ProvenanceEpisode(
            episode_id=strawberry.ID(e["episode_id"]),
            session_id=e.get("session_id"),
            user_id=e.get("user_id"),
            weight=e.get("weight"),
            success=e.get("success"),
            started_at=dt(e.get("started_at")),
            summary=e.get("summary"),
            source=e.get("source"),
        )
        for e in s.evidence
    ]
    times = MemoryTimes(
        fresh_at=s.fresh_at,
        **{
            k: dt(rec.get(k))
            for k in (
                "recorded_at",
                "valid_from",
                "valid_to",
                "superseded_at",
                "retracted_at",
                "expires_at",
                "started_at",
                "ended_at",
                "created_at",
                "updated_at",
                "last_retrieved_at",
            )
        },
    )
    contributors = r.evidence_summary(s.evidence)["contributors"]
    text = str(rec.get("text") or rec.get("summary") or rec.get("caption") or "")
    return RecallItem(
        id=strawberry.ID(s.id),
        kind=MemoryKind(s.kind),
        text=text,
        score=ScoreBreakdown(
            vector=s.similarity,
            keyword=s.keyword,
            recency=s.recency,
            confidence=s.confidence,
            tier_boost=s.tier_boost,
            total=s.total,
        ),
        provenance=RecallProvenance(episodes=ev, contributors=contributors, times=times),
        fact=fact_from_record(rec) if s.kind == "fact" else None,
        episode=episode_from_record(rec) if s.kind == "episode" else None,
        procedure=procedure_from_record(rec) if s.kind == "procedure" else None,
    )


def _packed(p: Packed) -> ContextItem:
    return ContextItem(
        id=strawberry.ID(p.id),
        kind=MemoryKind(p.kind),
        score=p.score,
        tokens=p.tokens,
        reason=p.reason,
    )


def _request(
    query: str,
    scopes: list[str],
    k: int,
    over_recall: int,
    weights: RecallWeightsInput | None,
    kinds: list[MemoryKind] | None,
    tiers: list[TrustTier] | None,
    **kw: Any,
) -> RecallRequest:
    w = weights or RecallWeightsInput()
    return RecallRequest(
        query=query,
        scopes=tuple(scopes),
        k=k,
        over_recall=over_recall,
        weights=Weights(w.vector, w.keyword, w.recency, w.confidence),
        kinds=tuple(k.value for k in (kinds or _ALL_KINDS)),
        tiers=tuple(t.value for t in tiers) if tiers else None,
        **kw,
    )


def _services(info: Info[Any, None]) -> tuple[RecallService, ContextService, ProcedureService]:
    s = info.context.services
    if s.recall is None or s.context is None or s.procedures is None:
        raise RuntimeError("recall services are not wired in the container")
    return s.recall, s.context, s.procedures


@strawberry.type
class RecallQuery:
    @strawberry.field(
        description="Hybrid recall (vector 0.5, keyword 0.2, recency 0.2, "
        "confidence 0.1 by default): over-recall, rescore, best k. Superseded, "
        "expired, unverified and candidate memories are left out unless asked "
        "for or believed at asOf. An empty list is a valid answer."
    )
    async def recall(
        self,
        info: Info[Any, None],
        query: str,
        scopes: list[str],
        k: int = 5,
        over_recall: int = 20,
        weights: RecallWeightsInput | None = None,
        kinds: list[MemoryKind] | None = None,
        tiers: list[TrustTier] | None = None,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        min_score: float = r.DEFAULT_MIN_SCORE,
        min_confidence: float = r.DEFAULT_MIN_CONFIDENCE,
        min_similarity: float = r.DEFAULT_MIN_SIMILARITY,
        half_life_days: float = r.DEFAULT_HALF_LIFE_DAYS,
        include_candidates: bool = False,
        include_expired: bool = False,
        include_unverified: bool = False,
        intent: str | None = None,
        role: str | None = None,
    ) -> RecallResult:
        recall, _, _ = _services(info)
        req = _request(
            query,
            scopes,
            k,
            over_recall,
            weights,
            kinds,
            tiers,
            as_of=as_of,
            valid_at=valid_at,
            min_score=min_score,
            min_confidence=min_confidence,
            min_similarity=min_similarity,
            half_life_days=half_life_days,
            include_candidates=include_candidates,
            include_expired=include_expired,
            include_unverified=include_unverified,
            intent=intent,
            role=role,
        )
        res = await recall.recall(info.context.principal, req)
        w = res.weights
        return RecallResult(
            items=[_item(s) for s in res.items],
            weights=RecallWeights(
                vector=w.vector, keyword=w.keyword, recency=w.recency, confidence=w.confidence
            ),
            as_of=res.as_of,
            valid_at=res.valid_at,
            considered=res.considered,
            below_threshold=res.below_threshold,
        )

    @strawberry.field(
        description="Working memory: facts, then episodes, then procedures "
        "packed into at most tokenBudget tokens; what did not fit is listed."
    )
    async def context(
        self,
        info: Info[Any, None],
        query: str,
        token_budget: int,
        scopes: list[str],
        k: int = 10,
        over_recall: int = 20,
        weights: RecallWeightsInput | None = None,
        kinds: list[MemoryKind] | None = None,
        tiers: list[TrustTier] | None = None,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        min_score: float = r.DEFAULT_MIN_SCORE,
        min_confidence: float = r.DEFAULT_MIN_CONFIDENCE,
        min_similarity: float = r.DEFAULT_MIN_SIMILARITY,
        half_life_days: float = r.DEFAULT_HALF_LIFE_DAYS,
        intent: str | None = None,
        role: str | None = None,
    ) -> ContextResult:
        _, context, _ = _services(info)
        req = _request(
            query,
            scopes,
            k,
            over_recall,
            weights,
            kinds,
            tiers,
            as_of=as_of,
            valid_at=valid_at,
            min_score=min_score,
            min_confidence=min_confidence,
            min_similarity=min_similarity,
            half_life_days=half_life_days,
            intent=intent,
            role=role,
        )
        pack = await context.context(info.context.principal, req, token_budget)
        return ContextResult(
            text=pack.text,
            tokens=pack.tokens,
            token_budget=pack.budget,
            tokenizer=pack.tokenizer,
            included=[_packed(p) for p in pack.included],
            dropped=[_packed(p) for p in pack.dropped],
            as_of=pack.as_of,
            valid_at=pack.valid_at,
        )

    @strawberry.field(
        description="Procedures for exactly this intent (and role), current at "
        "asOf, best proven first. Demoted ones are never served."
    )
    async def procedures(
        self,
        info: Info[Any, None],
        intent: str,
        scopes: list[str],
        role: str | None = None,
        include_candidates: bool = False,
        as_of: datetime | None = None,
        first: int = 10,
    ) -> list[Procedure]:
        _, _, procedures = _services(info)
        rows = await procedures.list(
            info.context.principal,
            intent=intent,
            scopes=scopes,
            role=role,
            include_candidates=include_candidates,
            as_of=as_of,
            limit=first,
        )
        return [procedure_from_record(p) for p in rows]


@strawberry.type
class ProcedureMutation:
    @strawberry.mutation(
        description="Write the steps for (scope, intent, role). Changed steps "
        "make a new version that SUPERSEDES the previous one. Agent-written "
        "versions start as candidates; admin-written ones start active."
    )
    async def upsert_procedure(
        self,
        info: Info[Any, None],
        intent: str,
        role: str,
        steps: list[str],
        scope: str,
        description: str | None = None,
    ) -> UpsertProcedureResult:
        require_role(info.context.principal, *_WRITERS)
        _, _, procedures = _services(info)
        res = await procedures.upsert(
            info.context.principal,
            intent=intent,
            role=role,
            steps=steps,
            scope=scope,
            description=description,
        )
        return UpsertProcedureResult(
            action=res.action, procedure=procedure_from_record(res.procedure)
        )

    @strawberry.mutation(
        description="Evidence: following the procedure in this episode "
        "succeeded or failed. 3 successes promote a candidate; failures "
        "outnumbering successes by 3 demote it."
    )
    async def record_procedure_outcome(
        self,
        info: Info[Any, None],
        id: strawberry.ID,
        success: bool,
        episode_id: strawberry.ID,
    ) -> ProcedureOutcomeResult:
        require_role(info.context.principal, *_WRITERS)
        _, _, procedures = _services(info)
        res = await procedures.record_outcome(
            info.context.principal, str(id), success, str(episode_id)
        )
        return ProcedureOutcomeResult(
            procedure=procedure_from_record(res.procedure),
            status_before=res.status_before,
            status=res.status,
        )
