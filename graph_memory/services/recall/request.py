"""What a recall asks (validated) and what it answers with; the floors' defaults and why."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime

from graph_memory.domain import parse_scope, require_aware
from graph_memory.errors import ValidationError
from graph_memory.services.recall.ranking import Scored, Weights

__all__ = [
    "CONTENT_SHARE",
    "CONTENT_TERMS",
    "DEFAULT_HALF_LIFE_DAYS",
    "DEFAULT_MIN_CONFIDENCE",
    "DEFAULT_MIN_RELEVANCE",
    "DEFAULT_MIN_SCORE",
    "DEFAULT_RELATIVE_RELEVANCE",
    "KINDS",
    "MAX_K",
    "MAX_OVER_RECALL",
    "MAX_WIDENED",
    "PROCEDURE_MIN_SIMILARITY",
    "WIDEN_FACTOR",
    "FloorDrops",
    "RecallRequest",
    "RecallResult",
    "checked",
]

KINDS = ("fact", "episode", "procedure", "memo")
MAX_K = 100
# Widening of a search whose top k the in-force filter emptied (see RecallService._candidates).
WIDEN_FACTOR = 5
MAX_WIDENED = 500
MAX_OVER_RECALL = 500
# Defaults follow the score's meaning, not any dataset. The vector index always returns its k
# nearest however far; MiniLM puts unrelated sentences below ~0.1 cosine and ones sharing only
# a name at 0.3-0.55, so an absolute floor removes the first and a relative cut the second.
DEFAULT_MIN_RELEVANCE = 0.3
DEFAULT_RELATIVE_RELEVANCE = 0.5
# When the query names an entity, a memory must also reach this share of minRelevance on the
# rest of the query (ranking.content_relevance). Without the names MiniLM puts a memory that
# answers the question at ~0.2-0.65 cosine and one about something else at ~0.0-0.15, so half
# the floor (0.15 by default) keeps answers and drops what shares only the name; minRelevance 0
# turns it off.
CONTENT_SHARE = 0.5
# ... but only when the rest says something specific: "who is Alice's manager" leaves one word,
# too little for a sentence model to judge alone ("manager" vs "Alice reports to Bob").
CONTENT_TERMS = 2
# On the pool's scale a candidate that passes the relevance floors scores at least
# w.keyword * relativeRelevance (0.2 * 0.5 = 0.1: half the best keyword hit, no vector, no
# recency) plus its confidence part. minScore sits at that bound, so with the default weights it
# never cuts what the relevance floors keep (the old 0.3 on raw cosines cut about one real
# answer in five); it bites when weights or floors are changed, or asked higher on purpose.
DEFAULT_MIN_SCORE = 0.1
# Below this the memory itself doubts the item.
DEFAULT_MIN_CONFIDENCE = 0.2
DEFAULT_HALF_LIFE_DAYS = 30.0
# A procedure is served only for a matching intent: named exactly, or, without one, a close
# semantic match of the query to the procedure's intent (its embedding is of the intent).
PROCEDURE_MIN_SIMILARITY = 0.45


@dataclass(frozen=True)
class RecallRequest:
    query: str
    scopes: tuple[str, ...]
    k: int = 5
    over_recall: int = 20
    weights: Weights = field(default_factory=Weights)
    kinds: tuple[str, ...] = KINDS
    tiers: tuple[str, ...] | None = None
    as_of: datetime | None = None
    valid_at: datetime | None = None
    min_score: float = DEFAULT_MIN_SCORE
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    min_relevance: float = DEFAULT_MIN_RELEVANCE
    relative_relevance: float = DEFAULT_RELATIVE_RELEVANCE
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    include_candidates: bool = False
    include_expired: bool = False
    include_unverified: bool = False
    intent: str | None = None
    role: str | None = None


@dataclass(frozen=True)
class FloorDrops:
    """How many candidates each floor left out (each counted at the first floor it failed,
    in this order), so a short answer says why it is short."""

    min_confidence: int = 0
    min_score: int = 0
    # A procedure whose intent the query does not match closely enough.
    procedure_intent: int = 0
    # A memory sharing the query's entity names and little else (CONTENT_SHARE).
    content: int = 0
    min_relevance: int = 0
    relative_relevance: int = 0

    @property
    def total(self) -> int:
        return (
            self.min_confidence
            + self.min_score
            + self.procedure_intent
            + self.content
            + self.min_relevance
            + self.relative_relevance
        )


@dataclass
class RecallResult:
    items: list[Scored]
    weights: Weights
    as_of: datetime
    valid_at: datetime
    considered: int = 0
    below_threshold: int = 0
    floors: FloorDrops = field(default_factory=FloorDrops)


def _name(value: str) -> str:
    # Same normalisation as procedures' intent and role: lower_snake words.
    return "_".join(value.strip().lower().split())


def checked(req: RecallRequest) -> RecallRequest:
    """The request validated and normalised; raises ValidationError naming the field."""
    if not req.query.strip():
        raise ValidationError("query is empty", field="query")
    if not req.scopes:
        raise ValidationError(
            "at least one scope (user:<id>, team:<id>, tenant) is required", field="scopes"
        )
    if not 1 <= req.k <= MAX_K:
        raise ValidationError(f"k must be in 1..{MAX_K}", field="k")
    if not 1 <= req.over_recall <= MAX_OVER_RECALL:
        raise ValidationError(f"overRecall must be in 1..{MAX_OVER_RECALL}", field="overRecall")
    if not 0 <= req.relative_relevance <= 1:
        raise ValidationError("relativeRelevance must be in 0..1", field="relativeRelevance")
    if not req.half_life_days > 0:
        raise ValidationError("halfLifeDays must be > 0", field="halfLifeDays")
    if not req.kinds or any(k not in KINDS for k in req.kinds):
        raise ValidationError(f"kinds must be some of {list(KINDS)}", field="kinds")
    if req.tiers is not None and not req.tiers:
        raise ValidationError("tiers is empty: omit it for every tier", field="tiers")
    return replace(
        req,
        scopes=tuple(dict.fromkeys(parse_scope(s) for s in req.scopes)),
        weights=req.weights.normalised(),
        as_of=require_aware(req.as_of, "asOf"),
        valid_at=require_aware(req.valid_at, "validAt"),
        intent=_name(req.intent) if req.intent else None,
        role=_name(req.role) if req.role else None,
    )
