"""A service that does not answer is a typed error of the client, for the sync and async
clients and what is built on them (the LangGraph store): UNAVAILABLE, naming the URL it asked
without userinfo or query, never the key."""

from __future__ import annotations

import asyncio
import socket

import pytest

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError

KEY = "gm_secret_key_never_shown"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: nothing listens there


def test_a_service_that_does_not_answer_is_unavailable() -> None:
    url = f"http://user:pw@127.0.0.1:{_closed_port()}/graphql?token=t"
    with (
        GraphMemoryClient(url, KEY, timeout=2) as client,
        pytest.raises(GraphMemoryClientError) as err,
    ):
        client.execute("{ __typename }")
    assert err.value.code == "UNAVAILABLE"
    text = str(err.value)
    assert "127.0.0.1" in text and "pw" not in text and "token" not in text and KEY not in text

    async def go() -> str:
        a = AsyncGraphMemoryClient(url, KEY, timeout=2)
        try:
            await a.execute("{ __typename }")
        except GraphMemoryClientError as e:
            return e.code
        finally:
            await a.aclose()
        return "no error"

    assert asyncio.run(go()) == "UNAVAILABLE"


def test_the_langgraph_store_says_unavailable_too() -> None:
    from graph_memory.integrations.langgraph import GraphMemoryStore

    store = GraphMemoryStore(f"http://127.0.0.1:{_closed_port()}/graphql", KEY)
    with pytest.raises(GraphMemoryClientError) as err:
        store.get(("user", "alice"), "k")
    assert err.value.code == "UNAVAILABLE"
