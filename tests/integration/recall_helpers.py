"""Helpers shared by the recall tests (not a test module)."""

from __future__ import annotations

from typing import Any

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode

SCOPES = ["user:alice"]


def ids(res: dict[str, Any]) -> list[str]:
    """The ids of a recall result's items, in rank order."""
    return [i["id"] for i in res["items"]]


def one(client: GraphMemoryClient, f: dict[str, Any]) -> str:
    """Assert one fact, fail the test if it was refused, and return its id."""
    r = client.assert_facts([f])["results"][0]
    assert r["ok"], r
    return str(r["factId"])


def new_ep(client: GraphMemoryClient, user: str = "alice", **kw: Any) -> str:
    """Record one episode for ``user`` and return its id."""
    return client.record_episode(**episode(user, **kw))
