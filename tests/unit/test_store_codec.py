"""How LangGraph store items become facts and come back: exact keys and values through a
memory that matches subjects and objects case-insensitively."""

from __future__ import annotations

import pytest
from langgraph.store.base import InvalidNamespaceError, MatchCondition

from graph_memory.domain import entity_key
from graph_memory.integrations.store_codec import (
    address,
    decode_object,
    decode_subject,
    encode_object,
    index_text,
    matches_filter,
    namespace_matches,
)


@pytest.mark.parametrize(
    ("namespace", "scope", "path"),
    [
        (("user", "alice"), "user:alice", ()),
        (("user", "alice", "prefs", "food"), "user:alice", ("prefs", "food")),
        (("team", "support", "runbooks"), "team:support", ("runbooks",)),
        (("tenant",), "tenant", ()),
        (("tenant", "faq"), "tenant", ("faq",)),
    ],
)
def test_namespaces_name_scopes(
    namespace: tuple[str, ...], scope: str, path: tuple[str, ...]
) -> None:
    a = address(namespace, "k")
    assert (a.scope, a.path, a.namespace) == (scope, path, namespace)


@pytest.mark.parametrize("namespace", [("memories", "alice"), ("user",), ("team",)])
def test_a_namespace_without_a_scope_is_refused(namespace: tuple[str, ...]) -> None:
    with pytest.raises(InvalidNamespaceError):
        address(namespace, "k")


def test_subjects_round_trip_and_survive_case_folding() -> None:
    keys = ["Food", "food", "a/b", "with space", "ünï", "%41"]
    subjects = {address(("user", "u", "Prefs"), k).subject for k in keys}
    assert len({entity_key(s) for s in subjects}) == len(keys)  # no two collide once folded
    for k in keys:
        a = address(("user", "u", "Prefs"), k)
        assert decode_subject("user:u", entity_key(a.subject)) == a
    assert decode_subject("user:u", "alice") is None


def test_objects_round_trip_and_a_change_of_case_is_a_change() -> None:
    value = {"text": "Alice is Vegetarian", "n": [1, 2], "nested": {"ok": True}}
    assert decode_object(encode_object(value)) == value
    lower = {**value, "text": "alice is vegetarian"}
    assert entity_key(encode_object(value)) != entity_key(encode_object(lower))


def test_index_text_takes_the_named_fields_or_every_string() -> None:
    value = {"text": "likes tea", "tags": ["green", "hot"], "meta": {"n": 3}, "flag": True}
    assert index_text(value, None) == "likes tea green hot 3"
    assert index_text(value, ["text"]) == "likes tea"
    assert index_text(value, ["tags[*]"]) == "green hot"
    assert index_text(value, ["tags[1]", "meta.n"]) == "hot 3"


def test_filters_match_exactly_or_by_operator() -> None:
    v = {"kind": "diet", "score": 4, "meta": {"lang": "en"}}
    assert matches_filter(v, None) and matches_filter(v, {"kind": "diet"})
    assert not matches_filter(v, {"kind": "taste"})
    assert matches_filter(v, {"score": {"$gte": 4, "$lt": 5}})
    assert not matches_filter(v, {"score": {"$gt": 4}})
    assert matches_filter(v, {"meta": {"lang": "en"}, "kind": {"$ne": "x"}})
    assert not matches_filter(v, {"missing": {"$gt": 1}})
    assert not matches_filter(v, {"kind": {"$gt": 1}})  # incomparable: no match, no crash


def test_a_dict_filter_matches_an_item_holding_at_least_its_keys() -> None:
    # As LangGraph's InMemoryStore (_compare_values) and PostgresStore (JSON containment).
    v = {"meta": {"lang": "en", "author": {"name": "bob", "age": 40}}, "tags": [{"k": 1, "j": 2}]}
    assert matches_filter(v, {"meta": {"lang": "en"}})
    assert matches_filter(v, {"meta": {"author": {"name": "bob"}}})
    assert matches_filter(v, {"meta": {"author": {"age": {"$gte": 40}}}})
    assert matches_filter(v, {"meta": {}})
    assert matches_filter(v, {"tags": [{"k": 1}]})  # a list: same length, each element contains
    assert not matches_filter(v, {"meta": {"lang": "fr"}})
    assert not matches_filter(v, {"meta": {"lang": "en", "year": 2020}})
    assert not matches_filter(v, {"tags": [{"k": 1}, {"k": 1}]})
    assert not matches_filter({"meta": "en"}, {"meta": {"lang": "en"}})


def test_a_filter_key_with_a_dot_is_a_top_level_key_not_a_path() -> None:
    assert matches_filter({"a.b": 1, "text": "dotted"}, {"a.b": 1})
    assert not matches_filter({"a": {"b": 1}}, {"a.b": 1})  # as InMemoryStore: no traversal


def test_namespace_conditions_with_wildcards() -> None:
    ns = ("user", "alice", "prefs")
    assert namespace_matches(ns, [MatchCondition("prefix", ("user", "*"))])
    assert namespace_matches(ns, [MatchCondition("suffix", ("prefs",))])
    assert not namespace_matches(ns, [MatchCondition("prefix", ("team",))])
    assert not namespace_matches(ns, [MatchCondition("suffix", ("a", "b", "c", "d"))])


@pytest.mark.parametrize("obj", ["[not json", "[1, 2]", '"text" #abc', "42", "[" * 3000])
def test_an_object_that_is_no_json_object_is_no_item(obj: str) -> None:
    assert decode_object(obj) is None


def test_an_unsupported_filter_operator_is_refused() -> None:
    with pytest.raises(ValueError, match=r"Unsupported operator '\$in'"):
        matches_filter({"kind": "diet"}, {"kind": {"$in": ["diet"]}})
    with pytest.raises(ValueError, match=r"Unsupported operator 'x'"):
        matches_filter({"kind": "diet"}, {"kind": {"$eq": "diet", "x": 1}})
