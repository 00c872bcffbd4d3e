"""Hybrid recall: vector + full-text candidates, over-recalled, rescored, cut to the best k.

The score and its parts are described in ``services/recall/ranking.py`` (signals normalised
within the candidate pool, ``services/recall/fusion.py``). What is returned ("little but precise"):
a memory
must first *match*, on two scales:

* absolute (``minRelevance``): its raw cosine, or a keyword hit covering that share of the
  query's words, reaches the floor. This is what lets an answer be empty: a pool of unrelated
  memories still has a best one, and only an absolute floor sees that it is no match. It
  decides whether there is an answer, not how long it is: once one candidate reaches it (and
  passes the other floors), the candidates below it that pass every other floor are judged by
  the relative one like the rest.
* relative to the pool (``relativeRelevance``): its relevance on the pool's scale (the better of
  its normalised vector and keyword parts, the best candidate's being 1) reaches that share of
  the best's. Half the best cosine or half the best BM25 keeps an answer that a look-alike
  outscores on one signal (shared names lift MiniLM cosines of unrelated sentences to ~0.5,
  which this cut still separates from a real answer at ~0.7 and above).

Then it must reach ``minScore`` (on the pool's scale too) and ``minConfidence``. Procedures match
on their intent only (``PROCEDURE_MIN_SIMILARITY``, or the intent named exactly). The episode
following a matched question in its session is served with it (``services/recall/neighbours.py``).
An empty answer is valid.

Time: ``asOf`` (belief) and ``validAt`` (world) default to now; candidates must be in force at
both, with the same rule as ``facts``: superseded, retracted and expired facts drop out unless
believed at asOf, candidates and unverified facts unless asked for.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from graph_memory.db import Record
from graph_memory.domain import TIER_CAP, Principal, Tier, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.repositories.recall import RecallRepository, Search
from graph_memory.services.facts.belief import (
    as_believed_at,
    confidence_at,
    held_at,
    procedure_as_of,
)
from graph_memory.services.read_basis import ReadBasis
from graph_memory.services.recall.bookkeeping import RetrievalBookkeeper
from graph_memory.services.recall.digest_members import lift_members
from graph_memory.services.recall.fusion import Pool, pool_of
from graph_memory.services.recall.keywords import TermStats, score_pool, with_keywords
from graph_memory.services.recall.neighbours import asks, lift_replies
from graph_memory.services.recall.ranking import (
    Scored,
    build_lucene,
    mask_names,
    name_keys,
    query_terms,
    score_rows,
    settle_conflicts,
)
from graph_memory.services.recall.request import (
    CONTENT_SHARE,
    CONTENT_TERMS,
    DEFAULT_HALF_LIFE_DAYS,
    DEFAULT_MIN_CONFIDENCE,
    DEFAULT_MIN_RELEVANCE,
    DEFAULT_MIN_SCORE,
    DEFAULT_RELATIVE_RELEVANCE,
    KINDS,
    MAX_WIDENED,
    PROCEDURE_MIN_SIMILARITY,
    WIDEN_FACTOR,
    FloorDrops,
    RecallRequest,
    RecallResult,
    checked,
)
from graph_memory.services.recall.withheld import rescore_withheld
from graph_memory.versions import Evidence, FactVersion

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


@dataclass(frozen=True)
class Scoring:
    """What a later pass (replies, digest members) is scored with, as the candidates were:
    the query's embedding, that of the query without its names (None when the vector part is
    on the whole query), the pool's scale and validAt."""

    vector: list[float]
    content_vector: list[float] | None
    pool: Pool
    valid_at: datetime
    # The candidates' term statistics, which a later pass's keyword scores use too.
    terms: TermStats


# A read as of a moment longer ago than this is a look at the past (a client's own "now" may
# lag the service's by clock skew and a round trip).
AUDIT_READ = timedelta(minutes=1)


class RecallService:
    def __init__(
        self,
        repo: RecallRepository,
        embedder: Embedder,
        basis: ReadBasis,
        bookkeeper: RetrievalBookkeeper | None = None,
    ) -> None:
        self.repo = repo
        self.embedder = embedder
        self.basis = basis
        self.bookkeeper = bookkeeper

    async def rank(
        self, principal: Principal, request: RecallRequest, per_kind: int | None = None
    ) -> RecallResult:
        """Every candidate that passes the thresholds, best first (per_kind caps each kind).

        Raises ValidationError for bad arguments.
        """
        req = checked(request)
        # An answer as of a given moment is final before it is read (services/read_basis.py).
        await self.basis.settle(principal.tenant, req.scopes, req.as_of)
        now = utcnow()
        as_of, valid_at = req.as_of or now, req.valid_at or now
        query = req.query.strip()
        vector, names = await asyncio.gather(
            self.embedder.embed_query(query),
            self.repo.entity_names(principal.tenant, list(req.scopes), name_keys(query), as_of),
        )
        # What the query asks beyond the entity names it mentions (services/recall/ranking.py,
        # "content relevance"): keyword relevance counts only those words, and when they say
        # something specific (two words or more) a memory must match them too; when a name is
        # a speaker's, the vector part is scored on them as well (services/recall/fusion.py).
        content_query = mask_names(query, names.names)
        on_content = bool(names.speakers)
        content_vector = (
            await self.embedder.embed_query(content_query)
            if (req.min_relevance > 0 or on_content)
            and content_query is not None
            and len(query_terms(content_query)) >= CONTENT_TERMS
            else None
        )
        on_content = on_content and content_vector is not None
        fetched = await self._candidates(
            principal.tenant, req, (vector, content_vector, on_content), as_of, valid_at, per_kind
        )
        at = KINDS.index("fact")
        fetched[at] = await rescore_withheld(fetched[at], self.embedder, vector, content_vector)
        if req.as_of is not None and req.as_of < now:
            fetched[at] = await self._confidence_then(principal.tenant, fetched[at], req.as_of)
            fetched = await self._outcomes_then(principal.tenant, fetched, req.as_of)
        considered = sum(len(rows) for rows in fetched)
        # The keyword signal on the candidates' own statistics, not the shared index's
        # (services/recall/keywords.py says why).
        fetched, terms = await score_pool(fetched, query)
        # One scale for every kind: they share the embedding space and the recency anchor.
        pool = pool_of(
            (r for rows in fetched for r in rows),
            valid_at,
            dict(zip(KINDS, fetched, strict=True)),
            on_content=on_content,
        )
        scored: list[Scored] = []
        weak: list[Scored] = []  # pass every floor but minRelevance
        drops = dict.fromkeys(FloorDrops.__dataclass_fields__, 0)
        for kind, rows in zip(KINDS, fetched, strict=True):
            for s in self._score(kind, rows, req, pool, valid_at, content_query):
                floor = self._floor(s, req)
                if floor is None:
                    scored.append(s)
                elif floor == "min_relevance":
                    weak.append(s)
                else:
                    drops[floor] += 1
        # minRelevance says whether there is an answer, not how long it is: once one memory
        # reaches it, the others go on to the relative cut like it. A small model's cosine to
        # a real answer is often under the floor, and a keyword hit counts only as far as it
        # covers the question's words, time words and names it does not know included ("what
        # was Jules working on in June 2024?"); a pool of unrelated memories has none that
        # reaches it, so a question about something never told stays empty.
        if any(s.match >= req.min_relevance for s in scored):
            scored += weak
        else:
            drops["min_relevance"] = len(weak)
        best = max((s.relevance for s in scored), default=0.0)
        # A named intent is matched exactly, whatever the query's words: no relative cut.
        relevant = [
            s
            for s in scored
            if s.relevance >= req.relative_relevance * best
            or (s.kind == "procedure" and req.intent is not None)
        ]
        drops["relative_relevance"] = len(scored) - len(relevant)
        scored = sorted(relevant, key=lambda s: (-s.total, -s.tier_rank, s.id))
        below = considered - len(scored)
        scoring = Scoring(vector, content_vector if on_content else None, pool, valid_at, terms)
        scored = await self._with_replies(principal.tenant, req, scored, scoring, as_of)
        scored = await self._with_members(principal.tenant, req, scored, scoring, as_of)
        scored = settle_conflicts(scored)
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
            floors=FloorDrops(**drops),
        )

    @staticmethod
    def _score(
        kind: str,
        rows: list[Record],
        req: RecallRequest,
        pool: Pool,
        valid_at: datetime,
        content_query: str | None,
    ) -> list[Scored]:
        return score_rows(
            kind,
            rows,
            query=req.query,
            weights=req.weights,
            half_life_days=req.half_life_days,
            valid_at=valid_at,
            content_query=content_query,
            pool=pool,
            used_at=req.as_of,
        )

    async def _with_replies(
        self,
        tenant: str,
        req: RecallRequest,
        ranked: list[Scored],
        scoring: Scoring,
        as_of: datetime,
    ) -> list[Scored]:
        """``ranked`` with the reply to each matched question among the best k episodes
        lifted in or added (services/recall/neighbours.py). One round trip, only when one asks."""
        pool, valid_at = scoring.pool, scoring.valid_at
        if "episode" not in req.kinds:
            return ranked
        questions = [
            s.id
            for s in ranked[: req.k]
            if s.kind == "episode" and asks(str(s.record.get("text") or ""))
        ]
        if not questions:
            return ranked
        pairs = await self.repo.replies(
            tenant,
            list(req.scopes),
            questions,
            vector=scoring.vector,
            content_vector=scoring.content_vector,
            as_of=as_of,
            valid_at=valid_at,
        )
        follows = {str(row["id"]): of for of, row in pairs}
        own = {
            s.id: s
            for s in self._score("episode", [row for _, row in pairs], req, pool, valid_at, None)
            if s.confidence >= req.min_confidence
        }
        return lift_replies(ranked, own, follows)

    async def _with_members(
        self,
        tenant: str,
        req: RecallRequest,
        ranked: list[Scored],
        scoring: Scoring,
        as_of: datetime,
    ) -> list[Scored]:
        """``ranked`` with the best-matching member of each digest among the best k served
        after it (services/recall/digest_members.py). One round trip, only when a digest is
        there."""
        pool, valid_at = scoring.pool, scoring.valid_at
        digests = [s.id for s in ranked[: req.k] if s.kind == "episode" and s.record.get("digest")]
        if not digests:
            return ranked
        pairs = await self.repo.digest_members(
            tenant,
            list(req.scopes),
            digests,
            vector=scoring.vector,
            content_vector=scoring.content_vector,
            lucene=build_lucene(tenant, req.scopes, req.query),
            k=min(max(req.over_recall, req.k) * len(digests), MAX_WIDENED),
            as_of=as_of,
            valid_at=valid_at,
        )
        if not pairs:
            return ranked
        of = {str(row["id"]): digest for digest, row in pairs}
        members: dict[str, list[Scored]] = {}
        rows = with_keywords([row for _, row in pairs], req.query.strip(), scoring.terms)
        for s in self._score("episode", rows, req, pool, valid_at, None):
            if self._floor(s, req) is None:
                members.setdefault(of[s.id], []).append(s)
        return lift_members(ranked, members)

    async def _candidates(
        self,
        tenant: str,
        req: RecallRequest,
        vectors: tuple[list[float], list[float] | None, bool],
        as_of: datetime,
        valid_at: datetime,
        per_kind: int | None,
    ) -> list[list[Record]]:
        """Raw candidates per kind (in KINDS order): every kind searched in one statement, a
        kind the in-force filter left short searched again with a larger k.
        ``vectors``: the query's embedding, that of the query without entity names, and
        whether the vector part is scored on the latter.

        When it is, facts, episodes and memos are searched for the k nearest to each
        (procedures match on their intent: the whole query). Measured on the outside recall
        probes' conversations: asked by a speaker's full label ("Maria Lopez"), the whole
        query's search found the answer in the top 5 for 65% of 46 questions (her empty turns
        fill its k nearest), either the search without the names or both for 89%; over the
        other 354 questions both found one answer more than the nameless search alone."""
        vector, content_vector, content_search = vectors
        lucene = build_lucene(tenant, req.scopes, req.query)
        limit = max(req.over_recall, req.k if per_kind is None else per_kind)
        scopes = list(req.scopes)

        need = req.k if per_kind is None else per_kind
        search = Search(
            tenant=tenant,
            scopes=scopes,
            vector=vector,
            content_vector=content_vector,
            content_search=content_search,
            lucene=lucene,
            as_of=as_of,
            valid_at=valid_at,
            include_candidates=req.include_candidates,
            include_expired=req.include_expired,
            include_unverified=req.include_unverified,
            tiers=list(req.tiers) if req.tiers else None,
            procedure_statuses=("active", "candidate") if req.include_candidates else ("active",),
            intent=req.intent,
            role=req.role,
        )
        kinds = [kind for kind in KINDS if kind in req.kinds]
        first = await self.repo.search(search, kinds, limit)

        async def widening(kind: str) -> list[Record]:
            # The indexes rank before the in-force filter runs: superseded versions of a long
            # history (or other intents' procedures) can fill the whole top k. Ask again with
            # a larger k while the filter left too few and the searches had more to give.
            k = limit
            rows, raw = first[kind]
            while len(rows) < need and raw >= k and k < MAX_WIDENED:
                k = min(k * WIDEN_FACTOR, MAX_WIDENED)
                rows, raw = await self.repo.search_kind(search, kind, k)
            return rows

        async def none() -> list[Record]:
            return []

        return list(
            await asyncio.gather(*(widening(kind) if kind in first else none() for kind in KINDS))
        )

    async def _outcomes_then(
        self, tenant: str, fetched: list[list[Record]], as_of: datetime
    ) -> list[list[Record]]:
        """Memories asked about as of a past moment are judged on the outcomes reported by
        then (salience): a later reportOutcome does not change what a read as of then
        answers."""
        ids = [str(r["id"]) for rows in fetched for r in rows if "harmful" in r]
        counts = await self.repo.outcomes_at(tenant, ids, as_of)
        return [
            [
                {**r, "helpful": counts[str(r["id"])][0], "harmful": counts[str(r["id"])][1]}
                if str(r["id"]) in counts
                else r
                for r in rows
            ]
            for rows in fetched
        ]

    async def _confidence_then(
        self, tenant: str, rows: list[Record], as_of: datetime
    ) -> list[Record]:
        """Facts asked about as of a past moment are scored on the confidence they had then:
        the evidence they held at ``as_of`` (belief.confidence_at), as ``facts(asOf)`` shows
        it, not the corroborations (or a consolidation's merges) that came later."""
        evidence = await self.repo.evidence(tenant, [str(r["id"]) for r in rows])
        return [
            {
                **r,
                "confidence": confidence_at(
                    evidence.get(str(r["id"]), []),
                    as_of,
                    TIER_CAP[Tier(str(r["tier"]))],
                    float(r.get("confidence") or 0.0),
                ),
            }
            if r.get("tier") and evidence.get(str(r["id"]))
            else r
            for r in rows
        ]

    async def recall(self, principal: Principal, request: RecallRequest) -> RecallResult:
        """The best k memories with score breakdown and provenance; may be empty.

        Retrieval counts are recorded in the background (never on this request's path).
        """
        result = await self.rank(principal, request)
        result.items = await self.hydrate(
            principal.tenant, result.items[: request.k], request.as_of
        )
        self.note_retrieved(principal.tenant, result.items, request.as_of)
        return result

    async def hydrate(
        self, tenant: str, items: list[Scored], as_of: datetime | None = None
    ) -> list[Scored]:
        """Swap the lean candidate rows of ranked items for full records with provenance;
        a fact asked about as of a past moment shows the lifecycle it had then.

        An item deleted since it was ranked (a concurrent forget) is left out.
        """
        by_kind = {k: [s.id for s in items if s.kind == k] for k in KINDS}
        found, resolved = await self.repo.hydrate(
            tenant,
            facts=by_kind["fact"],
            episodes=by_kind["episode"],
            procedures=by_kind["procedure"],
            memos=by_kind["memo"],
            as_of=as_of or utcnow(),
        )
        out = []
        for s in items:
            if s.id in found:
                record, evidence = found[s.id]
                if s.kind == "fact":
                    # As a forget in flight's purge will leave it, if one touches it; its
                    # wording, dates and confidence as the typed version gives them (a text withheld
                    # while its writer's forget runs reads as the triple's neutral wording).
                    s.fact = resolved.show(FactVersion.from_row(record))
                    record = {
                        **record,
                        "text": s.fact.text,
                        "valid_from": s.fact.valid_from,
                        "recorded_at": s.fact.recorded_at,
                        "confidence": s.fact.confidence,
                    }
                    if as_of is not None:
                        s.fact = as_believed_at(s.fact, as_of)
                        links = [Evidence.from_row(e) for e in evidence]
                        held = {e.episode_id for e in held_at(links, as_of)}
                        evidence = [e for e in evidence if e["episode_id"] in held]
                        # As it stood then: the evidence it held, not what came later.
                        then = confidence_at(links, as_of, TIER_CAP[s.fact.tier], s.fact.confidence)
                        s.fact = dataclasses.replace(s.fact, confidence=then)
                        record = {**record, "confidence": then}
                elif as_of is not None and s.kind == "procedure":
                    record = procedure_as_of(record, as_of)
                s.record, s.evidence = record, list(evidence)
                out.append(s)
        return out

    def note_retrieved(
        self, tenant: str, items: Sequence[Scored], as_of: datetime | None = None
    ) -> None:
        """Count the items as retrieved (salience, decay), unless the read was about the past:
        an analyst's audit of what was answerable then is no use of the memory now, and must
        not keep a memory nobody uses from decaying."""
        now = utcnow()
        if as_of is not None and as_of < now - AUDIT_READ:
            return
        if self.bookkeeper is not None and items:
            self.bookkeeper.record(tenant, [(s.kind, s.id) for s in items], now)

    @staticmethod
    def _floor(s: Scored, req: RecallRequest) -> str | None:
        """The first floor (a FloorDrops field) the candidate fails, or None if it passes."""
        if s.confidence < req.min_confidence:
            return "min_confidence"
        if s.kind == "procedure" and req.intent is not None:
            # A named intent was matched exactly by the search, whatever the query's words:
            # a score floor made of word similarity must not hide it.
            return None
        if s.total < req.min_score:
            return "min_score"
        if s.kind == "procedure":
            return None if s.cosine >= PROCEDURE_MIN_SIMILARITY else "procedure_intent"
        if s.content is not None and s.content < req.min_relevance * CONTENT_SHARE:
            # It shares a name with the query and little else.
            return "content"
        return None if s.match >= req.min_relevance else "min_relevance"
