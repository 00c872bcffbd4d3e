"""Bad input becomes a typed error, never INTERNAL or a bare 500.

The corpus part walks the schema: for every argument and input field of every query and
mutation that takes a String or a DateTime, it sends that one position the malformed value
(with valid filler everywhere else) and checks the answer is typed. A field added tomorrow is
covered without editing this file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    Undefined,
    get_named_type,
)

from graph_memory.graphql.schema import schema
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key

# What the store cannot hold: UTC values outside the years 1..9999, offsets beyond +-18:00.
UNSTORABLE = [
    "9999-12-31T23:59:59-14:00",
    "0001-01-01T00:00:00+14:00",
    "2026-01-01T00:00:00+23:59",
    "2026-01-01T00:00:00-19:00",
]
EXTREME = ["9999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59+14:00"]
LONE_SURROGATES = ["\ud800", "abc\udfffdef", "\udbff"]

GQL = schema._schema
FILLER: dict[str, Any] = {
    "String": "x",
    "ID": "x",
    "Int": 1,
    "Float": 0.5,
    "Boolean": False,
    "DateTime": "2026-01-01T00:00:00Z",
}


@pytest.fixture
def key(settings: Settings, tenant: str) -> str:
    return _create_key(settings, tenant, "admin")


def _filler(type_: Any, name: str) -> Any:
    if isinstance(type_, GraphQLNonNull):
        return _filler(type_.of_type, name)
    if isinstance(type_, GraphQLList):
        return [_filler(type_.of_type, name)]
    if isinstance(type_, GraphQLEnumType):
        return next(iter(type_.values))
    if isinstance(type_, GraphQLInputObjectType):
        return {
            f: _filler(fd.type, f)
            for f, fd in type_.fields.items()
            if isinstance(fd.type, GraphQLNonNull) and fd.default_value is Undefined
        }
    if name in ("scopes", "scope"):
        return "user:alice"
    return FILLER[type_.name]


def _positions(type_: Any, scalar: str) -> Iterator[tuple[Any, ...]]:
    """Paths (into a filler value) of every position of the named scalar type."""
    inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    if isinstance(inner, GraphQLList):
        for p in _positions(inner.of_type, scalar):
            yield (0, *p)
    elif isinstance(inner, GraphQLInputObjectType):
        for f, fd in inner.fields.items():
            for p in _positions(fd.type, scalar):
                yield (f, *p)
    elif isinstance(inner, GraphQLScalarType) and inner.name == scalar:
        yield ()


def _put(value: Any, path: tuple[Any, ...], bad: Any, type_: Any) -> Any:
    if not path:
        return bad
    inner = type_.of_type if isinstance(type_, GraphQLNonNull) else type_
    head, rest = path[0], path[1:]
    if isinstance(inner, GraphQLList):
        return [_put(value[0], rest, bad, inner.of_type)]
    field_type = inner.fields[head].type
    current = value.get(head, _filler(field_type, head))
    return {**value, head: _put(current, rest, bad, field_type)}


def _selection(type_: Any) -> str:
    named = get_named_type(type_)
    if not isinstance(named, GraphQLObjectType):
        return ""
    if "error" in named.fields:
        return "{ __typename error { code } }"
    if "results" in named.fields:
        return "{ __typename results { error { code } } }"
    return "{ __typename }"


def cases(scalar: str) -> list[tuple[str, str, tuple[Any, ...]]]:
    out = []
    for op, root in (("query", GQL.query_type), ("mutation", GQL.mutation_type)):
        assert root is not None
        for fname, fdef in root.fields.items():
            for aname, adef in fdef.args.items():
                out += [(op, f"{fname}.{aname}", p) for p in _positions(adef.type, scalar)]
    return out


def request(op: str, where: str, path: tuple[Any, ...], bad: Any) -> tuple[str, dict[str, Any]]:
    """The operation with every required argument filled and ``bad`` at ``path`` of ``where``."""
    root = GQL.query_type if op == "query" else GQL.mutation_type
    assert root is not None
    fname, target = where.split(".")
    fdef = root.fields[fname]
    decl, args, variables = [], [], {}
    for aname, adef in fdef.args.items():
        if aname != target and not isinstance(adef.type, GraphQLNonNull):
            continue
        value = _filler(adef.type, aname)
        if aname == target:
            value = _put(value, path, bad, adef.type)
        decl.append(f"${aname}: {adef.type}")
        args.append(f"{aname}: ${aname}")
        variables[aname] = value
    text = f"{op}({', '.join(decl)}) {{ {fname}({', '.join(args)}) {_selection(fdef.type)} }}"
    return text, variables


def codes(body: dict[str, Any]) -> set[str]:
    found = {e["extensions"]["code"] for e in body.get("errors") or []}

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if isinstance(v.get("error"), dict):
                found.add(v["error"]["code"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(body.get("data"))
    return found


def send(server: str, key: str, text: str, variables: dict[str, Any]) -> httpx.Response:
    # ensure_ascii keeps a lone surrogate sendable: it travels as the JSON escape \ud800.
    body = json.dumps({"query": text, "variables": variables}, ensure_ascii=True)
    return httpx.post(
        server,
        content=body.encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        timeout=60,
    )


DATETIME_CASES = cases("DateTime")
STRING_CASES = cases("String") + cases("ID")


def test_the_corpus_covers_the_schema() -> None:
    wheres = {w for _, w, _ in DATETIME_CASES}
    assert {
        "facts.asOf",
        "recall.validAt",
        "recordEpisodes.episodes",
        "assertFacts.facts",
    } <= wheres
    assert len(STRING_CASES) > 50


@pytest.mark.parametrize(("op", "where", "path"), DATETIME_CASES, ids=str)
def test_unstorable_datetimes_are_validation(
    server: str, key: str, op: str, where: str, path: tuple[Any, ...]
) -> None:
    for bad in UNSTORABLE:
        r = send(server, key, *request(op, where, path, bad))
        assert r.status_code < 500, r.text
        assert codes(r.json()) == {"VALIDATION"}, (bad, r.text)


@pytest.mark.parametrize(("op", "where", "path"), DATETIME_CASES, ids=str)
def test_extreme_datetimes_are_never_internal(
    server: str, key: str, op: str, where: str, path: tuple[Any, ...]
) -> None:
    for bad in EXTREME:
        r = send(server, key, *request(op, where, path, bad))
        assert r.status_code < 500, r.text
        assert "INTERNAL" not in codes(r.json()), (bad, r.text)


@pytest.mark.parametrize(("op", "where", "path"), STRING_CASES, ids=str)
def test_lone_surrogates_are_validation(
    server: str, key: str, op: str, where: str, path: tuple[Any, ...]
) -> None:
    for bad in LONE_SURROGATES:
        r = send(server, key, *request(op, where, path, bad))
        assert r.status_code == 400, r.text
        assert codes(r.json()) == {"VALIDATION"}, r.text


def raw(server: str, key: str, body: bytes, content_type: str = "application/json") -> Any:
    return httpx.post(
        server,
        content=body,
        headers={"Authorization": f"Bearer {key}", "Content-Type": content_type},
    )


def json_error(r: httpx.Response) -> str:
    assert r.headers["content-type"].startswith("application/json"), (r.status_code, r.text)
    return str(r.json()["errors"][0]["extensions"]["code"])


@pytest.mark.parametrize(
    "body",
    [
        b'{"query": "{ __typename }", "variables": {"s": "\xff\xfe"}}',
        b"\xc3\x28",
        b'{"query": "{ __typename \xed\xa0\x80 }"}',  # a surrogate encoded as UTF-8 bytes
    ],
)
def test_invalid_utf8_body_is_400_validation(server: str, key: str, body: bytes) -> None:
    r = raw(server, key, body)
    assert r.status_code == 400 and json_error(r) == "VALIDATION"


@pytest.mark.parametrize(
    "body", [b'"{ __typename }"', b'["{ __typename }"]', b"42", b"null", b"true", b"{nope"]
)
def test_a_body_that_is_not_an_object_is_400_validation(server: str, key: str, body: bytes) -> None:
    r = raw(server, key, body)
    assert r.status_code == 400 and json_error(r) == "VALIDATION"


def test_deeply_nested_arrays_are_400_validation(server: str, key: str) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    body = f'{{"query": "{{ __typename }}", "variables": {{"x": {deep}}}}}'.encode()
    r = raw(server, key, body)
    assert r.status_code == 400 and json_error(r) == "VALIDATION"


def test_nested_argument_value_is_bounded(server: str, key: str) -> None:
    deep: Any = "s"
    for _ in range(200):
        deep = [deep]
    q = 'query($s: [String!]!) { recall(query: "x", scopes: $s) { considered } }'
    r = send(server, key, q, {"s": deep})
    assert r.status_code < 500 and codes(r.json()) <= {"VALIDATION"}, r.text


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_json_numbers_are_400(server: str, key: str, constant: str) -> None:
    body = (
        '{"query": "query($w: RecallWeightsInput) { recall(query: \\"x\\", '
        'scopes: [\\"user:a\\"], weights: $w) { considered } }", '
        f'"variables": {{"w": {{"vector": {constant}}}}}}}'
    ).encode()
    r = raw(server, key, body)
    assert r.status_code == 400 and json_error(r) == "VALIDATION"


@pytest.mark.parametrize("digits", [4301, 50_000])
def test_an_integer_too_long_to_convert_is_a_json_refusal(
    server: str, key: str, digits: int
) -> None:
    # Python converts at most 4300 digits (sys.get_int_max_str_digits, a quadratic-time
    # guard); json raises ValueError past it, which was a text/plain 500 with or without a key.
    body = b'{"query": "{ __typename }", "x": ' + b"1" * digits + b"}"
    r = raw(server, key, body)
    assert r.status_code == 400 and json_error(r) == "VALIDATION", r.text
    assert "digits" in r.json()["errors"][0]["message"]
    for headers in ({}, {"Authorization": "Bearer nope"}):
        r = httpx.post(
            server, content=body, headers={"Content-Type": "application/json", **headers}
        )
        assert r.status_code == 401 and json_error(r) == "UNAUTHENTICATED", r.text


@pytest.mark.parametrize(
    "query",
    [
        "query($s: ID!) { forgetJob(id: $s) { state } }",
        "mutation($s: ID!) { rollbackConsolidation(runId: $s) { id } }",
        'query($s: String!) { procedures(intent: $s, scopes: ["tenant"]) { id } }',
    ],
)
def test_an_error_does_not_echo_a_huge_argument(server: str, key: str, query: str) -> None:
    r = send(server, key, query, {"s": "\uac00" * 9000})
    assert codes(r.json()) <= {"VALIDATION", "NOT_FOUND"}, r.text[:300]
    assert all(len(e["message"]) < 1100 for e in r.json()["errors"]), r.text[:300]


def test_a_team_named_by_its_scope_is_that_team(server: str, key: str) -> None:
    q = """mutation($t: [String!]!) { mintSessionToken(userId: "alice", teams: $t) { scopes } }"""
    for teams in (["team:ops"], ["ops"], ["ops", "team:ops"]):
        r = send(server, key, q, {"t": teams})
        assert r.json()["data"]["mintSessionToken"]["scopes"] == [
            "user:alice",
            "team:ops",
            "tenant",
        ], r.text


@pytest.mark.parametrize(
    "weights",
    [
        {"vector": 1e308, "keyword": 1e308},
        {"vector": 1e308},
        {"vector": -1},
        {"vector": 0, "keyword": 0, "recency": 0, "confidence": 0},
    ],
)
def test_absurd_recall_weights_are_validation(
    server: str, key: str, weights: dict[str, float]
) -> None:
    q = """query($w: RecallWeightsInput) {
      recall(query: "where", scopes: ["user:a"], weights: $w) { considered } }"""
    r = send(server, key, q, {"w": weights})
    assert codes(r.json()) == {"VALIDATION"}, r.text


def test_other_content_types_get_a_json_error(server: str, key: str) -> None:
    r = raw(server, key, b"{ __typename }", "text/plain")
    assert r.status_code == 400 and json_error(r) == "BAD_REQUEST"


def test_get_for_a_mutation_gets_a_json_error(server: str, key: str) -> None:
    r = httpx.get(
        server,
        params={"query": 'mutation { retractFact(id: "x") { id } }'},
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
    )
    assert 400 <= r.status_code < 500
    json_error(r)


def test_get_variables_are_checked_too(server: str, key: str) -> None:
    r = httpx.get(
        server,
        params={
            "query": "query($s: String!) { entity(name: $s) { id } }",
            "variables": '{"s": "\\ud800"}',
        },
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json"},
    )
    assert r.status_code == 400 and json_error(r) == "VALIDATION"


def test_a_valid_surrogate_pair_is_fine(server: str, key: str) -> None:
    q = "query($s: String!) { entity(name: $s) { id } }"
    r = send(server, key, q, {"s": "cat \U0001f408"})
    assert r.json() == {"data": {"entity": None}}
