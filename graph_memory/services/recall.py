"""Hybrid recall: vector + full-text candidates, over-recalled, rescored, cut to the best k.

Score (every item reports each part, so the total can be recomputed by hand)::

    total = w.vector * similarity + w.keyword * keyword + w.recency * recency
            + w.confidence * confidence + tier_boost

* similarity: cosine of query and memory, clamped to [0, 1]. Neo4j reports cosine as
  (1 + cos) / 2, which puts unrelated text near 0.5; we map it back so 0 means unrelated.
* keyword: the Lucene score divided by the best Lucene score among candidates of that kind.
* recency: ``0.5 ** (age / half_life)``, a true half-life: a memory half_life old scores 0.5.
  Age runs from when the memory became true (fact validFrom, episode end, procedure update)
  to validAt.
* confidence: the memory's own (facts, episodes); procedures use their Laplace-smoothed
  success rate, so one lucky run does not look proven.
* tier_boost (facts only): ``TIER_BOOST``. A system fact outranks any user fact whose other
  parts score less than 0.1 higher, i.e. any user fact of similar relevance.

Weights are normalised to sum 1 so ``minScore`` keeps its meaning whatever weights are given.
Time: ``asOf`` (belief) and ``validAt`` (world) default to now; candidates must be in force
at both, with the same rule as ``facts``.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import Principal, Status, Tier, ft_token, parse_scope, require_aware, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import ValidationError
from graph_memory.repositories.recall import RecallRepository
from graph_memory.services.bookkeeping import RetrievalBookkeeper

__all__ = [
    "KINDS",
    "TIER_BOOST",
    "RecallRequest",
    "RecallResult",
    "RecallService",
    "Scored",
    "Weights",
    "build_lucene",
    "escape_lucene",
    "query_terms",
    "recency",
]

KINDS = ("fact", "episode", "procedure")
TIER_BOOST: dict[str, float] = {
    Tier.SYSTEM.value: 0.10, Tier.ADMIN.value: 0.05, Tier.USER.value: 0.0,
    Tier.INFERRED.value: -0.05,
}
MAX_K = 100
MAX_OVER_RECALL = 500
MAX_QUERY_TERMS = 32
# Defaults tuned to the score's meaning, not to any dataset. An item must first be a match at
# all (similarity >= MIN_SIMILARITY, or a keyword hit): the vector index always returns its k
# nearest however far they are, and MiniLM puts unrelated sentences below ~0.2 cosine.
DEFAULT_MIN_SIMILARITY = 0.25
# Then its total must reach MIN_SCORE: a match that is neither close, fresh nor confident is
# noise in an agent's context ("return little but precise").
DEFAULT_MIN_SCORE = 0.25
# Below this the memory itself doubts the item.
DEFAULT_MIN_CONFIDENCE = 0.2
DEFAULT_HALF_LIFE_DAYS = 30.0
# A procedure is served only for a matching intent: named exactly, or, without one, a close
# semantic match of the query to the procedure's intent (its embedding is of the intent).
PROCEDURE_MIN_SIMILARITY = 0.45

# Lucene's classic query syntax: each of these must be backslash-escaped in user text.
_LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/<>')
_WORD = re.compile(r"\w", re.UNICODE)
# Lucene's English stop set plus the question words agents phrase queries with. The index
# keeps stop words (standard-no-stop-words), so dropping them here keeps "what" and "the"
# from turning every memory into a keyword hit.
_STOP = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with what which who whom whose where when why how "
    "do does did i me my we our you your he she him her his its has have had can could should "
    "would about any some tell know from".split()
)


def escape_lucene(term: str) -> str:
    """Backslash every Lucene special character, so user text is only ever terms."""
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in term)


def query_terms(query: str) -> list[str]:
    """Distinct lower-cased words worth matching: no stop words, no bare punctuation.

    Lower-casing also turns AND/OR/NOT/TO into plain words instead of Lucene operators.
    """
    out: list[str] = []
    for raw in query.lower().split():
        bare = "".join(c for c in raw if c.isalnum())
        if not _WORD.search(raw) or bare in _STOP or raw in out:
            continue
        out.append(raw)
    return out[:MAX_QUERY_TERMS]


def build_lucene(tenant: str, scopes: Sequence[str], query: str) -> str | None:
    """``+ft_scope:(tokens)^0 +text:(words)``, or None when the query has no usable words.

    The scope clause is a required filter worth no score (``^0``): its idf differs between
    scopes of different sizes and must not rank one user's memories above another's.
    """
    terms = query_terms(query)
    if not terms:
        return None
    tokens = " ".join(ft_token(tenant, s) for s in scopes)
    words = " ".join(escape_lucene(t) for t in terms)
    return f"+ft_scope:({tokens})^0 +text:({words})"


def recency(age_seconds: float, half_life_days: float) -> float:
    """1.0 for a memory made now, 0.5 at one half-life; the future counts as now."""
    return 0.5 ** (max(age_seconds, 0.0) / (half_life_days * 86_400.0))


@dataclass(frozen=True)
class Weights:
    vector: float = 0.5
    keyword: float = 0.2
    recency: float = 0.2
    confidence: float = 0.1

    def normalised(self) -> Weights:
        parts = (self.vector, self.keyword, self.recency, self.confidence)
        if any(p < 0 or not math.isfinite(p) for p in parts) or sum(parts) <= 0:
            raise ValidationError("weights must be finite, >= 0 and not all 0", field="weights")
        s = sum(parts)
        return Weights(*(round(p / s, 6) for p in parts))


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
    min_similarity: float = DEFAULT_MIN_SIMILARITY
    half_life_days: float = DEFAULT_HALF_LIFE_DAYS
    include_candidates: bool = False
    include_expired: bool = False
    include_unverified: bool = False
    intent: str | None = None
    role: str | None = None


@dataclass
class Scored:
    kind: str
    id: str
    record: Record
    similarity: float
    keyword: float
    recency: float
    confidence: float
    tier_boost: float
    total: float
    fresh_at: datetime | None
    tier_rank: int = 0
    evidence: list[Record] = field(default_factory=list)


@dataclass
class RecallResult:
    items: list[Scored]
    weights: Weights
    as_of: datetime
    valid_at: datetime
    considered: int = 0
    below_threshold: int = 0


def normalise_intent(intent: str) -> str:
    return "_".join(intent.strip().lower().split())


class RecallService:
    def __init__(self, repo: RecallRepository, embedder: Embedder,
                 bookkeeper: RetrievalBookkeeper | None = None) -> None:
        self.repo = repo
        self.embedder = embedder
        self.bookkeeper = bookkeeper

    def _check(self, req: RecallRequest) -> RecallRequest:
        if not req.query.strip():
            raise ValidationError("query is empty", field="query")
        if not req.scopes:
            raise ValidationError("at least one scope (user:<id>, team:<id>, tenant) is "
                                  "required", field="scopes")
        if not 1 <= req.k <= MAX_K:
            raise ValidationError(f"k must be in 1..{MAX_K}", field="k")
        if not 1 <= req.over_recall <= MAX_OVER_RECALL:
            raise ValidationError(f"overRecall must be in 1..{MAX_OVER_RECALL}",
                                  field="overRecall")
        if not req.half_life_days > 0:
            raise ValidationError("halfLifeDays must be > 0", field="halfLifeDays")
        bad = [k for k in req.kinds if k not in KINDS]
        if bad or not req.kinds:
            raise ValidationError(f"kinds must be among {list(KINDS)}", field="kinds")
        return replace(
            req, scopes=tuple(dict.fromkeys(parse_scope(s) for s in req.scopes)),
            weights=req.weights.normalised(),
            as_of=require_aware(req.as_of, "asOf"), valid_at=require_aware(req.valid_at, "validAt"),
            intent=normalise_intent(req.intent) if req.intent else None,
            role=req.role.strip().lower() if req.role else None,
        )

    async def rank(self, principal: Principal, request: RecallRequest,
                   per_kind: int | None = None) -> RecallResult:
        """Every candidate that passes the thresholds, best first (per_kind caps each kind).

        Raises ValidationError for bad arguments, ScopeMissing without scopes.
        """
        req = self._check(request)
        now = utcnow()
        as_of, valid_at = req.as_of or now, req.valid_at or now
        vector = await self.embedder.embed_query(req.query.strip())
        lucene = build_lucene(principal.tenant, req.scopes, req.query)
        limit = max(req.over_recall, req.k if per_kind is None else per_kind)
        scopes = list(req.scopes)
        tenant = principal.tenant
        statuses = [Status.ACTIVE.value, Status.SUPERSEDED.value, Status.RETRACTED.value]
        if req.include_candidates:
            statuses.append(Status.CANDIDATE.value)
        if req.include_expired:
            statuses.append(Status.EXPIRED.value)
        proc_statuses = ["active", "candidate"] if req.include_candidates else ["active"]

        async def none() -> list[Record]:
            return []

        fetched = await asyncio.gather(
            self.repo.facts(
                tenant, scopes, vector=vector, k=limit, lucene=lucene, statuses=statuses,
                as_of=as_of, valid_at=valid_at, include_expired=req.include_expired,
                include_unverified=req.include_unverified,
                tiers=list(req.tiers) if req.tiers else None,
            ) if "fact" in req.kinds else none(),
            self.repo.episodes(
                tenant, scopes, vector=vector, k=limit, lucene=lucene, as_of=as_of,
                valid_at=valid_at,
            ) if "episode" in req.kinds else none(),
            self.repo.procedures(
                tenant, scopes, vector=vector, k=limit, lucene=lucene, statuses=proc_statuses,
                as_of=as_of, intent=req.intent, role=req.role,
            ) if "procedure" in req.kinds else none(),
        )
        considered = sum(len(rows) for rows in fetched)
        scored: list[Scored] = []
        for kind, rows in zip(KINDS, fetched, strict=True):
            scored += [s for s in self._score(kind, rows, req, valid_at)
                       if self._passes(s, req)]
        scored.sort(key=lambda s: (-s.total, -s.tier_rank, s.id))
        if per_kind is not None:
            seen: dict[str, int] = {}
            kept = []
            for s in scored:
                seen[s.kind] = seen.get(s.kind, 0) + 1
                if seen[s.kind] <= per_kind:
                    kept.append(s)
            scored = kept
        return RecallResult(items=scored, weights=req.weights, as_of=as_of, valid_at=valid_at,
                            considered=considered, below_threshold=considered - len(scored))

    async def recall(self, principal: Principal, request: RecallRequest) -> RecallResult:
        """The best k memories with score breakdown and provenance; may be empty.

        Retrieval counts are recorded in the background (never on this request's path).
        """
        result = await self.rank(principal, request)
        result.items = result.items[:request.k]
        await self.attach_provenance(principal.tenant, result.items)
        self.note_retrieved(principal.tenant, result.items)
        return result

    async def attach_provenance(self, tenant: str, items: list[Scored]) -> None:
        by_kind = {k: [s.id for s in items if s.kind == k] for k in KINDS}
        found = await self.repo.provenance(tenant, facts=by_kind["fact"],
                                           episodes=by_kind["episode"],
                                           procedures=by_kind["procedure"])
        for s in items:
            s.evidence = list(found.get(s.id, []))

    def note_retrieved(self, tenant: str, items: Sequence[Scored]) -> None:
        if self.bookkeeper is not None and items:
            self.bookkeeper.record(tenant, [(s.kind, s.id) for s in items], utcnow())

    @staticmethod
    def _passes(s: Scored, req: RecallRequest) -> bool:
        if s.confidence < req.min_confidence or s.total < req.min_score:
            return False
        if s.kind == "procedure":
            # Named intent: matched exactly in the query. Otherwise the intent must be close.
            return req.intent is not None or s.similarity >= PROCEDURE_MIN_SIMILARITY
        return s.similarity >= req.min_similarity or s.keyword > 0

    @staticmethod
    def _score(kind: str, rows: list[Record], req: RecallRequest,
               valid_at: datetime) -> list[Scored]:
        w = req.weights
        best_kw = max((float(r["keyword"] or 0.0) for r in rows), default=0.0)
        out = []
        for r in rows:
            rec: Record = r[kind]
            # Index cosine is (1 + cos) / 2; back to cos, negatives (opposites) count as 0.
            sim = min(max(2.0 * float(r["similarity"] or 0.5) - 1.0, 0.0), 1.0)
            kw = float(r["keyword"] or 0.0) / best_kw if best_kw > 0 else 0.0
            fresh = _fresh_at(kind, rec)
            rec_score = recency((valid_at - fresh).total_seconds(), req.half_life_days) \
                if fresh else 0.0
            conf = _confidence(kind, rec)
            boost = TIER_BOOST.get(str(rec.get("tier")), 0.0) if kind == "fact" else 0.0
            total = (w.vector * sim + w.keyword * kw + w.recency * rec_score
                     + w.confidence * conf + boost)
            out.append(Scored(
                kind=kind, id=str(rec["id"]), record=rec, similarity=round(sim, 6),
                keyword=round(kw, 6), recency=round(rec_score, 6), confidence=round(conf, 6),
                tier_boost=boost, total=round(total, 6), fresh_at=fresh,
                tier_rank=int(rec.get("tier_rank") or 0),
            ))
        return out


def _fresh_at(kind: str, rec: Record) -> datetime | None:
    keys = {"fact": ("valid_from", "recorded_at"), "episode": ("ended_at", "started_at",
                                                               "recorded_at"),
            "procedure": ("updated_at", "created_at")}[kind]
    for key in keys:
        value = dt(rec.get(key))
        if value is not None:
            return value
    return None


def dt(value: Any) -> datetime | None:
    """A driver DateTime (or a datetime) as a native aware datetime."""
    if value is None:
        return None
    if hasattr(value, "to_native"):
        native: datetime = value.to_native()
        return native
    return value if isinstance(value, datetime) else None


def _confidence(kind: str, rec: Record) -> float:
    if kind == "procedure":
        wins, losses = int(rec.get("success_count") or 0), int(rec.get("failure_count") or 0)
        return (wins + 1) / (wins + losses + 2)
    return float(rec.get("confidence") or 0.0)


def evidence_summary(evidence: list[Record]) -> dict[str, Any]:
    """Distinct contributors of the supporting episodes, in order of first appearance."""
    users = [str(e["user_id"]) for e in evidence if e.get("user_id")]
    return {"contributors": list(dict.fromkeys(users))}
