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
import unicodedata

__all__ = ["canonical_name", "name_score", "same_name_groups", "trigram_jaccard"]

# A spelling group larger than this is not one entity's variants (a generic base such as
# "group" left by dropped legal forms): its pairs are left to the name vectors.
_GROUP_MAX = 8
# Symbols that make a name another name, though punctuation is dropped: "C" / "C++" / "C#",
# "AT&T" / "ATT".
_SIGNS = frozenset("+#&@")
# A lone word and that word with a legal form: for a reviewer, never merged outright
# (entities.AUTO_MERGE 0.9, PROPOSE 0.7).
_WORD_AND_FORM = 0.8

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


def _words(name: str) -> list[tuple[str, bool]]:
    """Case-folded words without accents ("Zürich" = "Zurich"; any script's letters count),
    each with whether it is initials joined into one word: "I.B.M.", "I B M" and "IBM"
    alike."""
    folded = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    out: list[tuple[str, bool]] = []
    after_letter = False  # the last word is a single letter, or initials joined
    for w in re.sub(r"[\W_]+", " ", plain).split():
        letter = len(w) == 1 and w.isalpha()
        if letter and after_letter:
            out[-1] = (out[-1][0] + w, True)
        else:
            out.append((w, False))
        after_letter = letter
    return out


def _base(words: list[tuple[str, bool]]) -> tuple[list[str], list[str]]:
    """A name's words (``_words``) without leading articles and trailing legal forms, and the
    legal forms dropped. Initials are never an article ("A.N. Wilson" is not "Wilson"); a
    legal form may be written as initials ("S.A.")."""
    while len(words) > 1 and words[0][0] in _ARTICLES and not words[0][1]:
        words = words[1:]
    words = list(words)
    forms: list[str] = []
    while len(words) > 1 and words[-1][0] in _SUFFIXES:
        forms.append(words.pop()[0])
    return [w for w, _ in words], forms


def canonical_name(name: str) -> str:
    return " ".join(_base(_words(name))[0])


def _trigrams(text: str) -> set[str]:
    padded = f"  {text} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def trigram_jaccard(a: str, b: str) -> float:
    return _jaccard(canonical_name(a), canonical_name(b))


def _jaccard(a: str, b: str) -> float:
    x, y = _trigrams(a), _trigrams(b)
    return len(x & y) / len(x | y) if x | y else 0.0


def _numbered(text: str) -> tuple[tuple[str, ...], str]:
    """The numbers in a name's words (leading zeros dropped) and its words without them."""
    numbers = tuple(n.lstrip("0") or "0" for n in re.findall(r"[0-9]+", text))
    return numbers, " ".join(re.sub(r"[0-9]+", " ", text).split())


def _same_number(x: str, y: str) -> bool:
    # A year written short is the same year ("FY24" / "FY2024"); a single digit is never a
    # short form ("iPhone 4" / "iPhone 14").
    short, long_ = sorted((x, y), key=len)
    return x == y or (len(short) >= 2 and long_.endswith(short))


def _siblings(a: str, b: str) -> bool:
    """Numbered siblings (``a``, ``b``: the names' words): the same words, and as many
    numbers, but a different one."""
    (na, wa), (nb, wb) = _numbered(a), _numbered(b)
    return (
        bool(na)
        and wa == wb
        and len(na) == len(nb)
        and not all(_same_number(x, y) for x, y in zip(na, nb, strict=True))
    )


def _signs(name: str) -> frozenset[str]:
    return _SIGNS.intersection(name)


def name_score(a: str, b: str, cosine: float) -> float:
    """1.0 for one name spelled two ways; 0.0 for numbered siblings; else the mean of meaning
    (``cosine``, not read for names alike once articles, punctuation and legal forms are
    dropped) and spelling likeness."""
    words_a, words_b = _words(a), _words(b)
    text_a, text_b = (" ".join(w for w, _ in ws) for ws in (words_a, words_b))
    if _siblings(text_a, text_b):
        return 0.0
    if _signs(a) != _signs(b):
        # "C" / "C++": the sign is the name; likeness of the names as written.
        return (cosine + _jaccard(a.casefold(), b.casefold())) / 2.0
    (base_a, forms_a), (base_b, forms_b) = _base(words_a), _base(words_b)
    if not base_a or not base_b:
        # Nothing to spell (punctuation only): meaning alone, at half weight.
        return cosine / 2.0
    if base_a == base_b:
        if len(base_a) > 1 or bool(forms_a) == bool(forms_b):
            return 1.0
        # One word, and only one side names a legal form: spelled alike, but perhaps said of
        # two kinds of thing (a city, a company), which no vector can tell: for a reviewer.
        return _WORD_AND_FORM
    return (cosine + _jaccard(" ".join(base_a), " ".join(base_b))) / 2.0


def same_name_groups(names: list[str]) -> list[list[str]]:
    """``names`` grouped by their words once articles, punctuation and legal forms are
    dropped ("IBM" / "I.B.M.", "Acme Corp" / "ACME Corp."; "C" and "C++" apart: a sign
    stays), groups of two or more (at most
    ``_GROUP_MAX``): candidates a name vector may miss, each pair scored by ``name_score``."""
    groups: dict[tuple[str, frozenset[str]], list[str]] = {}
    for n in names:
        base = canonical_name(n)
        if base:
            groups.setdefault((base, _signs(n)), []).append(n)
    return [sorted(g) for g in groups.values() if 2 <= len(g) <= _GROUP_MAX]
