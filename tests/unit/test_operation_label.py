"""The label a request is counted under comes from the schema's root fields only."""

from __future__ import annotations

import pytest

from graph_memory.graphql.operation_label import describe
from graph_memory.observability import _loopback

MAX_TOKENS = 10_000


@pytest.mark.parametrize(
    ("query", "name", "expected"),
    [
        ('{ recall(query: "x", scopes: ["user:a"]) { items { id } } }', None, ("query", "recall")),
        ("mutation M { assertFacts(facts: []) { ok } }", None, ("mutation", "assertFacts")),
        # aliases of one field are still that field
        ("{ a: fact(id: 1) { id } b: fact(id: 2) { id } }", None, ("query", "fact")),
        ("{ fact(id: 1) { id } facts(scopes: []) { id } }", None, ("query", "multiple")),
        ("{ __schema { types { name } } }", None, ("query", "introspection")),
        ("{ __typename fact(id: 1) { id } }", None, ("query", "fact")),
        # fields reached through fragments count as the fragment's own
        (
            "query { ...F } fragment F on Query { history(id: 1) { id } }",
            None,
            ("query", "history"),
        ),
        ("query { ... on Query { fact(id: 1) { id } } }", None, ("query", "fact")),
        # the chosen operation of several
        (
            "query A { fact(id: 1) { id } } mutation B { retractFact(id: 1) { id } }",
            "B",
            ("mutation", "retractFact"),
        ),
        ("query A { fact(id: 1) { id } } query B { facts { id } }", None, ("none", "invalid")),
        # names the schema lacks, or text that does not parse, never become labels
        ("{ secretTenantName { id } }", None, ("query", "invalid")),
        ("mutation { recall { id } }", None, ("mutation", "invalid")),
        ("{ unclosed", None, ("none", "invalid")),
        ("", None, ("none", "none")),
    ],
)
def test_describe(query: str, name: str | None, expected: tuple[str, str]) -> None:
    assert describe(query, name, MAX_TOKENS) == expected


def test_describe_ignores_what_is_not_text() -> None:
    assert describe(None, None, MAX_TOKENS) == ("none", "none")
    assert describe(["{ fact }"], 7, MAX_TOKENS) == ("none", "none")


def test_a_fragment_cycle_does_not_loop() -> None:
    query = "query { ...A } fragment A on Query { ...B } fragment B on Query { ...A fact(id: 1) }"
    assert describe(query, None, MAX_TOKENS) == ("query", "fact")


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("127.0.0.1", True),
        ("127.8.0.1", True),
        ("::1", True),
        ("localhost", True),
        ("10.0.0.5", False),
        ("192.168.1.2", False),
        ("example.org", False),
        (None, False),
    ],
)
def test_loopback(host: str | None, local: bool) -> None:
    assert _loopback(host) is local
