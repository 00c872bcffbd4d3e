"""Entity-name likeness used by consolidation's entity resolution (pure)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graph_memory.services.consolidation.name_match import (
    canonical_name,
    name_score,
    same_name_groups,
    trigram_jaccard,
)


def test_one_name_spelled_two_ways_is_the_same_entity() -> None:
    for a, b in [
        ("Acme Corp", "ACME corp."),
        ("Core team", "The Core Team"),
        ("Boreal Motors", "Boreal Motors Inc."),
        ("Vivid Widgets", "Vivid-Widgets"),
        ("IBM", "I.B.M."),
        ("J.R.R. Tolkien", "J R R Tolkien"),
        ("Acme S.A.", "Acme SA"),
        ("Zürich Re", "Zurich Re"),
    ]:
        assert canonical_name(a) == canonical_name(b)
        assert name_score(a, b, cosine=0.5) == 1.0


def test_synonyms_and_namesakes_stay_below_the_proposal_threshold() -> None:
    assert name_score("Meridian Freight", "Meridian Logistics", cosine=0.87) < 0.7
    assert name_score("Alice Smith", "Alice Jones", cosine=0.78) < 0.7
    assert 0.7 <= name_score("New York", "New York City", cosine=0.948) < 0.9


def test_a_lone_word_and_that_word_with_a_legal_form_are_not_one_name() -> None:
    # A city and a company: alike enough to propose (PROPOSE 0.7) whatever the name vectors
    # say, never merged outright (AUTO_MERGE 0.9).
    for a, b in [("Paris", "Paris Inc"), ("Georgia", "Georgia LLC"), ("Jordan", "Jordan Co.")]:
        assert canonical_name(a) == canonical_name(b)
        for cosine in (0.2, 0.776, 0.95):
            assert 0.7 <= name_score(a, b, cosine) < 0.9
            assert name_score(a, b, cosine) == name_score(b, a, cosine)
    # Both with a legal form, or a longer name: one company spelled two ways.
    assert name_score("Paris Inc", "Paris Incorporated", cosine=0.5) == 1.0
    assert name_score("Boreal Motors", "Boreal Motors Inc.", cosine=0.5) == 1.0


def test_initials_are_never_an_article_and_every_script_counts() -> None:
    assert canonical_name("A.N. Wilson") == "an wilson"
    assert name_score("A.N. Wilson", "Wilson", cosine=0.8) < 0.9
    # Letters outside ASCII are letters: two names in other scripts are not one empty name.
    assert name_score("Москва", "東京", cosine=0.8) < 0.9
    assert name_score("Москва", "москва", cosine=0.2) == 1.0
    assert name_score("!!!", "???", cosine=0.8) < 0.9


def test_numbered_siblings_are_never_alike() -> None:
    for a, b in [("Building 7", "Building 9"), ("iPhone 14", "iPhone 15"),
                 ("2024 budget", "2025 budget")]:  # fmt: skip
        assert name_score(a, b, cosine=0.97) == 0.0
    # The same number however it is written, a number on one side only, other words beside
    # the numbers: no siblings, likeness decides.
    for a, b in [("Route 66", "Route 066"), ("Building", "Building 7"), ("FY2024", "FY24"),
                 ("Web 2.0", "Web 2"), ("1,000 Islands", "1000 Islands"),
                 ("Windows 10", "Windows 10 22H2")]:  # fmt: skip
        assert name_score(a, b, cosine=0.9) > 0.6, (a, b)


def test_a_lone_article_or_suffix_is_kept() -> None:
    assert canonical_name("The") == "the" and canonical_name("Inc.") == "inc"


@given(st.text(max_size=30), st.text(max_size=30), st.floats(min_value=-1.0, max_value=1.0))
def test_score_is_symmetric_and_bounded(a: str, b: str, cosine: float) -> None:
    assert name_score(a, b, cosine) == name_score(b, a, cosine)
    assert -0.5 <= name_score(a, b, cosine) <= 1.0
    assert 0.0 <= trigram_jaccard(a, b) <= 1.0


def test_names_alike_by_spelling_alone_are_grouped() -> None:
    # Candidates a name vector misses ("ibm" / "i.b.m." are 0.34 apart by the local embedder).
    groups = same_name_groups(
        ["ibm", "i.b.m.", "paris", "paris inc", "acme corp", "acme corp.", "the acme corp",
         "building 7", "building 9", "initech", "!!!"]
    )  # fmt: skip
    assert sorted(groups) == [
        ["acme corp", "acme corp.", "the acme corp"],
        ["i.b.m.", "ibm"],
        ["paris", "paris inc"],
    ]
    # A sign makes another name: not grouped, and not alike however close the vectors.
    assert same_name_groups(["c", "c#", "c++", "c.", "at&t", "att"]) == [["c", "c."]]
    assert name_score("C", "C++", cosine=0.9) < 0.7 and name_score("C#", "C", 0.9) < 0.7
    # A long word and that word with a legal form: still only proposed.
    assert 0.7 <= name_score("Massachusetts", "Massachusetts Co", cosine=0.99) < 0.9
    # A base many names share is no one entity's spellings: left to the name vectors.
    assert same_name_groups([f"group {s}" for s in ["inc", "ltd", "llc", "co", "ag", "sa", "plc",
                                                    "gmbh", "corp"]] + ["group"]) == []  # fmt: skip
