"""The query shape model (graphql/limits.py) and the limits' settings, without a server."""

from __future__ import annotations

import pytest
from graphql import FragmentDefinitionNode, OperationDefinitionNode, parse

from graph_memory.errors import LimitExceeded, QueryTooComplex
from graph_memory.graphql.limits import DEFAULT_LIST_SIZE, SEARCH_COST, Shape, check_operation
from graph_memory.graphql.schema import schema
from graph_memory.limits import Limits

WIDE = Limits(max_cost=10**12, max_depth=100, max_aliases=10**6)


def shape(query: str, variables: dict[str, object] | None = None, limits: Limits = WIDE) -> Shape:
    doc = parse(query)
    op = next(d for d in doc.definitions if isinstance(d, OperationDefinitionNode))
    frags = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    return check_operation(schema._schema, op, frags, variables, limits)


def test_lists_multiply_by_their_first_argument() -> None:
    q = 'query($n: Int!) { facts(filter: {scopes: ["s"]}, first: $n) { edges { node { id } } } }'
    # facts 1, edges n, node n, id n
    assert shape(q, {"n": 7}).cost == 1 + 3 * 7
    assert shape(q, {"n": 70}).cost == 1 + 3 * 70


def test_a_list_without_a_size_counts_the_default() -> None:
    q = '{ fact(id: "x") { dependents { id } } }'
    assert shape(q).cost == 1 + 2 * DEFAULT_LIST_SIZE


def test_siblings_do_not_multiply_each_other() -> None:
    q = '{ fact(id: "x") { dependents { id } dependsOn { id } provenance { weight } } }'
    assert shape(q).cost == 1 + 3 * 2 * DEFAULT_LIST_SIZE


def test_recall_is_weighted_and_its_items_take_k() -> None:
    q = '{ recall(query: "q", scopes: ["s"], k: 3) { items { text } } }'
    assert shape(q).cost == 1 + SEARCH_COST + 2 * 3


def test_a_scores_context_part_is_not_a_search() -> None:
    q = '{ recall(query: "q", scopes: ["s"], k: 3) { items { score { context } } } }'
    assert shape(q).cost == 1 + SEARCH_COST + 3 * 3


def test_the_clients_own_recall_fits_the_default_limits() -> None:
    from graph_memory._client_ops import RecallCalls

    op = RecallCalls.recall("where does alice live", ["user:alice"], {"k": 20})
    assert shape(op.query, op.variables, Limits()).cost < Limits().max_cost


@pytest.mark.parametrize("k", [101, 100_000])
def test_a_k_past_its_limit_costs_as_the_largest_accepted_so_the_service_says_why(k: int) -> None:
    # The service's "k must be in 1..100" names the argument; a cost error would not.
    from graph_memory._client_ops import RecallCalls
    from graph_memory.services.recall.request import MAX_K

    too_big = RecallCalls.recall("q", ["user:alice"], {"k": k})
    largest = RecallCalls.recall("q", ["user:alice"], {"k": MAX_K})
    cost = shape(too_big.query, too_big.variables, Limits()).cost
    assert cost == shape(largest.query, largest.variables, Limits()).cost < Limits().max_cost


def test_fragments_are_walked_and_counted_per_spread() -> None:
    q = """{ fact(id: "x") { ...F dependents { ...F } } }
           fragment F on Fact { id provenance { weight } }"""
    direct = (
        '{ fact(id: "x") { id provenance { weight } dependents { id provenance { weight } } } }'
    )
    assert shape(q) == shape(direct)


def test_depth_excludes_typename_and_is_bounded() -> None:
    assert shape('{ fact(id: "x") { supersedes { __typename id } } }').depth == 3
    with pytest.raises(QueryTooComplex):
        shape('{ fact(id: "x") { supersedes { supersedes { id } } } }', limits=Limits(max_depth=3))


def test_aliases_are_counted() -> None:
    q = "{ " + " ".join(f"a{i}: __typename" for i in range(5)) + " }"
    assert shape(q).aliases == 5
    with pytest.raises(QueryTooComplex):
        shape(q, limits=Limits(max_aliases=4))


def test_cost_limit_stops_the_walk() -> None:
    q = '{ fact(id: "x") { ' + "dependents { " * 30 + "id" + " }" * 30 + " } }"
    with pytest.raises(QueryTooComplex, match="cost"):
        shape(q, limits=Limits(max_depth=100))


def test_argument_limits_name_the_limit() -> None:
    q = "query($s: [String!]!) { facts(filter: {scopes: $s}) { edges { cursor } } }"
    with pytest.raises(LimitExceeded) as ei:
        shape(q, {"s": ["x"] * 3}, Limits(max_scopes=2))
    assert (ei.value.limit, ei.value.maximum, ei.value.field) == ("max_scopes", 2, "scopes")


def test_an_argument_limit_says_where_in_the_value_it_was_exceeded() -> None:
    """A string too long deep in a batch names its item: which of 100 facts to fix."""
    q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }"
    item = {"subject": "a", "predicate": "p", "object": "o", "episodes": []}
    long = {**item, "object": "x" * 50}
    with pytest.raises(LimitExceeded) as ei:
        shape(q, {"f": [item, item, long]}, Limits(max_string=40))
    assert ei.value.message.startswith("facts[2].object is longer than 40 characters")
    assert ei.value.field == "object"


def test_batch_limits_apply_to_mutation_arguments() -> None:
    q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }"
    item = {"subject": "a", "predicate": "p", "object": "o", "episodes": []}
    with pytest.raises(LimitExceeded) as ei:
        shape(q, {"f": [item] * 3}, Limits(max_batch=2))
    assert ei.value.limit == "max_batch"
    shape(q, {"f": [item] * 3}, Limits(max_batch=3, max_list=2))  # the batch is not max_list


def test_limits_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRAPH_MEMORY_LIMIT_MAX_DEPTH", "7")
    monkeypatch.setenv("GRAPH_MEMORY_LIMIT_MAX_COST", "")
    limits = Limits.from_env()
    assert limits.max_depth == 7 and limits.max_cost == Limits().max_cost


@pytest.mark.parametrize("raw", ["0", "-3", "ten"])
def test_bad_limit_settings_fail_at_start_up(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("GRAPH_MEMORY_LIMIT_MAX_ALIASES", raw)
    with pytest.raises(SystemExit):
        Limits.from_env()
