"""A `GraphMemoryStore`'s source decides the tier of what it writes: one whose puts would be
candidates (the inferred tier), which no read returns, is refused when the store is made."""

from __future__ import annotations

import pytest

from graph_memory.domain import Tier
from graph_memory.integrations.langgraph import GraphMemoryStore
from graph_memory.policy import DEFAULT_POLICY

URL = "http://127.0.0.1:9/graphql"  # never called: the constructor makes no request
INFERRED = sorted(s for s, t in DEFAULT_POLICY.source_tiers.items() if t == Tier.INFERRED)


def test_the_inferred_sources_are_the_ones_a_store_refuses() -> None:
    assert {"agent", "extraction", "conversation"} <= set(INFERRED)


@pytest.mark.parametrize("source", INFERRED)
def test_a_source_whose_puts_get_could_not_read_is_refused(source: str) -> None:
    with pytest.raises(ValueError, match=r"inferred tier.*must be readable by its get"):
        GraphMemoryStore(URL, "gm_key", source=source)


@pytest.mark.parametrize("source", ["tool", "user", "document", "admin", "system"])
def test_a_source_above_the_inferred_tier_is_accepted(source: str) -> None:
    assert GraphMemoryStore(URL, "gm_key", source=source).source == source
