from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graph_memory.domain import (
    HEADER_WORDS,
    MAX_SPEAKER_CHARS,
    MAX_SPEAKER_KEY_BYTES,
    speaker_key,
    speaker_label,
)


@pytest.mark.parametrize(
    ("summary", "label"),
    [
        ("Leo: Poor guy.", "Leo"),
        ("Leo: I passed my lieutenant exam", "Leo"),
        ("  Leo:   hi", "Leo"),
        ("Leo:\nhi", "Leo"),
        ("Mary Jane Watson: hi", "Mary Jane Watson"),
        ("Mary-Jane O'Brien: hi", "Mary-Jane O'Brien"),
        ("Mary-Jane O\u2019Brien: hi", "Mary-Jane O\u2019Brien"),
        ("Dr. Smith: hi", "Dr. Smith"),
        ("J.R.R. Tolkien: hello", "J.R.R. Tolkien"),
        ("Дмитрий: привет", "Дмитрий"),
        ("Ève Durand: oui", "Ève Durand"),
        ("Σωκράτης: γεια", "Σωκράτης"),
        ("\u01c5emal: hi", "\u01c5emal"),  # a title-case letter
        # A field of a note or message heads the line, not a speaker.
        ("Note: water the plants", None),
        ("Update: the deploy is done", None),
        ("Project Update: on track", None),
        ("Re: lunch on Friday", None),
        ("Fwd: the invoice", None),
        ("P.S.: bring snacks", None),
        ("Q: what time?", None),
        # No text after the colon: a heading, not a line someone said.
        ("Leo:", None),
        ("Leo:   ", None),
        # The colon must follow the label and be followed by white space.
        ("Leo:hi", None),
        ("Leo : hi", None),
        ("https://example.com is down", None),
        ("HTTPS://example.com", None),
        ("10:30 call with Leo", None),
        ("At 10:30: call", None),
        ("Room 101: booked", None),
        # Lower-case words, four words, digits, scripts without case.
        ("leo: hi", None),
        ("Leo and Samira: hi", None),
        ("Mary Jane Van Dyke: hi", None),
        ("R2D2: beep", None),
        ("李明: 你好", None),
        ("", None),
        ("Just a sentence without a label.", None),
    ],
)
def test_speaker_label(summary: str, label: str | None) -> None:
    assert speaker_label(summary) == label


def test_a_label_longer_than_a_name_is_no_speaker() -> None:
    # The (tenant, speaker) index key has a size limit: a "label" of thousands of letters
    # (3-byte Hangul; "İ", which lower-cases to two code points) is no name at all.
    assert speaker_label("A" + "\uac00" * 2730 + ": hi there") is None
    assert speaker_key("\u0130" * 3000 + ": hi there") is None
    longest = "L" + "e" * (MAX_SPEAKER_CHARS - 1)
    assert speaker_label(longest + ": hi") == longest
    assert speaker_label(longest + "o: hi") is None
    grown = speaker_key("\u0130" * MAX_SPEAKER_CHARS + ": hi")  # 2 bytes each, 3 lower-cased
    assert grown is not None and len(grown.encode()) <= MAX_SPEAKER_KEY_BYTES


@given(st.text(min_size=1, max_size=200))
def test_a_speaker_key_always_fits_its_bound(text: str) -> None:
    key = speaker_key(text.capitalize() + ": hi")
    assert key is None or len(key.encode()) <= MAX_SPEAKER_KEY_BYTES


def test_speaker_key_is_the_entity_key_of_the_label() -> None:
    assert speaker_key("Mary  Jane: hi") == "mary jane"
    assert speaker_key("Дмитрий: привет") == "дмитрий"
    assert speaker_key("no label here") is None


_WORD = st.from_regex(r"\A[A-Z][a-z]{0,8}\Z").filter(lambda w: w.lower() not in HEADER_WORDS)


@given(st.lists(_WORD, min_size=1, max_size=3), st.from_regex(r"\A[a-z][a-z ]{0,20}\Z"))
def test_any_one_to_three_capitalised_words_label_a_line(words: list[str], text: str) -> None:
    label = " ".join(words)
    assert speaker_label(f"{label}: {text}") == label
    assert speaker_label(f"{label} Extra: {text}") == (label + " Extra" if len(words) < 3 else None)
