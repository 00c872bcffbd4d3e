"""Recall, context packing and procedural memory over GraphQL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.domain import Role
from graph_memory.graphql.context import require_role
from graph_memory.graphql.inputs import prebuilt
from graph_memory.graphql.types.fact import TrustTier
from graph_memory.graphql.types.recall import (
    ALL_KINDS,
    ContextResult,
    MemoryKind,
    Procedure,
    ProcedureOutcomeResult,
    RecallResult,
    RecallWeights,
    UpsertProcedureResult,
    context_item,
    floor_drops,
    procedure_from_record,
    recall_item,
)
from graph_memory.services.procedures.service import ProcedureService
from graph_memory.services.recall import service as r
from graph_memory.services.recall.context_pack import ContextService
from graph_memory.services.recall.ranking import Weights
from graph_memory.services.recall.service import RecallRequest, RecallService

__all__ = ["ProcedureMutation", "RecallQuery"]

_WRITERS = (Role.AGENT, Role.ADMIN)


@prebuilt()
@strawberry.input(description="Score weights; normalised to sum 1, so minScore keeps its meaning.")
class RecallWeightsInput:
    vector: float = 0.5
    keyword: float = 0.2
    recency: float = 0.2
    confidence: float = 0.1


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
        # Omitted means every kind / tier; an empty list is a question for nothing, which the
        # service refuses (it is almost always a client bug, never "all").
        kinds=tuple(k.value for k in (ALL_KINDS if kinds is None else kinds)),
        tiers=None if tiers is None else tuple(t.value for t in tiers),
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
        "confidence 0.1 by default, each signal normalised within the candidates): "
        "over-recall, rescore, best k; the reply that follows a matched question in its "
        "session is served with it. Floors: minRelevance on the raw cosine (or a keyword "
        "hit covering that share of the query's words) decides whether there is an answer "
        "(when one memory reaches it, the others need not); relativeRelevance on the "
        "candidates' scale (share of the best normalised vector or keyword score); "
        "minScore on the normalised total. Superseded, expired, unverified and candidate "
        "memories are left out unless asked for or believed at asOf. An empty list is a "
        "valid answer. Each recall weighs 10,000 in the query cost limit (QUERY_TOO_COMPLEX "
        "past 100,000 by default)."
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
        min_relevance: float = r.DEFAULT_MIN_RELEVANCE,
        relative_relevance: float = r.DEFAULT_RELATIVE_RELEVANCE,
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
            min_relevance=min_relevance,
            relative_relevance=relative_relevance,
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
            items=[recall_item(s, as_of) for s in res.items],
            weights=RecallWeights(
                vector=w.vector, keyword=w.keyword, recency=w.recency, confidence=w.confidence
            ),
            as_of=res.as_of,
            valid_at=res.valid_at,
            considered=res.considered,
            below_threshold=res.below_threshold,
            floor_drops=floor_drops(res.floors),
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
        min_relevance: float = r.DEFAULT_MIN_RELEVANCE,
        relative_relevance: float = r.DEFAULT_RELATIVE_RELEVANCE,
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
            min_relevance=min_relevance,
            relative_relevance=relative_relevance,
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
            included=[context_item(p) for p in pack.included],
            dropped=[context_item(p) for p in pack.dropped],
            as_of=pack.as_of,
            valid_at=pack.valid_at,
            floor_drops=floor_drops(pack.floors) if pack.floors else None,
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
