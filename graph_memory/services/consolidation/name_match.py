"""How alike two entity names are, once GDS has proposed them as neighbours (pure).

GDS kNN over name vectors finds candidates; a vector alone rates synonyms ("Raven Freight" /
"Raven Logistics", 0.87) above legal-suffix variants ("Boreal Motors" / "Boreal Motors Inc.",
0.83), so the score also weighs the spelling (character trigrams), and names equal once
articles, punctuation and legal suffixes are dropped are the same entity outright.
"""

from __future__ import annotations

import re

__all__ = ["canonical_name", "name_score", "trigram_jaccard"]

_SUFFIXES = {
    "inc",
    "incorporated",
    "ltd",
    "llc",
    "corp",
    "corporation",
    "co",
    "company",
    "gmbh",
    "plc",
    "ag",
    "sa",
}
_ARTICLES = {"the", "a", "an"}


def canonical_name(name: str) -> str:
    words = re.sub(r"[^0-9a-z]+", " ", name.lower()).split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    while len(words) > 1 and words[-1] in _SUFFIXES:
        words = words[:-1]
    return " ".join(words)


def _trigrams(text: str) -> set[str]:
    padded = f"  {text} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def trigram_jaccard(a: str, b: str) -> float:
    x, y = _trigrams(canonical_name(a)), _trigrams(canonical_name(b))
    return len(x & y) / len(x | y) if x | y else 0.0


def name_score(a: str, b: str, cosine: float) -> float:
    """1.0 for one name spelled two ways; else the mean of meaning and spelling likeness."""
    if canonical_name(a) == canonical_name(b):
        return 1.0
    return (cosine + trigram_jaccard(a, b)) / 2.0
