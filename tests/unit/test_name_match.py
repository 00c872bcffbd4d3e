"""Entity-name likeness used by consolidation's entity resolution (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graph_memory.services.consolidation.name_match import (
    canonical_name,
    name_score,
    trigram_jaccard,
)


def test_one_name_spelled_two_ways_is_the_same_entity() -> None:
    for a, b in [
        ("Acme Corp", "ACME corp."),
        ("Core team", "The Core Team"),
        ("Boreal Motors", "Boreal Motors Inc."),
        ("Vivid Widgets", "Vivid-Widgets"),
    ]:
        assert canonical_name(a) == canonical_name(b)
        assert name_score(a, b, cosine=0.5) == 1.0


def test_synonyms_and_namesakes_stay_below_the_proposal_threshold() -> None:
    assert name_score("Meridian Freight", "Meridian Logistics", cosine=0.87) < 0.7
    assert name_score("Alice Smith", "Alice Jones", cosine=0.78) < 0.7
    assert 0.7 <= name_score("New York", "New York City", cosine=0.948) < 0.9


def test_a_lone_article_or_suffix_is_kept() -> None:
    assert canonical_name("The") == "the" and canonical_name("Inc.") == "inc"


@given(st.text(max_size=30), st.text(max_size=30), st.floats(min_value=-1.0, max_value=1.0))
def test_score_is_symmetric_and_bounded(a: str, b: str, cosine: float) -> None:
    assert name_score(a, b, cosine) == name_score(b, a, cosine)
    assert -0.5 <= name_score(a, b, cosine) <= 1.0
    assert 0.0 <= trigram_jaccard(a, b) <= 1.0
