"""The write gate's backstop for what is never kept, whatever sensitivity a model marked:
secrets by their shape (checksums where a format has one), special categories by predicate
words or a named condition; ordinary facts and sentences pass."""

from __future__ import annotations

import pytest

from graph_memory.services.facts.sensitive import (
    memo_problem,
    redact_secrets,
    secret_in,
    special_category,
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("My password is hunter2", "a password or PIN"),
        ("password: swordfish", "a password or PIN"),
        ("Reset password hunter2 for the user", "a password or PIN"),
        ("PIN 1234", "a password or PIN"),
        ("card 4111 1111 1111 1111", "a payment card number"),
        ("4111-1111-1111-1111", "a payment card number"),
        ("SSN 078-05-1120", "a social security number"),
        ("IBAN DE89 3704 0044 0532 0130 00", "a bank account number (IBAN)"),
        ("key sk-abcdefghijklmnopqrstuvwxyz12", "an API or private key"),
        ("AKIAABCDEFGHIJKLMNOP", "an API or private key"),
    ],
)
def test_secrets_are_found_by_their_shape(text: str, kind: str) -> None:
    assert secret_in(text) == kind
    assert memo_problem(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "the wifi password is on the fridge note",
        "the password is changed every month",
        "Reset password for the user",
        "pin the note to the board",
        "order 4111111111111112 shipped",  # fails the Luhn check: an order number
        "call 555-123-4567 tomorrow",
        "DE89 is a postcode prefix",
        "Alice moved to Rome in 2024",
    ],
)
def test_ordinary_text_is_no_secret(text: str) -> None:
    assert secret_in(text) is None
    assert redact_secrets(text) == text


def test_a_summary_keeps_everything_but_the_secret() -> None:
    out = redact_secrets("Alice (SSN 078-05-1120) paid with 4111 1111 1111 1111 and moved.")
    assert out == "Alice (SSN [redacted]) paid with [redacted] and moved."


@pytest.mark.parametrize(
    ("predicate", "obj", "category"),
    [
        ("password", "hunter2", "secret"),
        ("wifi.password", "x", "secret"),
        ("diagnosed_with", "flu", "health"),
        ("medication", "aspirin", "health"),
        ("has", "HIV", "health"),
        ("ssn", "1", "id number"),
        ("credit_card_number", "4", "id number"),
        ("religion", "Catholic", "belief"),
        ("political_party", "Greens", "belief"),
        ("sexual_orientation", "x", "sex life or origin"),
        ("union_member", "yes", "union membership"),
        ("salary", "100k", "finances"),
        ("net_worth", "1M", "finances"),
        # Run together, as a model may spell them.
        ("salaryamount", "90000 EUR", "finances"),
        ("bankaccount", "12345678", "id number"),
        ("diagnosedwith", "hiking", "health"),
        ("suffers_from", "asthma", "health"),
        ("has", "clinical depression", "health"),
        ("votes_for", "the green party", "belief"),
        ("party_member", "Labour", "belief"),
        ("is", "gay", "sex life or origin"),
    ],
)
def test_special_categories_are_found_by_predicate_or_condition(
    predicate: str, obj: str, category: str
) -> None:
    assert special_category(predicate, obj) == category


@pytest.mark.parametrize(
    ("predicate", "obj"),
    [
        ("lives_in", "Paris"),
        ("likes", "tea"),
        ("race_time", "3h"),
        ("works_at", "Acme"),
        ("attended", "a birthday party"),
        ("hobby", "spinning"),
        ("favourite_band", "The Stroke Orchestra fan club"),
        ("prefers", "window seats"),
    ],
)
def test_ordinary_facts_are_no_special_category(predicate: str, obj: str) -> None:
    assert special_category(predicate, obj) is None
