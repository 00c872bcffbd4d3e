"""The keyword signal, scored by the recall itself: BM25 with the candidate pool's statistics.

Lucene's score of a full-text hit weighs each word by how rare it is in the whole index, and
that index is shared by every tenant and keeps every memory ever written. So another tenant's
writes of a word moved a tenant's scores (a side channel: a tenant could watch its own
rankings to learn which words others store), and a recall or context as of a past moment
ranked differently once later memories were written (the past changed). Scored here instead,
with the document frequencies and lengths of the recall's own candidates (the memories of the
asked scopes in force at asOf that either search found), a score depends only on what the
tenant held at that moment. The index still finds the candidates; it no longer scores them.

The analysis follows the index's (Lucene's English analyzer: its tokens, possessives cut, its
stop set dropped, Porter stems), and the formula Lucene's BM25 (k1 1.2, b 0.75, idf
ln(1 + (N - n + 0.5) / (n + 0.5))), so a candidate's words count as the index's would, only
with statistics the tenant's own. Which candidates a full search returns still follows the
index's ranking (its top k under its statistics); the scores of those found do not.

Cost: each candidate's text is read once, its first MAX_SCORED_CHARS characters, and only the
words that may stem to a query word (those sharing its first two letters) are stemmed, so a pool of
thousands of long memories costs milliseconds, not seconds on the event loop (a candidate's own
words would otherwise all be stemmed, twice). Rows a forgotten contributor worded
(recall/withheld.py) keep no keyword part and count in no statistic.
"""

from __future__ import annotations

import asyncio
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graph_memory.db import Record
from graph_memory.services.recall.ranking import query_stems, stem, tokens

__all__ = ["ASIDE_POOL", "TermStats", "score_pool", "scored_pool", "with_keywords"]

K1, B = 1.2, 0.75
# Lucene's EnglishAnalyzer stop set (the index drops these words, so they are no terms).
_LUCENE_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)
_POSSESSIVE = re.compile(r"['\u2019]s\b", re.IGNORECASE)
# A memory's words past this are not scored (an episode's long transcript): the bound on a
# recall's work whatever its pool.
MAX_SCORED_CHARS = 4_000
# Candidates past which the analysis runs in a worker thread (score_pool): a pool of
# thousands of long memories costs up to about a second, and other requests go on meanwhile.
ASIDE_POOL = 200
# Porter keeps a word's first two letters ("sky" -> "ski", "dies" -> "di": not always three):
# only words sharing them with a query stem are stemmed.
PREFIX = 2


@dataclass(frozen=True)
class _Text:
    """One candidate's text as the analysis sees it: its length in terms and how often it
    holds each query stem."""

    length: int
    held: Counter[str]


def _wanted(query: str) -> frozenset[str]:
    return frozenset(s for s in query_stems(query) if s)


def _analyse(text: str, wanted: frozenset[str], prefixes: frozenset[str]) -> _Text:
    words = tokens(_POSSESSIVE.sub("", text[:MAX_SCORED_CHARS].lower()))
    length, held = 0, Counter[str]()
    for w in words:
        if w in _LUCENE_STOP:
            continue
        length += 1
        if w[:PREFIX] in prefixes:
            s = stem(w)
            if s in wanted:
                held[s] += 1
    return _Text(length, held)


def _texts(rows: Sequence[Record], wanted: frozenset[str]) -> list[_Text | None]:
    """Each row's analysis (None: a withheld row, which has no keyword part)."""
    prefixes = frozenset(s[:PREFIX] for s in wanted)
    return [
        None if r.get("withheld") else _analyse(str(r.get("text") or ""), wanted, prefixes)
        for r in rows
    ]


@dataclass(frozen=True)
class TermStats:
    """The pool's statistics: documents, their mean length, and per query stem how many of
    them hold it."""

    docs: int = 0
    mean_length: float = 0.0
    holding: dict[str, int] = field(default_factory=dict)

    def idf(self, term: str) -> float:
        n = self.holding.get(term, 0)
        return math.log(1.0 + (self.docs - n + 0.5) / (n + 0.5))

    def score(self, text: _Text) -> float:
        norm = K1 * (1.0 - B + B * text.length / self.mean_length) if self.mean_length else K1
        return sum(self.idf(t) * tf / (tf + norm) for t, tf in text.held.items())


def _stats(texts: Iterable[_Text | None]) -> TermStats:
    docs, length = 0, 0
    holding: Counter[str] = Counter()
    for t in texts:
        if t is not None:
            docs += 1
            length += t.length
            holding.update(t.held.keys())
    return TermStats(docs, length / docs if docs else 0.0, dict(holding))


def _scored(rows: Sequence[Record], texts: list[_Text | None], stats: TermStats) -> list[Record]:
    out = []
    for r, t in zip(rows, texts, strict=True):
        score = stats.score(t) if t is not None else 0.0
        # ``found``: the query stems the text holds, what ranking's coverage asks of it.
        found = frozenset(t.held) if t is not None else frozenset()
        out.append({**r, "keyword": score if score > 0 else None, "found": found})
    return out


def scored_pool(
    kinds: Sequence[Sequence[Record]], query: str
) -> tuple[list[list[Record]], TermStats]:
    """Every kind's candidates with ``keyword`` scored on the statistics of all of them (one
    index held every kind), and those statistics, for a later pass (``with_keywords``)."""
    wanted = _wanted(query)
    texts = [_texts(rows, wanted) for rows in kinds]
    stats = _stats(t for of_kind in texts for t in of_kind)
    return [_scored(rows, t, stats) for rows, t in zip(kinds, texts, strict=True)], stats


def with_keywords(rows: Sequence[Record], query: str, stats: TermStats) -> list[Record]:
    """``rows`` of a later pass scored against the pool's ``stats``."""
    return _scored(rows, _texts(rows, _wanted(query)), stats)


async def score_pool(
    kinds: Sequence[Sequence[Record]], query: str
) -> tuple[list[list[Record]], TermStats]:
    """``scored_pool``, off the event loop when the pool is large (ASIDE_POOL)."""
    if sum(len(rows) for rows in kinds) > ASIDE_POOL:
        return await asyncio.to_thread(scored_pool, kinds, query)
    return scored_pool(kinds, query)
