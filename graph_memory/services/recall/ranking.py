"""How recall scores and orders memories: pure functions, no I/O.

Score (every item reports each part, so the total can be recomputed by hand)::

    total = (w.vector * vector + w.keyword * keyword + w.recency * recency
             + w.confidence * confidence + tier_boost) * salience + context

Each part is on the candidate pool's scale (``services/recall/fusion.py`` says why):

* vector: cosine of query and memory / the best cosine among the candidates (so the best
  scores 1.0, an unrelated memory 0). Neo4j reports cosine as (1 + cos) / 2; we map it back
  first. When the query names a speaker and says something specific beyond the names (see
  "content relevance" below), the cosine is to the query without the names
  (services/recall/fusion.py says why). The raw cosine to the whole query is reported too
  (``cosine``; the absolute floor, ``minRelevance``, reads it).
* keyword: the Lucene score divided by the best among candidates of that kind. When the query
  names known entities it is also multiplied by the share of the query's *other* words the
  memory contains: a memory sharing just a name with the query is no keyword match. Otherwise
  BM25's own term weighting stands (a rare word matched counts more than two common ones).
* recency: ``0.5 ** (age / half_life)`` (a memory half_life old decays to 0.5), age measured
  from when the memory became true (fact validFrom, episode end, procedure update) to the
  pool's newest memory (capped at validAt), times the item's relevance (its vector and keyword
  parts, weighted): newness reorders what matches, it never makes a match. Episodes (events)
  and questions that name a time do not age: decay 1.
* confidence: the memory's own (facts, episodes); procedures use their Laplace-smoothed
  success rate, so one lucky run does not look proven.
* tier_boost (facts only): the rest of the score times ``TIER_MULTIPLIER[tier] - 1``. A system
  fact outranks any user fact scoring less than 20% above it, i.e. any of similar relevance;
  a weakly relevant system fact gains little, so policies do not crowd out good matches.
* salience (facts, episodes; ``services/recall/salience.py``): 1.0 for a memory in use, lower for
  one unretrieved for 30 days or reported harmful (reportOutcome); usage, not confidence.
* context (episodes only, ``services/recall/neighbours.py``): the lift a reply gets from the
  question it follows in its session.

Conflicting claims are settled by trust, not wording: among recalled facts on the same slot
(subject and predicate, the predicate's namespace ignored, so ``policy.refund_window`` and
``refund_window`` conflict) the higher tier always ranks first, whatever the scores say (a user
"remembering" a policy never outranks it). Other items keep their places.

Weights are normalised to sum 1 so ``minScore`` keeps its meaning whatever weights are given.

Content relevance (a filter, not part of the score): when the query names a known entity
("what is the name of Alice's cat"), every memory about Alice is similar to it through the name
alone (cosine ~0.5 with a small sentence model), so nothing would ever be judged irrelevant.
Keyword relevance then counts only the other words, and when they say something specific
(two words or more) the query is embedded a second time without the names (``mask_names``):
a memory must also match that rest, by cosine or by keyword coverage, to be served. When a
name is a speaker's, the vector part is scored on that rest too (the names still count through
keyword: BM25 sees them).
Known names are those of entities the scopes' facts are about and the speakers of their
transcript turns ("Leo: Poor guy.", ``domain.speaker_label``): a label says who spoke, not
what was said, and short turns would otherwise match a question through the name alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import snowballstemmer

from graph_memory.db import Record
from graph_memory.domain import Tier, as_datetime, ft_token
from graph_memory.errors import ValidationError
from graph_memory.services.recall.fusion import (
    Pool,
    ages,
    cosine,
    fresh_at,
    pool_of,
    recency_gate,
    scoring_cosine,
    share_of_best,
)
from graph_memory.services.recall.salience import salience
from graph_memory.versions import FactVersion

__all__ = [
    "TIER_MULTIPLIER",
    "Scored",
    "Weights",
    "build_lucene",
    "content_relevance",
    "coverage",
    "covered",
    "dt",
    "escape_lucene",
    "evidence_contributors",
    "mask_names",
    "name_keys",
    "query_stems",
    "query_terms",
    "recency",
    "score_rows",
    "settle_conflicts",
    "stem",
    "text_stems",
    "tokens",
]

TIER_MULTIPLIER: dict[str, float] = {
    Tier.SYSTEM.value: 1.2,
    Tier.ADMIN.value: 1.1,
    Tier.USER.value: 1.0,
    Tier.INFERRED.value: 0.9,
}
MAX_QUERY_TERMS = 32
MAX_QUERY_TOKENS = 64  # analyzer tokens across all terms

# Lucene's classic query syntax: each of these must be backslash-escaped in user text.
_LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/<>')
# What Lucene's standard tokenizer (UAX#29) makes terms of: runs of letters and digits,
# except that it makes every ideograph and kana a term of its own (and we count hangul so
# too, to be safe): "我我我" is three clauses of the query, not one. Counted as one, a long
# Chinese question passed the clause budget and Lucene refused the whole recall (over 1,024).
_CJK = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f" + (
    "\uac00-\ud7af\U00020000-\U0003ffff"
)
_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+", re.UNICODE)
# Lucene's English stop set plus the question words agents phrase queries with. The
# analyzer drops the English stop set itself; dropping the question words here too keeps
# "what" and "how" from turning every memory into a keyword hit.
_STOP_WORDS = """
a an and are as at be but by for if in into is it no not of on or such that the their then
there these they this to was will with what which who whom whose where when why how do does
did i me my we our you your he she him her his its has have had can could should would about
any some tell know from
"""
_STOP = frozenset(_STOP_WORDS.split())
_PORTER = snowballstemmer.stemmer("porter")


def tokens(text: str) -> list[str]:
    """The words of ``text`` as the full-text index's tokenizer splits them."""
    return _TOKEN.findall(text)


def escape_lucene(term: str) -> str:
    """Backslash every Lucene special character, so user text is only ever terms."""
    return "".join("\\" + c if c in _LUCENE_SPECIAL else c for c in term)


def query_terms(query: str) -> list[str]:
    """Distinct lower-cased words worth matching: no stop words, no bare punctuation.

    Lower-casing also turns AND/OR/NOT/TO into plain words instead of Lucene operators.
    """
    out: list[str] = []
    budget = MAX_QUERY_TOKENS
    for raw in query.lower().split():
        bare = "".join(c for c in raw if c.isalnum())
        # A word Lucene makes no term of ("___") would leave only the scope clause: every
        # memory of the scopes would match, at score 0.
        if not _TOKEN.search(raw) or bare in _STOP or raw in out:
            continue
        # Lucene's analyzer splits "a-b-c" into three clauses: the budget counts those, since
        # past 1,024 clauses Lucene refuses the whole query.
        pieces = _TOKEN.findall(raw)
        if len(pieces) > budget:
            out += [p for p in dict.fromkeys(pieces[:budget]) if p not in out]
            break
        budget -= len(pieces)
        out.append(raw)
        if budget <= 0 or len(out) >= MAX_QUERY_TERMS:
            break
    return out[:MAX_QUERY_TERMS]


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    # Pure-Python Porter stemming of every candidate's words was half the event loop's time
    # under recall load (bench/load.py --profile); a memory's words recur across recalls, so
    # each word is stemmed once (65k words: a few MB at most).
    stem: str = _PORTER.stemWord(word)
    return stem


def _stems(words: list[str]) -> set[str]:
    # The full-text indexes use Lucene's English analyzer (Porter stemming), so coverage
    # compares stems too: "refunds" covers "refund".
    return {stem(w) for w in words}


def coverage(query: str, text: str) -> float:
    """Share of the query's words (split like Lucene's analyzer, stemmed) found in text."""
    return covered(query, text_stems(text))


def covered(query: str, found: frozenset[str]) -> float:
    """``coverage`` of a text whose stems (``text_stems``) are already known: a recall
    judges each candidate's coverage up to three times (ranking and relevance floors, with
    and without the names), and splitting and stemming its text each time was a tenth of the
    event loop's time under load (bench/load.py, py-spy)."""
    wanted = query_stems(query)
    if not wanted:
        return 0.0
    return len(wanted & found) / len(wanted)


def text_stems(text: str) -> frozenset[str]:
    return frozenset(_stems(_TOKEN.findall(text.lower())))


# Queries recur across recalls (an agent asks the same thing each turn). Memories' texts are
# not cached across recalls: a forgotten contributor's words would stay in the process.
@functools.lru_cache(maxsize=1_024)
def query_stems(query: str) -> frozenset[str]:
    # No empty stem: Porter makes "" of the lone "s" of "Bob's", and it is no word.
    words = [t for w in query_terms(query) for t in _TOKEN.findall(w)]
    return frozenset(s for s in _stems(words) if s)


# Words as the query spells them, with a possessive ("Alice's", "James'") cut off.
_APOSTROPHES = "'\u2019"  # typed and typographic
_NAME_WORD = re.compile(rf"[^\W_][\w{_APOSTROPHES}.-]*", re.UNICODE)
_POSSESSIVE = re.compile(rf"[{_APOSTROPHES}]s?$", re.IGNORECASE)
MAX_NAME_WORDS = 3  # entity names up to three words ("new york city")
MAX_NAME_KEYS = 200


def name_keys(query: str) -> list[str]:
    """Every run of 1..3 words of the query, normalised like entity keys: the candidates
    for entity names it may mention (possessives cut: "alice's" gives "alice")."""
    words = [_POSSESSIVE.sub("", w).lower().rstrip(".-") for w in _NAME_WORD.findall(query)]
    words = [w for w in words if w]
    keys: dict[str, None] = {}
    for n in range(1, MAX_NAME_WORDS + 1):
        for i in range(len(words) - n + 1):
            keys[" ".join(words[i : i + n])] = None
    return list(keys)[:MAX_NAME_KEYS]


def mask_names(query: str, names: Sequence[str]) -> str | None:
    """The query without the entity names it mentions (possessives included), or None when
    it names none, or names are all it has (then there is nothing else to judge by)."""
    out = query
    for name in sorted({n.strip() for n in names if n.strip()}, key=len, reverse=True):
        words = r"\s+".join(re.escape(w) for w in name.split())
        pattern = rf"(?<!\w){words}(?:[{_APOSTROPHES}]s|[{_APOSTROPHES}])?(?!\w)"
        out = re.sub(pattern, " ", out, flags=re.IGNORECASE)
    out = " ".join(out.split())
    if out == " ".join(query.split()) or not query_terms(out):
        return None
    return out


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
    return float(0.5 ** (max(age_seconds, 0.0) / (half_life_days * 86_400.0)))


# Weights are relative; a million to one is already more contrast than any score can show.
MAX_WEIGHT = 1e6


@dataclass(frozen=True)
class Weights:
    vector: float = 0.5
    keyword: float = 0.2
    recency: float = 0.2
    confidence: float = 0.1

    def normalised(self) -> Weights:
        """Scaled to sum 1; raises ValidationError for negative, non-finite, absurd (over
        MAX_WEIGHT: 1e308 + 1e308 overflows to inf and every weight became 0) or all-zero."""
        parts = (self.vector, self.keyword, self.recency, self.confidence)
        if any(not 0 <= p <= MAX_WEIGHT for p in parts) or sum(parts) <= 0:
            raise ValidationError(
                f"weights must be in 0..{MAX_WEIGHT:g} and not all 0", field="weights"
            )
        s = sum(parts)
        return Weights(*(round(p / s, 6) for p in parts))


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
    # On the pool's scale: the better of the vector and keyword parts (relativeRelevance).
    relevance: float = 0.0
    # On the absolute scale: raw cosine or covering keyword hit (minRelevance).
    match: float = 0.0
    cosine: float = 0.0
    # The recency decay before relevance gates it.
    decay: float = 0.0
    # Lift from a neighbouring episode (services/recall/neighbours.py) and which one gave it.
    context: float = 0.0
    via: str | None = None
    # Usage (services/recall/salience.py): the factor the score was multiplied by.
    salience: float = 1.0
    # The question's own words, so a reply read alone (context) says what it answers.
    via_text: str | None = None
    # Relevance to the query without its entity names; None when it names none.
    content: float | None = None
    tier_rank: int = 0
    evidence: list[Record] = field(default_factory=list)
    # A hydrated fact as a typed version, as believed at the recall's asOf.
    fact: FactVersion | None = None


def dt(value: Any) -> datetime | None:
    """A driver DateTime (or a datetime) as a native aware datetime."""
    return as_datetime(value)


def _confidence(kind: str, rec: Record) -> float:
    if kind == "procedure":
        wins, losses = int(rec.get("success_count") or 0), int(rec.get("failure_count") or 0)
        return (wins + 1) / (wins + losses + 2)
    return float(rec.get("confidence") or 0.0)


def score_rows(
    kind: str,
    rows: list[Record],
    *,
    query: str,
    weights: Weights,
    half_life_days: float,
    valid_at: datetime,
    content_query: str | None = None,
    pool: Pool | None = None,
    used_at: datetime | None = None,
) -> list[Scored]:
    """Score one kind's candidate rows (recall.facts / episodes / procedures).

    ``used_at``: the moment usage (salience) is judged at (None: now); a read as of a past
    moment judges it then.

    Rows carry ``id, text, confidence`` (procedures: success/failure counts), ``fresh_ms``
    (when the memory became true, epoch millis), facts also ``tier, tier_rank, subject,
    predicate``, and the raw ``similarity`` (index cosine) and ``keyword`` (Lucene) scores;
    ``content`` is the cosine to ``content_query`` (the query without its entity names), present
    only when that query is specific enough to judge by (services/recall/service.py, CONTENT_TERMS).
    ``pool``: what to normalise against (every kind's candidates); by default these rows.
    """
    w = weights
    pool = pool or pool_of(rows, valid_at)
    ageing = ages(kind, query)
    best_kw = max(
        [float(r["keyword"] or 0.0) for r in rows] + [pool.best_keyword.get(kind, 0.0)],
    )
    now = datetime.now(UTC) if used_at is None else min(used_at, datetime.now(UTC))
    out = []
    for r in rows:
        rec: Record = r
        cos = cosine(r["similarity"])
        vec = share_of_best(scoring_cosine(rec, pool.on_content), pool.best_cosine)
        kw_share = share_of_best(float(r["keyword"] or 0.0), best_kw)
        # Only a keyword hit is judged on its words (every use below weighs them by kw_share):
        # the query stems it holds, as the keyword scoring found them (recall/keywords.py).
        found = _found(rec) if kw_share > 0 else frozenset()
        # With entity names in the query, keyword counts the words beyond them: sharing
        # "Alice" with a question about Alice says nothing about relevance, and Lucene's
        # length norm on the name alone would otherwise rank her shortest memory first.
        kw = kw_share * covered(content_query, found) if content_query else kw_share
        # The absolute floor (minRelevance) keeps its old meaning: a raw cosine, or a keyword
        # hit that covers the query's words; a single shared common word is no match.
        matched = kw_share * covered(content_query or query, found) if kw_share > 0 else 0.0
        # Relevance on the pool's scale (the relative cut): with the vector part on the
        # query without its names, a memory the whole query is close to still counts: the
        # nameless cosines spread wider, and half the best of them cut answers whose words
        # were the name's ("what pet did Amara adopt?" to "Amara: we got a tortoise!"),
        # while the score already ranks the look-alikes the name made below them.
        whole = share_of_best(cos, pool.best_whole) if pool.on_content else 0.0
        relevance = max(vec, kw, whole)
        fresh = fresh_at(rec)
        age = (pool.reference - fresh).total_seconds() if fresh else None
        decay = 1.0 if not ageing else recency(age, half_life_days) if age is not None else 0.0
        rec_part = decay * recency_gate(vec, kw, w.vector, w.keyword)
        conf = _confidence(kind, rec)
        base = w.vector * vec + w.keyword * kw + w.recency * rec_part + w.confidence * conf
        mult = TIER_MULTIPLIER.get(str(rec.get("tier")), 1.0) if kind == "fact" else 1.0
        boost = round(base * (mult - 1.0), 6)
        sal = salience(rec, now) if kind != "procedure" else 1.0
        out.append(
            Scored(
                kind=kind,
                id=str(rec["id"]),
                record=rec,
                similarity=round(vec, 6),
                keyword=round(kw, 6),
                recency=round(rec_part, 6),
                confidence=round(conf, 6),
                tier_boost=boost,
                total=round((base + boost) * sal, 6),
                salience=sal,
                fresh_at=fresh,
                relevance=relevance,
                match=max(cos, matched),
                cosine=round(cos, 6),
                decay=round(decay, 6),
                content=content_relevance(rec.get("content"), kw_share, content_query, found),
                tier_rank=int(rec.get("tier_rank") or 0),
            )
        )
    return out


def _found(rec: Record) -> frozenset[str]:
    known = rec.get("found")
    return known if known is not None else text_stems(str(rec.get("text") or ""))


def content_relevance(
    content: Any, keyword: float, content_query: str | None, found: frozenset[str]
) -> float | None:
    """How well a memory matches the query's words other than entity names: the better of
    cosine to the name-free query and keyword coverage of its words (``found``: the stems of
    its text, ``text_stems``). None without names."""
    if content_query is None or content is None:
        return None
    kw = keyword * covered(content_query, found) if keyword > 0 else 0.0
    return round(max(cosine(content), kw), 6)


def _slot(s: Scored) -> tuple[str, str] | None:
    if s.kind != "fact":
        return None
    predicate = str(s.record.get("predicate") or "")
    return str(s.record.get("subject") or ""), predicate.rsplit(".", 1)[-1]


def settle_conflicts(ranked: list[Scored]) -> list[Scored]:
    """Within each fact slot, reorder its members by tier first, in the places they hold."""
    groups: dict[tuple[str, str], list[int]] = {}
    for i, s in enumerate(ranked):
        key = _slot(s)
        if key is not None:
            groups.setdefault(key, []).append(i)
    out = list(ranked)
    for places in groups.values():
        if len({ranked[i].tier_rank for i in places}) > 1:
            members = sorted(
                (ranked[i] for i in places), key=lambda s: (-s.tier_rank, -s.total, s.id)
            )
            for i, s in zip(places, members, strict=True):
                out[i] = s
    return out


def evidence_contributors(evidence: list[Record]) -> list[str]:
    """Distinct contributors of the supporting episodes, in order of first appearance."""
    return list(dict.fromkeys(str(e["user_id"]) for e in evidence if e.get("user_id")))
