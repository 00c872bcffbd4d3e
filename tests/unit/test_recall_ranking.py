"""Recall's scoring rules, pure: Lucene escaping, keyword coverage, decay, weights, tiers."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.domain import ft_token
from graph_memory.errors import ValidationError
from graph_memory.services.recall.ranking import (
    Weights,
    build_lucene,
    content_relevance,
    coverage,
    escape_lucene,
    mask_names,
    name_keys,
    query_terms,
    recency,
    score_rows,
    settle_conflicts,
    text_stems,
)

NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("ZX-4471", r"ZX\-4471"),
        ("a+b", r"a\+b"),
        ("(x)", r"\(x\)"),
        ("[1 TO 5]", r"\[1 TO 5\]"),
        ("{y}", r"\{y\}"),
        ('"quoted"', r"\"quoted\""),
        ("k:v", r"k\:v"),
        ("wild*card?", r"wild\*card\?"),
        ("fuzzy~2", r"fuzzy\~2"),
        ("boost^3", r"boost\^3"),
        ("a&&b||!c", r"a\&\&b\|\|\!c"),
        ("path/to", r"path\/to"),
        ("back\\slash", r"back\\slash"),
        ("plain words", "plain words"),
    ],
)
def test_escape_lucene_neutralises_every_operator(raw: str, escaped: str) -> None:
    assert escape_lucene(raw) == escaped


def test_query_terms_drop_stop_words_punctuation_and_operators() -> None:
    assert query_terms("What does Alice LIKE? AND, OR the NOT -- ZX-4471 alice") == [
        "alice",
        "like?",
        "zx-4471",
    ]
    assert query_terms("what is the") == []


def test_lucene_query_is_scoped_and_escaped() -> None:
    q = build_lucene("acme", ["user:alice", "tenant"], "ticket ZX-4471: (urgent)")
    a, t = ft_token("acme", "user:alice"), ft_token("acme", "tenant")
    assert q == f"+ft_scope:({a} {t})^0 +text:(ticket zx\\-4471\\: \\(urgent\\))"
    assert build_lucene("acme", ["tenant"], "the of and ?") is None


def test_scope_tokens_of_prefix_tenants_share_nothing() -> None:
    # "acme" vs "acme-2": raw ids would share the analyzer token "acme".
    assert ft_token("acme", "tenant") != ft_token("acme-2", "tenant")
    assert ft_token("acme", "tenant").isalnum() and ft_token("acme-2", "tenant").isalnum()


def test_coverage_counts_query_words_found_like_the_analyzer_splits() -> None:
    assert coverage("ZX-4471", "Ticket ZX-4471 is blocked") == 1.0
    # "like" covers "likes" (stems), "music" is missing.
    assert coverage("what music does Alice like", "Alice likes jazz") == pytest.approx(2 / 3)
    assert coverage("the of", "anything") == 0.0


def test_recency_is_a_true_half_life() -> None:
    day = 86_400.0
    assert recency(0, 30) == 1.0
    assert recency(30 * day, 30) == pytest.approx(0.5)
    assert recency(60 * day, 30) == pytest.approx(0.25)
    assert recency(-5 * day, 30) == 1.0  # valid from the future: counts as now


def test_weights_normalise_and_reject_nonsense() -> None:
    assert Weights(2, 0, 1, 1).normalised() == Weights(0.5, 0.0, 0.25, 0.25)
    for bad in (Weights(0, 0, 0, 0), Weights(-1, 1, 1, 1), Weights(float("nan"), 1, 1, 1)):
        with pytest.raises(ValidationError):
            bad.normalised()


def _row(
    ident: str,
    *,
    sim: float,
    kw: float | None = None,
    tier: str = "user",
    days: float = 0,
    conf: float = 0.9,
    text: str = "alice likes jazz",
    subject: str = "alice",
    predicate: str = "likes",
) -> dict[str, Any]:
    """A candidate row as recall.facts returns it."""
    rank = {"system": 3, "admin": 2, "user": 1, "inferred": 0}[tier]
    return {
        "id": ident,
        "tier": tier,
        "tier_rank": rank,
        "confidence": conf,
        "text": text,
        "fresh_ms": int((NOW - timedelta(days=days)).timestamp() * 1000),
        "subject": subject,
        "predicate": predicate,
        # As the index reports it: (1 + cos) / 2.
        "similarity": (1 + sim) / 2,
        "keyword": kw,
    }


def _score(rows: list[dict[str, Any]], query: str = "alice jazz") -> list[Any]:
    return score_rows(
        "fact", rows, query=query, weights=Weights().normalised(), half_life_days=30, valid_at=NOW
    )


def test_breakdown_adds_up_on_the_pools_scale() -> None:
    (s,) = _score([_row("f1", sim=0.6, kw=2.0, days=30)])
    # Alone in its pool it is the best on every signal; the raw cosine is kept beside.
    assert s.similarity == 1.0 and s.cosine == pytest.approx(0.6)
    # The pool's newest memory is the recency anchor: itself.
    assert s.keyword == 1.0 and s.decay == 1.0 and s.recency == 1.0
    assert s.total == pytest.approx(0.5 * 1.0 + 0.2 * 1.0 + 0.2 * 1.0 + 0.1 * 0.9)
    assert s.tier_boost == 0.0 and s.relevance == 1.0 and s.match == 1.0  # words all covered


def test_vector_is_a_share_of_the_pools_best_cosine() -> None:
    a, b = _score([_row("a", sim=0.4), _row("b", sim=0.2)])
    assert (a.similarity, b.similarity) == (1.0, 0.5)
    assert (a.cosine, b.cosine) == (pytest.approx(0.4), pytest.approx(0.2))


def test_keyword_is_bm25_relative_to_the_best_without_names() -> None:
    a, b = _score(
        [
            _row("a", sim=0.1, kw=4.0, text="alice likes jazz"),
            _row("b", sim=0.1, kw=2.0, text="alice went home"),
        ]
    )
    # BM25 already weighs the words it matched by rarity: no second penalty for the rest.
    assert a.keyword == 1.0 and b.keyword == 0.5
    # The absolute floor still asks for the query's words: half the best, half the words.
    assert b.match == pytest.approx(0.5 * 0.5)


def test_keyword_counts_only_words_beyond_the_entity_names() -> None:
    rows = [
        _row("a", sim=0.1, kw=4.0, text="Alice has a cat named Tom"),
        _row("b", sim=0.1, kw=3.0, text="Alice went home"),
    ]
    a, b = score_rows(
        "fact",
        rows,
        query="Alice cat",
        weights=Weights().normalised(),
        half_life_days=30,
        valid_at=NOW,
        content_query="cat",
    )
    assert a.keyword == 1.0 and b.keyword == 0.0


def test_fresher_wins_between_equally_similar_facts() -> None:
    old, new = _score([_row("old", sim=0.7, days=365), _row("new", sim=0.7, days=1)])
    assert new.total > old.total


def test_system_tier_outranks_a_similar_user_fact_but_not_an_unrelated_one() -> None:
    sys_fact, user_fact = _score(
        [_row("s", sim=0.6, tier="system"), _row("u", sim=0.7, tier="user")]
    )
    assert sys_fact.tier_boost > 0 and sys_fact.total > user_fact.total
    weak_sys, strong_user = _score(
        [_row("s", sim=0.1, tier="system", days=300), _row("u", sim=0.9, tier="user")]
    )
    assert strong_user.total > weak_sys.total


def test_conflicting_claims_on_one_slot_are_ordered_by_tier() -> None:
    rows = [
        _row("user-claim", sim=0.95, tier="user", predicate="refund_window", subject="refunds"),
        _row("other", sim=0.8, tier="user", predicate="likes"),
        _row("policy", sim=0.5, tier="system", predicate="policy.refund_window", subject="refunds"),
    ]
    ranked = sorted(_score(rows), key=lambda s: -s.total)
    assert [s.id for s in ranked] == ["user-claim", "other", "policy"]
    assert [s.id for s in settle_conflicts(ranked)] == ["policy", "other", "user-claim"]


def test_query_terms_budget_counts_analyzer_tokens_not_words() -> None:
    """Lucene splits "a-b-c" into clauses; past 1,024 it refuses the query outright."""
    long_word = "-".join(f"w{i}" for i in range(1500))
    terms = query_terms(f"order {long_word} status")
    pieces = [p for t in terms for p in re.findall(r"[^\W_]+", t)]
    assert terms[0] == "order"
    assert len(pieces) <= 64
    lucene = build_lucene("t", ["tenant"], long_word)
    assert lucene is not None and lucene.count("w") <= 64


def test_query_terms_budget_counts_each_ideograph_and_kana_as_a_clause() -> None:
    """Lucene's standard tokenizer makes every ideograph and kana a term of its own: a run of
    1,100 Chinese characters is 1,100 clauses, not one word."""
    ideographs = "".join(chr(0x4E00 + i) for i in range(1100))
    terms = query_terms(ideographs)
    assert 0 < len(terms) <= 64 and all(len(t) == 1 for t in terms)
    mixed = query_terms("Where did Alice go \u65c5\u884c\u306b\u884c\u3063\u305f")
    assert mixed[:2] == ["alice", "go"]
    assert coverage("\u65c5\u884c", "\u5f7c\u306f\u65c5\u884c\u306b") == 1.0
    assert query_terms("\u6211" * 1100) == ["\u6211"]  # once, not once per character
    assert query_terms("___ __") == [] and build_lucene("t", ["tenant"], "___") is None


def test_name_keys_are_word_runs_normalised_like_entity_keys() -> None:
    keys = name_keys("Where did James\u2019 sister and Alice's New York friend go?")
    assert "james" in keys and "alice" in keys and "new york" in keys
    assert "new york friend" in keys  # up to three words
    assert all(k == " ".join(k.split()).lower() for k in keys)


@pytest.mark.parametrize(
    ("query", "names", "masked"),
    [
        ("What is the name of Alice's cat?", ["Alice"], "What is the name of cat?"),
        ("where does ALICE live", ["alice"], "where does live"),
        ("Who works at Acme Corp?", ["acme corp", "Acme"], "Who works at ?"),
        ("Where did James\u2019 brother move?", ["James"], "Where did brother move?"),
        # Nothing named, or nothing but the name (and stop words) left: no content to judge.
        ("Where does Bob live?", ["Alice"], None),
        ("tell me about Alice", ["Alice"], None),
        ("Alice", ["Alice"], None),
        # A name inside another word is not that name.
        ("Where is Alicent?", ["Alice"], None),
    ],
)
def test_mask_names_keeps_what_the_query_asks_beyond_its_names(
    query: str, names: list[str], masked: str | None
) -> None:
    assert mask_names(query, names) == masked


def test_content_relevance_is_cosine_or_keyword_coverage_without_the_names() -> None:
    # Index cosine is (1 + cos) / 2: 0.6 is cos 0.2.
    tea, cat = text_stems("Alice likes tea"), text_stems("Alice has a cat")
    assert content_relevance(0.6, 0.0, "what is the name of cat?", tea) == 0.2
    # Keyword coverage of the name-free words: "cat" of (name, cat) found.
    assert content_relevance(0.5, 1.0, "name of cat", cat) == 0.5
    assert content_relevance(0.9, 1.0, None, tea) is None
    assert content_relevance(None, 1.0, "cat", cat) is None
