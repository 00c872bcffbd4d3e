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
with statistics the tenant's own.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graph_memory.db import Record
from graph_memory.services.recall.ranking import query_stems, stem, tokens

__all__ = ["TermStats", "term_stats", "with_keywords"]

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


def _terms(text: str) -> Counter[str]:
    words = tokens(_POSSESSIVE.sub("", text.lower()))
    return Counter(stem(w) for w in words if w not in _LUCENE_STOP)


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

    def score(self, terms: Counter[str], wanted: Iterable[str]) -> float:
        length = sum(terms.values())
        norm = K1 * (1.0 - B + B * length / self.mean_length) if self.mean_length else K1
        total = 0.0
        for t in wanted:
            tf = terms.get(t, 0)
            if tf:
                total += self.idf(t) * tf / (tf + norm)
        return total


def term_stats(rows: Iterable[Record], query: str) -> TermStats:
    """The statistics of these candidates (every kind: one index held them all) for the
    query's stems."""
    wanted = query_stems(query)
    docs, length = 0, 0
    holding: Counter[str] = Counter()
    for r in rows:
        terms = _terms(str(r.get("text") or ""))
        docs += 1
        length += sum(terms.values())
        holding.update(t for t in wanted if t in terms)
    return TermStats(docs, length / docs if docs else 0.0, dict(holding))


def with_keywords(rows: Sequence[Record], query: str, stats: TermStats) -> list[Record]:
    """``rows`` with ``keyword`` scored against ``stats`` (None when the text holds none of
    the query's words, as for a memory no full-text search would find)."""
    wanted = query_stems(query)
    out = []
    for r in rows:
        score = stats.score(_terms(str(r.get("text") or "")), wanted) if wanted else 0.0
        out.append({**r, "keyword": score if score > 0 else None})
    return out
