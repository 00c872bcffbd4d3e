"""Hybrid recall: vector + full-text candidates, over-recalled, rescored, cut to the best k.

The score and its parts are described in ``services/ranking.py``. What is returned ("little but
precise"): a memory must first *match* — its relevance, max(similarity, keyword), at least
``minRelevance`` and at least ``relativeRelevance`` times the best match's (shared names lift
MiniLM cosines of unrelated sentences to ~0.5, so only a relative cut separates them from a
real answer) — then reach ``minScore`` and ``minConfidence``. Procedures match on their intent
only (``PROCEDURE_MIN_SIMILARITY``, or the intent named exactly). An empty answer is valid.

Time: ``asOf`` (belief) and ``validAt`` (world) default to now; candidates must be in force at
both, with the same rule as ``facts``: superseded, retracted and expired facts drop out unless
believed at asOf, candidates and unverified facts unless asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from graph_memory.db import Record
from graph_memory.domain import SERVABLE_STATUSES, Principal, parse_scope, require_aware, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import ValidationError
from graph_memory.repositories.recall import RecallRepository
from graph_memory.services.belief import as_believed_at, held_at, procedure_as_of
from graph_memory.services.bookkeeping import RetrievalBookkeeper
from graph_memory.services.ranking import (
    Scored,
    Weights,
    build_lucene,
    mask_names,
    name_keys,
    query_terms,
    score_rows,
    settle_conflicts,
)

__all__ = [
    "CONTENT_SHARE",
    "CONTENT_TERMS",
    "DEFAULT_HALF_LIFE_DAYS",
    "DEFAULT_MIN_CONFIDENCE",
    "DEFAULT_MIN_RELEVANCE",
    "DEFAULT_MIN_SCORE",
    "DEFAULT_RELATIVE_RELEVANCE",
    "KINDS",
    "PROCEDURE_MIN_SIMILARITY",
    "RecallRequest",
    "RecallResult",
    "RecallService",
]

KINDS = ("fact", "episode", "procedure")
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
# A match that is neither close, fresh nor confident is noise in an agent's context.
DEFAULT_MIN_SCORE = 0.3
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


@dataclass
class RecallResult:
    items: list[Scored]
    weights: Weights
    as_of: datetime
    valid_at: datetime
    considered: int = 0
    below_threshold: int = 0


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


class RecallService:
    def __init__(
        self,
        repo: RecallRepository,
        embedder: Embedder,
        bookkeeper: RetrievalBookkeeper | None = None,
    ) -> None:
        self.repo = repo
        self.embedder = embedder
        self.bookkeeper = bookkeeper

    async def rank(
        self, principal: Principal, request: RecallRequest, per_kind: int | None = None
    ) -> RecallResult:
        """Every candidate that passes the thresholds, best first (per_kind caps each kind).

        Raises ValidationError for bad arguments.
        """
        req = checked(request)
        now = utcnow()
        as_of, valid_at = req.as_of or now, req.valid_at or now
        query = req.query.strip()
        vector, names = await asyncio.gather(
            self.embedder.embed_query(query),
            self.repo.entity_names(principal.tenant, list(req.scopes), name_keys(query)),
        )
        # What the query asks beyond the entity names it mentions (services/ranking.py,
        # "content relevance"): keyword relevance counts only those words, and when they say
        # something specific (two words or more) a memory must match them too.
        content_query = mask_names(query, names) if req.min_relevance > 0 else None
        content_vector = (
            await self.embedder.embed_query(content_query)
            if content_query is not None and len(query_terms(content_query)) >= CONTENT_TERMS
            else None
        )
        fetched = await self._candidates(
            principal.tenant, req, (vector, content_vector), as_of, valid_at, per_kind
        )
        considered = sum(len(rows) for rows in fetched)
        scored: list[Scored] = []
        for kind, rows in zip(KINDS, fetched, strict=True):
            scored += [
                s
                for s in score_rows(
                    kind,
                    rows,
                    query=req.query,
                    weights=req.weights,
                    half_life_days=req.half_life_days,
                    valid_at=valid_at,
                    content_query=content_query,
                )
                if self._passes(s, req)
            ]
        best = max((s.relevance for s in scored), default=0.0)
        # A named intent is matched exactly, whatever the query's words: no relative cut.
        scored = [
            s
            for s in scored
            if s.relevance >= req.relative_relevance * best
            or (s.kind == "procedure" and req.intent is not None)
        ]
        scored.sort(key=lambda s: (-s.total, -s.tier_rank, s.id))
        scored = settle_conflicts(scored)
        below = considered - len(scored)
        if per_kind is not None:
            seen = dict.fromkeys(KINDS, 0)
            kept = []
            for s in scored:
                seen[s.kind] += 1
                if seen[s.kind] <= per_kind:
                    kept.append(s)
            scored = kept
        return RecallResult(
            items=scored,
            weights=req.weights,
            as_of=as_of,
            valid_at=valid_at,
            considered=considered,
            below_threshold=below,
        )

    async def _candidates(
        self,
        tenant: str,
        req: RecallRequest,
        vectors: tuple[list[float], list[float] | None],
        as_of: datetime,
        valid_at: datetime,
        per_kind: int | None,
    ) -> list[list[Record]]:
        """Raw candidates per kind (in KINDS order), the three searches run concurrently.
        ``vectors``: the query's embedding and that of the query without entity names."""
        vector, content_vector = vectors
        lucene = build_lucene(tenant, req.scopes, req.query)
        limit = max(req.over_recall, req.k if per_kind is None else per_kind)
        scopes = list(req.scopes)
        statuses = list(SERVABLE_STATUSES)

        need = req.k if per_kind is None else per_kind
        Search = Callable[[int], Awaitable[tuple[list[Record], int]]]
        searches: dict[str, Search] = {
            "fact": lambda k: self.repo.facts(
                tenant,
                scopes,
                vector=vector,
                content_vector=content_vector,
                k=k,
                lucene=lucene,
                statuses=statuses,
                include_candidates=req.include_candidates,
                as_of=as_of,
                valid_at=valid_at,
                include_expired=req.include_expired,
                include_unverified=req.include_unverified,
                tiers=list(req.tiers) if req.tiers else None,
            ),
            "episode": lambda k: self.repo.episodes(
                tenant,
                scopes,
                vector=vector,
                content_vector=content_vector,
                k=k,
                lucene=lucene,
                as_of=as_of,
                valid_at=valid_at,
            ),
            "procedure": lambda k: self.repo.procedures(
                tenant,
                scopes,
                vector=vector,
                k=k,
                lucene=lucene,
                statuses=["active", "candidate"] if req.include_candidates else ["active"],
                as_of=as_of,
                intent=req.intent,
                role=req.role,
            ),
        }

        async def widening(search: Search) -> list[Record]:
            # The indexes rank before the in-force filter runs: superseded versions of a long
            # history (or other intents' procedures) can fill the whole top k. Ask again with
            # a larger k while the filter left too few and the searches had more to give.
            k = limit
            rows, raw = await search(k)
            while len(rows) < need and raw >= k and k < MAX_WIDENED:
                k = min(k * WIDEN_FACTOR, MAX_WIDENED)
                rows, raw = await search(k)
            return rows

        async def none() -> list[Record]:
            return []

        return list(
            await asyncio.gather(
                *(widening(searches[kind]) if kind in req.kinds else none() for kind in KINDS)
            )
        )

    async def recall(self, principal: Principal, request: RecallRequest) -> RecallResult:
        """The best k memories with score breakdown and provenance; may be empty.

        Retrieval counts are recorded in the background (never on this request's path).
        """
        result = await self.rank(principal, request)
        result.items = await self.hydrate(
            principal.tenant, result.items[: request.k], request.as_of
        )
        self.note_retrieved(principal.tenant, result.items)
        return result

    async def hydrate(
        self, tenant: str, items: list[Scored], as_of: datetime | None = None
    ) -> list[Scored]:
        """Swap the lean candidate rows of ranked items for full records with provenance;
        a fact asked about as of a past moment shows the lifecycle it had then.

        An item deleted since it was ranked (a concurrent forget) is left out.
        """
        by_kind = {k: [s.id for s in items if s.kind == k] for k in KINDS}
        found = await self.repo.hydrate(
            tenant,
            facts=by_kind["fact"],
            episodes=by_kind["episode"],
            procedures=by_kind["procedure"],
        )
        out = []
        for s in items:
            if s.id in found:
                record, evidence = found[s.id]
                if as_of is not None and s.kind == "fact":
                    record = as_believed_at(record, as_of)
                    evidence = held_at(evidence, as_of)
                elif as_of is not None and s.kind == "procedure":
                    record = procedure_as_of(record, as_of)
                s.record, s.evidence = record, list(evidence)
                out.append(s)
        return out

    def note_retrieved(self, tenant: str, items: Sequence[Scored]) -> None:
        if self.bookkeeper is not None and items:
            self.bookkeeper.record(tenant, [(s.kind, s.id) for s in items], utcnow())

    @staticmethod
    def _passes(s: Scored, req: RecallRequest) -> bool:
        if s.confidence < req.min_confidence:
            return False
        if s.kind == "procedure" and req.intent is not None:
            # A named intent was matched exactly by the search, whatever the query's words:
            # a score floor made of word similarity must not hide it.
            return True
        if s.total < req.min_score:
            return False
        if s.kind == "procedure":
            return s.similarity >= PROCEDURE_MIN_SIMILARITY
        if s.content is not None and s.content < req.min_relevance * CONTENT_SHARE:
            # It shares a name with the query and little else.
            return False
        return s.relevance >= req.min_relevance
