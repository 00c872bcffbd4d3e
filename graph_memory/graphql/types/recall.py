"""Recall, context and procedure types: what recall returns and how it explains itself."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.graphql.convert import dt
from graph_memory.graphql.types.episode import Episode, episode_from_record
from graph_memory.graphql.types.fact import Fact, fact_from_version
from graph_memory.graphql.types.memo import Memo, memo_from_record
from graph_memory.services.recall.context_pack import Packed
from graph_memory.services.recall.ranking import Scored, evidence_contributors
from graph_memory.services.recall.request import FloorDrops as FloorDropsData
from graph_memory.versions import FactVersion

__all__ = [
    "ALL_KINDS",
    "ContextItem",
    "ContextResult",
    "FloorDrops",
    "MemoryKind",
    "Procedure",
    "ProcedureOutcomeResult",
    "RecallItem",
    "RecallResult",
    "RecallWeights",
    "UpsertProcedureResult",
    "context_item",
    "floor_drops",
    "procedure_from_record",
    "recall_item",
]


@strawberry.enum(description="What a recalled item is.")
class MemoryKind(Enum):
    FACT = "fact"
    EPISODE = "episode"
    PROCEDURE = "procedure"
    MEMO = "memo"


ALL_KINDS = [MemoryKind.FACT, MemoryKind.EPISODE, MemoryKind.PROCEDURE, MemoryKind.MEMO]


@strawberry.type
class RecallWeights:
    vector: float
    keyword: float
    recency: float
    confidence: float


@strawberry.type(
    description="total = Σ weight·part + tierBoost + context; every part is in [0, 1]. "
    "Parts are on the candidate pool's scale: the best candidate on a signal scores 1."
)
class ScoreBreakdown:
    vector: float = strawberry.field(
        description="Cosine similarity to the query / the best cosine among the candidates. "
        "When the query names a speaker of transcript turns and says more, the cosine is to "
        "the query without the names it mentions (cosine stays the whole query's)."
    )
    keyword: float = strawberry.field(
        description="Full-text (BM25) score / the best among candidates of its kind; when the "
        "query names known entities or speakers, times the share of its other words the memory "
        "contains."
    )
    recency: float = strawberry.field(
        description="decay * relevance: newness counts only as far as the memory matches "
        "(relevance = (w.vector * vector + w.keyword * keyword) / (w.vector + w.keyword)), so "
        "it reorders similar matches and never lifts an unrelated memory."
    )
    confidence: float = strawberry.field(
        description="Memory confidence (procedures: success rate, Laplace-smoothed)."
    )
    tier_boost: float = strawberry.field(
        description="Facts: the other parts times (tier multiplier - 1); multipliers "
        "system 1.2, admin 1.1, user 1, inferred 0.9."
    )
    context: float = strawberry.field(
        description="Episodes: the lift from the matched question this episode replies to "
        "(its NEXT predecessor in the session, named by the item's via); 0 otherwise."
    )
    salience: float = strawberry.field(
        default=1.0,
        description="Usage, kept apart from confidence: 1 for a memory in use, 0.8 once "
        "unretrieved for 30 days, halved per net harmful reportOutcome (floor 0.1). The "
        "parts before context are multiplied by it.",
    )
    cosine: float = strawberry.field(description="The raw cosine similarity, 0 = unrelated.")
    decay: float = strawberry.field(
        description="0.5^(age / halfLife), age measured up to the newest candidate "
        "(the scope's own activity), never past validAt. 1 for episodes (events do not age) "
        "and for questions that name a time (a year, a month, 'two weeks ago')."
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
    times: MemoryTimes
    evidence: strawberry.Private[list[dict[str, Any]]]

    @strawberry.field(
        description="Distinct contributors of the supporting episodes, first seen first; "
        "for a session token, only of the episodes it may read."
    )
    async def contributors(self, info: Info[Any, None]) -> list[str]:
        # The episodes a token may not read are left out of ``episodes`` (graphql/session_scope.py),
        # so their users are not named here either.
        ctx = info.context
        ids = [str(e["episode_id"]) for e in self.evidence]
        hidden = await ctx.services.scope_guard.outside(ctx.principal, ids) if ids else set()
        return evidence_contributors(
            [e for e in self.evidence if str(e["episode_id"]) not in hidden]
        )


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
    "the full fact / episode / procedure / memo (an extracted event or todo) for its kind."
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
    memo: Memo | None
    via: strawberry.ID | None = strawberry.field(
        description="For a reply served in place of the question it follows: the question's id."
    )
    via_text: str | None = strawberry.field(description="That question's text.")


@strawberry.type(
    description="How many candidates each floor left out (each counted at the first floor it "
    "failed, in this order); they add up to belowThreshold."
)
class FloorDrops:
    min_confidence: int
    min_score: int
    procedure_intent: int = strawberry.field(
        description="Procedures whose intent the query did not match closely enough."
    )
    content: int = strawberry.field(
        description="Memories sharing the query's entity names and little else."
    )
    min_relevance: int = strawberry.field(
        description="Memories under minRelevance when none reached it (once one does, the "
        "others are judged by relativeRelevance)."
    )
    relative_relevance: int


def floor_drops(f: FloorDropsData) -> FloorDrops:
    return FloorDrops(
        min_confidence=f.min_confidence,
        min_score=f.min_score,
        procedure_intent=f.procedure_intent,
        content=f.content,
        min_relevance=f.min_relevance,
        relative_relevance=f.relative_relevance,
    )


@strawberry.type
class RecallResult:
    items: list[RecallItem] = strawberry.field(description="Best first; may be empty.")
    weights: RecallWeights = strawberry.field(description="The normalised weights used.")
    as_of: datetime
    valid_at: datetime
    considered: int = strawberry.field(description="Candidates found before thresholds.")
    below_threshold: int = strawberry.field(
        description="Candidates left out as weak matches (relevance, score, confidence)."
    )
    floor_drops: FloorDrops = strawberry.field(description="belowThreshold, floor by floor.")


@strawberry.type
class ContextItem:
    id: strawberry.ID
    kind: MemoryKind
    score: float
    tokens: int
    reason: str | None = strawberry.field(description="Why it was dropped (over_budget).")


@strawberry.type
class ContextResult:
    text: str = strawberry.field(
        description="Facts, then episodes, then procedures, then events and todos."
    )
    tokens: int = strawberry.field(description="Tokens in text; never above tokenBudget.")
    token_budget: int
    tokenizer: str
    included: list[ContextItem]
    dropped: list[ContextItem]
    as_of: datetime | None
    valid_at: datetime | None
    floor_drops: FloorDrops | None = strawberry.field(
        description="Candidates each recall floor left out before packing."
    )


@strawberry.type
class UpsertProcedureResult:
    action: str = strawberry.field(description="created | new_version | unchanged")
    procedure: Procedure


@strawberry.type
class ProcedureOutcomeResult:
    procedure: Procedure
    status_before: str
    status: str


def _fact_times(v: FactVersion) -> dict[str, datetime | None]:
    return {
        "recorded_at": v.recorded_at,
        "valid_from": v.valid_from,
        "valid_to": v.valid_to,
        "superseded_at": v.superseded_at,
        "retracted_at": v.retracted_at,
        "expires_at": v.expires_at,
        "last_retrieved_at": v.last_retrieved_at,
    }


def recall_item(s: Scored, as_of: datetime | None = None) -> RecallItem:
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
    # A fact's lifecycle times as believed at asOf (the typed version); other kinds' as stored.
    lived = _fact_times(s.fact) if s.fact is not None else {}
    times = MemoryTimes(
        fresh_at=s.fresh_at,
        **{
            k: lived[k] if k in lived else dt(rec.get(k))
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
            context=s.context,
            salience=s.salience,
            cosine=s.cosine,
            decay=s.decay,
            total=s.total,
        ),
        provenance=RecallProvenance(episodes=ev, times=times, evidence=s.evidence),
        fact=fact_from_version(s.fact, as_of) if s.fact is not None else None,
        episode=episode_from_record(rec) if s.kind == "episode" else None,
        procedure=procedure_from_record(rec) if s.kind == "procedure" else None,
        memo=memo_from_record(rec, s.evidence, None) if s.kind == "memo" else None,
        via=strawberry.ID(s.via) if s.via else None,
        via_text=s.via_text,
    )


def context_item(p: Packed) -> ContextItem:
    return ContextItem(
        id=strawberry.ID(p.id),
        kind=MemoryKind(p.kind),
        score=p.score,
        tokens=p.tokens,
        reason=p.reason,
    )
