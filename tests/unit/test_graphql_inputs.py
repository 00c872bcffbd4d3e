"""Batch inputs built by ``prebuilt`` equal what strawberry's generic conversion builds."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import coerce_input_value
from strawberry.types.arguments import convert_argument

from graph_memory.graphql.mutation import CitationInput, EpisodeInputGQL, FactInputGQL
from graph_memory.graphql.query import FactFilterInput
from graph_memory.graphql.recall import RecallWeightsInput
from graph_memory.graphql.schema import schema
from graph_memory.graphql.types.trust import AuditFilterInput

FACT = {
    "subject": "Alice",
    "predicate": "lives_in",
    "object": "Paris",
    "episodes": [{"episodeId": "ep_1", "weight": 0.9}, {"episodeId": "ep_2"}],
    "cardinality": "ONE",
    "validFrom": "2024-01-01T00:00:00Z",
    "dependsOn": ["fact_1"],
    "ttlDays": 30,
}
EPISODE = {
    "userId": "u1",
    "sessionId": "s1",
    "summary": "a session summary long enough to keep",
    "outcome": "SUCCESS",
    "topics": ["travel"],
}


def _both(cls: type, graphql_name: str, raw: dict[str, Any]) -> tuple[Any, Any]:
    coerced = coerce_input_value(raw, schema._schema.type_map[graphql_name])  # type: ignore[arg-type]
    config, scalars = schema.config, schema.schema_converter.scalar_registry
    ours = convert_argument(coerced, cls, scalars, config)
    definitions = [c.__strawberry_definition__ for c in (cls, CitationInput)]  # type: ignore[attr-defined]
    hooks = [d.from_input for d in definitions]
    try:
        for d in definitions:
            d.from_input = None
        generic = convert_argument(coerced, cls, scalars, config)
    finally:
        for d, hook in zip(definitions, hooks, strict=True):
            d.from_input = hook
    return ours, generic


@pytest.mark.parametrize(
    ("cls", "name", "raw"),
    [
        (FactInputGQL, "FactInput", FACT),
        (
            FactInputGQL,
            "FactInput",
            {k: FACT[k] for k in ("subject", "predicate", "object")}
            | {"episodes": [{"episodeId": "ep_1"}]},
        ),
        (EpisodeInputGQL, "EpisodeInput", EPISODE),
        (FactFilterInput, "FactFilterInput", {"scopes": ["user:u1"], "subject": "Alice"}),
        (AuditFilterInput, "AuditFilterInput", {"from": "2024-01-01T00:00:00Z", "action": "x"}),
        (RecallWeightsInput, "RecallWeightsInput", {"vector": 1.0}),
    ],
)
def test_prebuilt_matches_generic_conversion(cls: type, name: str, raw: dict[str, Any]) -> None:
    ours, generic = _both(cls, name, raw)
    assert ours == generic
    assert type(ours) is cls


def test_nested_citations_are_input_objects_not_dicts() -> None:
    ours, _ = _both(FactInputGQL, "FactInput", FACT)
    assert [type(c) for c in ours.episodes] == [CitationInput, CitationInput]
    assert ours.episodes[0].weight == 0.9 and ours.episodes[1].weight is None
    assert ours.valid_from is not None and ours.valid_from.tzinfo is not None
