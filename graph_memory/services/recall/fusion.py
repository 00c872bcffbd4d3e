"""How recall puts its signals on one scale before weighting them: pure functions, no I/O.

A weighted sum is only as good as the scales it adds. The index cosine of a small sentence
model lives in a narrow band (on-topic text at 0.2-0.6, whatever the query), Lucene's BM25 is
unbounded and depends on the index, and a wall-clock decay says nothing when "now" is years
after the data. So every signal is first normalised within the candidate pool, the way hybrid
search engines do before a convex combination (min-max / max normalisation in Elasticsearch's
linear retriever, OpenSearch's normalization processor):

* vector: cosine / the best cosine among all candidates (every kind: they share one embedding
  space). When the query names a speaker of transcript turns and says something beyond the
  names it mentions, the cosine is to the query without those names (``Pool.on_content``,
  ranking.py's "content relevance"): asked "what promotion did Maria Lopez get?", every "Maria
  Lopez: ..." turn shares the label with the question, and its cosine to the whole question
  says more about the label than about promotions, so her emptiest turns look as close as the
  answer. An entity's name alone does not switch it: in "Alice commutes by bicycle" the name
  is what the fact is about, and it keeps Bob's commute apart. The zero stays the signal's own
  (cosine 0 = unrelated), only the scale is the pool's: min-max against the pool's worst
  would turn a 0.01 cosine gap between two candidates into the whole range, and a lone weak
  candidate into a perfect one against nothing.
* keyword: BM25 / the best BM25 of that kind (each kind has its own Lucene index, whose scores
  are not comparable across indexes).
* recency: a half-life decay measured from the pool's newest memory (the scope's own
  activity, capped at validAt), not from the wall clock: asked years after the data, every
  wall-clock decay is ~0 and stops mattering; asked right after it, a week-old turn would
  outvote a year-old answer. Relative to the newest, both readings agree.

Not everything ages (the issue's "per-kind policy"): a fact or a procedure is state that changes,
and the newest version of a preference is likelier the current one; an episode is the record of
something that happened, as true a year later as the day after, so its age says nothing of its
relevance. Likewise a question that names a time ("what did Nora do in March 2024?", "two
years ago") asks for that time, not for the newest. For those the decay is 1: the recency weight
goes to relevance alone, with no preference for the new.

Recency then counts only as far as the item is relevant: its part is ``decay * gate``, the gate
being the item's relevance as the weights see it, ``(w.vector * vector + w.keyword * keyword) /
(w.vector + w.keyword)``. An item with no match gets nothing from being new, and newness
multiplies an item's relevance score by at most ``1 + w.recency / (w.vector + w.keyword)``
(1.29 with the defaults): it reorders items of similar relevance ("newer matters more") and
cannot lift a match over one more than 29% better, however old that one is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph_memory.db import Record

__all__ = [
    "AGEING_KINDS",
    "Pool",
    "ages",
    "cosine",
    "fresh_at",
    "names_a_time",
    "pool_of",
    "recency_gate",
    "scoring_cosine",
    "share_of_best",
]

AGEING_KINDS = frozenset({"fact", "procedure"})
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
# English time expressions a question uses to point at a moment: a year, a month, a relative
# day or period. Conservative on purpose: a miss only leaves the default (newer first among
# similar matches), a false hit only drops that preference for one query.
_TIME = re.compile(
    r"\b(?:1[89]\d\d|2[01]\d\d)\b"
    rf"|\b(?:{'|'.join(_MONTHS.split())})\b"
    r"|\b(?:yesterday|ago|earlier|first time|back then|when did|what year|what month|what date)\b"
    r"|\b(?:last|previous|past|that)\s+(?:week|month|year|summer|winter|spring|autumn|fall"
    r"|weekend|time|christmas|holiday)s?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Pool:
    """What one recall's candidates are normalised against."""

    best_cosine: float
    # Recency anchor: the newest memory among the candidates, never after validAt.
    reference: datetime
    # The best full-text score per kind among the candidates (each index scores on its own
    # scale): a later pass over more rows of a kind (a digest's members) is normalised
    # against the recall's candidates, not only against its own few rows.
    best_keyword: Mapping[str, float] = field(default_factory=dict)
    # The vector part is the cosine to the query without its names (``content``).
    on_content: bool = False
    # The best cosine to the whole query, when the vector part is on ``content``: the
    # relative cut still lets through what the whole query is close to (ranking.py).
    best_whole: float = 0.0


def cosine(index_score: Any) -> float:
    """Index cosine (1 + cos) / 2 back to cos, opposites clamped to 0."""
    if index_score is None:
        return 0.0
    return min(max(2.0 * float(index_score) - 1.0, 0.0), 1.0)


def scoring_cosine(rec: Record, on_content: bool) -> float:
    """The cosine the vector part is built on: to the query without the names it mentions
    (``content``) when the pool is scored on that and the row has it, else to the whole query
    (``similarity``)."""
    content = rec.get("content") if on_content else None
    return cosine(content if content is not None else rec.get("similarity"))


def fresh_at(rec: Record) -> datetime | None:
    """When the memory became true (``fresh_ms``, epoch millis), as an aware datetime."""
    ms = rec.get("fresh_ms")
    return datetime.fromtimestamp(ms / 1000, UTC) if ms is not None else None


def pool_of(
    rows: Iterable[Record],
    valid_at: datetime,
    kinds: Mapping[str, Iterable[Record]] | None = None,
    *,
    on_content: bool = False,
) -> Pool:
    """The pool's best (scoring) cosine and recency anchor (rows of every kind together); with
    ``kinds`` (the same rows by kind), the best keyword score of each kind."""
    best, whole, newest = 0.0, 0.0, None
    for r in rows:
        best = max(best, scoring_cosine(r, on_content))
        whole = max(whole, cosine(r.get("similarity")))
        at = fresh_at(r)
        if at is not None and (newest is None or at > newest):
            newest = at
    reference = valid_at if newest is None or newest > valid_at else newest
    keyword = {
        kind: max((float(r.get("keyword") or 0.0) for r in of_kind), default=0.0)
        for kind, of_kind in (kinds or {}).items()
    }
    return Pool(
        best_cosine=best,
        reference=reference,
        best_keyword=keyword,
        on_content=on_content,
        best_whole=whole,
    )


def names_a_time(query: str) -> bool:
    """Whether the query points at a time of its own (a year, a month, "two weeks ago")."""
    return _TIME.search(query) is not None


def ages(kind: str, query: str) -> bool:
    """Whether newness counts for this kind of memory, asked this query."""
    return kind in AGEING_KINDS and not names_a_time(query)


def share_of_best(value: float, best: float) -> float:
    """A signal on the pool's scale: 1.0 for the best candidate, 0 stays 0."""
    return min(value / best, 1.0) if best > 0 else 0.0


def recency_gate(vector: float, keyword: float, w_vector: float, w_keyword: float) -> float:
    """How much of its decay an item may add: its relevance as the weights see it. When the
    caller gives vector and keyword no weight at all, there is no relevance to protect: the
    full decay."""
    weight = w_vector + w_keyword
    return (w_vector * vector + w_keyword * keyword) / weight if weight > 0 else 1.0
