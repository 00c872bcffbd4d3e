"""A request's text is parsed once for all its readers; a long one off the event loop."""

from __future__ import annotations

import asyncio
import threading

import pytest
from graphql import GraphQLError

from graph_memory import graphql_text
from graph_memory.graphql_text import ASIDE_CHARS, document, parse_aside, parsed


def test_every_reader_gets_the_one_parse_of_a_text() -> None:
    short = '{ facts(filter: {scopes: ["tenant"]}) { edges { node { id } } } }'
    long = "{ " + "__typename " * (ASIDE_CHARS // 10) + "}"
    for text in (short, long):
        assert document(text, 5_000) is document(text, 5_000) is parsed(text, 5_000)
    assert parsed("{ broken", 5_000) is None
    with pytest.raises(GraphQLError):
        document("{ broken", 5_000)


def test_only_the_last_few_long_trees_are_kept() -> None:
    texts = ["{ " + f"a{i}: __typename " * (ASIDE_CHARS // 10) + "}" for i in range(80)]
    for t in texts:
        document(t, None)
    assert graphql_text._long.cache_info().currsize <= 16


def test_a_long_text_is_parsed_in_a_worker_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real = graphql_text.parsed

    def watched(query: str, max_tokens: int | None) -> object:
        threads.append(threading.current_thread().name)
        return real(query, max_tokens)

    monkeypatch.setattr(graphql_text, "parsed", watched)
    long = "{ " + "b: __typename " * (ASIDE_CHARS // 10) + "}"
    asyncio.run(parse_aside(long, None, "t"))
    asyncio.run(parse_aside("{ __typename }", None, "t"))  # short: left to its readers
    assert len(threads) == 1 and threads[0] != threading.main_thread().name
    assert graphql_text._long.cache_info().currsize >= 1
