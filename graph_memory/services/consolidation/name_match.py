"""How alike two entity names are, once GDS has proposed them as neighbours (pure).

GDS kNN over name vectors finds candidates; a vector alone rates synonyms ("Raven Freight" /
"Raven Logistics", 0.87) above legal-suffix variants ("Boreal Motors" / "Boreal Motors Inc.",
0.83), so the score also weighs the spelling (character trigrams), and names equal once
articles, punctuation and legal suffixes are dropped are the same entity outright, with two
exceptions where the spelling says they are not: a one-word name and that word with a legal
form ("Paris" / "Paris Inc": a city and a company, while "Boreal Motors" / "Boreal Motors Inc."
is one company), and numbered siblings ("Building 7" / "Building 9", "2024 budget" / "2025
budget"), which are never one entity however alike they read.
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


def _words(name: str) -> list[str]:
    """Lower-cased words; initials are one word however they are dotted or spaced ("I.B.M.",
    "I B M" and "IBM" alike)."""
    out: list[str] = []
    joining = False  # the last word is a run of single letters
    for w in re.sub(r"[^0-9a-z]+", " ", name.lower()).split():
        letter = len(w) == 1 and w.isalpha()
        if letter and joining:
            out[-1] += w
        else:
            out.append(w)
        joining = letter or (joining and letter)
    return out


def _base(name: str) -> tuple[list[str], list[str]]:
    """The name's words without leading articles and trailing legal forms, and the legal
    forms dropped."""
    words = _words(name)
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    forms: list[str] = []
    while len(words) > 1 and words[-1] in _SUFFIXES:
        forms.append(words.pop())
    return words, forms


def canonical_name(name: str) -> str:
    return " ".join(_base(name)[0])


def _trigrams(text: str) -> set[str]:
    padded = f"  {text} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def trigram_jaccard(a: str, b: str) -> float:
    return _jaccard(canonical_name(a), canonical_name(b))


def _jaccard(a: str, b: str) -> float:
    x, y = _trigrams(a), _trigrams(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def _numbers(name: str) -> set[str]:
    return {w.lstrip("0") or "0" for w in re.findall(r"[0-9]+", name)}


def name_score(a: str, b: str, cosine: float) -> float:
    """1.0 for one name spelled two ways; 0.0 for numbered siblings; else the mean of meaning
    and spelling likeness."""
    na, nb = _numbers(a), _numbers(b)
    if na != nb and na and nb:
        return 0.0
    (base_a, forms_a), (base_b, forms_b) = _base(a), _base(b)
    if base_a == base_b:
        if len(base_a) > 1 or bool(forms_a) == bool(forms_b):
            return 1.0
        # One word, and only one side names a legal form: spelled alike, said of two kinds
        # of thing; likeness decides, on the names as written.
        spelling = _jaccard(" ".join(_words(a)), " ".join(_words(b)))
        return (cosine + spelling) / 2.0
    return (cosine + trigram_jaccard(a, b)) / 2.0
