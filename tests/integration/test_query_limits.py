"""Query limits: no single request can stall the service for other tenants.

Every shape the attack suite used (deep nesting, many aliases, huge lists, huge bodies and
headers, oversized batches, scope lists and texts) is refused with a typed error, quickly,
before any work; ordinary requests and GraphiQL's introspection still pass."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from graphql import get_introspection_query

from graph_memory.limits import Limits
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, episode, fact, serving

LIMITS = Limits()


@pytest.fixture
def key(settings: Settings, tenant: str) -> str:
    return _create_key(settings, tenant, "agent")


def post(server: str, key: str, query: str, variables: dict[str, Any] | None = None) -> Any:
    return httpx.post(
        server,
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )


def error(resp: httpx.Response) -> dict[str, Any]:
    assert resp.headers["content-type"].startswith("application/json"), resp.text[:200]
    body = resp.json()
    assert body.get("errors"), body
    err: dict[str, Any] = body["errors"][0]
    return err


def code(resp: httpx.Response) -> str:
    return str(error(resp)["extensions"]["code"])


def nested(field: str, levels: int, leaf: str = "id") -> str:
    return f"{field} {{ " * levels + leaf + " }" * levels


def test_dependents_ten_levels_deep_is_refused_fast(server: str, key: str) -> None:
    q = '{ fact(id: "f") { ' + nested("dependents", 10) + " } }"
    started = time.perf_counter()
    r = post(server, key, q)
    assert code(r) == "QUERY_TOO_COMPLEX"
    assert time.perf_counter() - started < 1.0


def test_depth_over_the_limit_is_refused(server: str, key: str) -> None:
    q = '{ fact(id: "f") { ' + nested("supersedes", LIMITS.max_depth) + " } }"
    r = post(server, key, q)
    assert code(r) == "QUERY_TOO_COMPLEX"
    assert "deeper" in error(r)["message"]
    ok = '{ fact(id: "f") { ' + nested("supersedes", LIMITS.max_depth - 2) + " } }"
    assert post(server, key, ok).json() == {"data": {"fact": None}}


def test_entity_facts_recursion_is_refused(server: str, key: str) -> None:
    inner = "id"
    for _ in range(4):
        inner = f'facts(scopes: ["user:alice"]) {{ subjectEntity {{ {inner} }} }}'
    r = post(server, key, '{ entity(name: "alice") { ' + inner + " } }")
    assert code(r) == "QUERY_TOO_COMPLEX"
    assert "cost" in error(r)["message"]


def test_many_aliases_are_refused(server: str, key: str) -> None:
    aliased = " ".join(
        f'r{i}: recall(query: "where", scopes: ["user:alice"]) {{ considered }}'
        for i in range(1_000)
    )
    started = time.perf_counter()
    r = post(server, key, "{ " + aliased + " }")
    assert code(r) == "QUERY_TOO_COMPLEX"
    assert time.perf_counter() - started < 1.0
    few = " ".join(f"t{i}: __typename" for i in range(LIMITS.max_aliases))
    assert "errors" not in post(server, key, "{ " + few + " }").json()


def _fan_out(levels: int, where: str = "Query") -> str:
    """A kilobyte whose fragments, inlined at every spread, hold 2**levels fields."""
    frags = " ".join(
        f"fragment F{i} on {where} {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels)
    )
    return f"{frags} fragment F{levels} on {where} {{ __typename }}"


@pytest.mark.parametrize(
    "query",
    [
        "{ ...F0 } " + _fan_out(24),
        # The same in a second operation, or a fragment nothing spreads: validation reads
        # every definition, so the check does too.
        "query A { __typename } query B { ...F0 } " + _fan_out(24),
        "{ __typename } " + _fan_out(24),
    ],
    ids=["spread", "another operation", "unused fragment"],
)
def test_fragments_spread_exponentially_are_refused_fast(server: str, key: str, query: str) -> None:
    started = time.perf_counter()
    r = post(server, key, query)
    assert code(r) == "QUERY_TOO_COMPLEX", r.text[:300]
    assert time.perf_counter() - started < 1.0


def test_one_field_repeated_is_refused_before_validation(server: str, key: str) -> None:
    """graphql-core compares every pair of fields of one name: 190 copies of a facts read
    (14 KB, each text new so no cache helps) held the event loop for seconds."""
    copy = 'facts(filter: {scopes: ["user:alice"]}, first: 1) { edges { node { id subject } } }'
    started = time.perf_counter()
    r = post(server, key, "{ " + " ".join([copy] * 190) + " } # " + str(time.time()))
    assert code(r) == "QUERY_TOO_COMPLEX", r.text[:300]
    assert "selected more than" in error(r)["message"]
    assert time.perf_counter() - started < 1.0
    # A few repeats (fragments that share fields) are an ordinary query.
    few = post(server, key, "{ " + " ".join([copy] * 3) + " }")
    assert few.json() == {"data": {"facts": {"edges": []}}}


def test_introspection_repeated_without_a_key_is_refused_before_validation(server: str) -> None:
    """The schema is public (no key), so its introspection is bounded like any operation:
    300 copies of a type's fields cost validation over a second (each text new)."""
    copy = "fields { name type { name } } "
    q = '{ __type(name: "Fact") { ' + copy * 300 + "} } # " + str(time.time())
    started = time.perf_counter()
    r = httpx.post(server, json={"query": q}, timeout=30)
    assert code(r) == "QUERY_TOO_COMPLEX", r.text[:300]
    assert time.perf_counter() - started < 1.0


def test_cost_counts_list_sizes_given_as_variable_defaults(server: str, key: str) -> None:
    q = """query($n: Int = 500) { facts(filter: {scopes: ["user:alice"]}, first: $n) {
      edges { node { id provenance { episodeId } dependents { id dependsOn { id
        provenance { episodeId userId summary } } } } } } }"""
    assert code(post(server, key, q)) == "QUERY_TOO_COMPLEX"
    assert post(server, key, q, {"n": 5}).json()["data"]["facts"]["edges"] == []


def test_cost_counts_list_sizes_sent_as_variables(server: str, key: str) -> None:
    q = """query($n: Int!) { facts(filter: {scopes: ["user:alice"]}, first: $n) {
      edges { node { id provenance { episodeId } dependents { id dependsOn { id
        provenance { episodeId userId summary } } } } } } }"""
    assert code(post(server, key, q, {"n": 500})) == "QUERY_TOO_COMPLEX"
    assert post(server, key, q, {"n": 5}).json()["data"]["facts"]["edges"] == []


def test_recall_is_weighted(server: str, key: str) -> None:
    # Each recall costs an embedding and index searches: a dozen in one request are too many,
    # however little each selects; two (recall and context, say) are fine.
    def recalls(n: int) -> str:
        return (
            "{ "
            + " ".join(
                f'r{i}: recall(query: "where", scopes: ["user:alice"]) {{ considered }}'
                for i in range(n)
            )
            + " }"
        )

    assert code(post(server, key, recalls(12))) == "QUERY_TOO_COMPLEX"
    assert "errors" not in post(server, key, recalls(2)).json()


def test_token_count_is_bounded(server: str, key: str) -> None:
    q = "{ " + " ".join(["__typename"] * (LIMITS.max_tokens + 10)) + " }"
    assert code(post(server, key, q)) == "QUERY_TOO_COMPLEX"


def test_query_text_length_is_bounded(server: str, key: str) -> None:
    q = "{ __typename }\n#" + "x" * LIMITS.max_query_chars
    r = post(server, key, q)
    assert r.status_code == 400 and code(r) == "QUERY_TOO_COMPLEX"


@pytest.mark.parametrize("opening", ["a { ", "[", "{a: "])
def test_bracket_nesting_is_bounded(server: str, key: str, opening: str) -> None:
    closing = {"a { ": " }", "[": "]", "{a: ": "}"}[opening]
    levels = 5_000
    if opening == "a { ":
        q = "{ " + opening * levels + "b" + closing * levels + " }"
    else:
        q = '{ recall(query: "x", scopes: ' + opening * levels + '"s"' + closing * levels + ") }"
    r = post(server, key, q)
    assert r.status_code == 400 and code(r) == "QUERY_TOO_COMPLEX"


def test_introspection_for_graphiql_passes(server: str, key: str) -> None:
    r = post(server, key, get_introspection_query(descriptions=True))
    assert "errors" not in r.json()
    assert r.json()["data"]["__schema"]["queryType"]["name"] == "Query"


def test_recursive_introspection_is_refused(server: str, key: str) -> None:
    q = "{ __schema { types { fields { type { fields { type { fields { type { name }"
    q += " } } } } } } } }"
    # graphql-core's own rule or ours: either way the code says why.
    assert code(post(server, key, q)) == "QUERY_TOO_COMPLEX"


def test_body_over_the_limit_is_413_json(server: str, key: str) -> None:
    big = "x" * (LIMITS.max_body_bytes + 10)
    r = post(server, key, "query($q: String!) { __typename }", {"q": big})
    assert r.status_code == 413 and code(r) == "PAYLOAD_TOO_LARGE"


def test_chunked_body_over_the_limit_is_413(server: str, key: str) -> None:
    def chunks() -> Any:
        yield b'{"query": "{ __typename }", "variables": {"q": "'
        for _ in range(LIMITS.max_body_bytes // 65_536 + 2):
            yield b"x" * 65_536
        yield b'"}}'

    r = httpx.post(
        server,
        content=chunks(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and code(r) == "PAYLOAD_TOO_LARGE"


def test_headers_over_the_limit_are_431_json(server: str, key: str) -> None:
    r = httpx.post(
        server,
        json={"query": "{ __typename }"},
        headers={"Authorization": f"Bearer {key}", "X-Padding": "p" * LIMITS.max_header_bytes},
    )
    assert r.status_code == 431 and code(r) == "PAYLOAD_TOO_LARGE"


def _limit(resp: httpx.Response, name: str) -> None:
    err = error(resp)
    assert err["extensions"]["code"] == "VALIDATION", err
    assert err["extensions"]["limit"] == name
    assert err["extensions"]["max"] == getattr(LIMITS, name)


def test_episode_batch_is_bounded(server: str, key: str) -> None:
    eps = [
        {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in episode().items()}
        for _ in range(LIMITS.max_episode_batch + 1)
    ]
    q = "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok } }"
    started = time.perf_counter()
    _limit(post(server, key, q, {"e": eps}), "max_episode_batch")
    assert time.perf_counter() - started < 1.0


def test_fact_batch_is_bounded(server: str, key: str) -> None:
    facts = [fact("alice", "likes", f"t{i}", ["e"]) for i in range(LIMITS.max_batch + 1)]
    q = "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }"
    _limit(post(server, key, q, {"f": facts}), "max_batch")


def test_scopes_per_request_are_bounded(server: str, key: str) -> None:
    scopes = [f"user:u{i}" for i in range(2_000)]
    q = 'query($s: [String!]!) { recall(query: "where", scopes: $s) { considered } }'
    _limit(post(server, key, q, {"s": scopes}), "max_scopes")
    q = "query($s: [String!]!) { facts(filter: {scopes: $s}) { edges { cursor } } }"
    _limit(post(server, key, q, {"s": scopes}), "max_scopes")


def test_recall_query_text_is_bounded(server: str, key: str) -> None:
    q = 'query($q: String!) { recall(query: $q, scopes: ["user:alice"]) { considered } }'
    _limit(post(server, key, q, {"q": "where " * 6_000}), "max_query_text")


def test_other_strings_are_bounded(server: str, key: str) -> None:
    q = 'query($s: String!) { history(subject: $s, predicate: "p", scopes: ["a"]) { subject } }'
    _limit(post(server, key, q, {"s": "x" * (LIMITS.max_string + 1)}), "max_string")


def test_other_lists_are_bounded(server: str, key: str) -> None:
    topics = [f"t{i}" for i in range(LIMITS.max_list + 1)]
    e = {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in episode().items()}
    q = "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok } }"
    _limit(post(server, key, q, {"e": [{**e, "topics": topics}]}), "max_list")


@pytest.mark.parametrize(("arg", "value"), [("k", 101), ("overRecall", 501), ("k", 0)])
def test_recall_sizes_are_bounded(server: str, key: str, arg: str, value: int) -> None:
    q = f'{{ recall(query: "where", scopes: ["user:alice"], {arg}: {value}) {{ considered }} }}'
    assert code(post(server, key, q)) == "VALIDATION"


@pytest.mark.parametrize(
    "args",
    ["halfLifeDays: 1e400", "minScore: -1e400", "weights: {vector: 1e400}"],
)
def test_a_float_literal_past_the_double_range_is_validation(
    server: str, key: str, args: str
) -> None:
    """A Float literal too large for a double reads as inf: refused as a variable would be."""
    q = f'{{ recall(query: "where", scopes: ["user:alice"], {args}) {{ considered }} }}'
    assert code(post(server, key, q)) == "VALIDATION"
    m = 'mutation { forgetContributor(userId: "nobody", waitSeconds: 1e400) { state } }'
    assert code(post(server, key, m)) == "VALIDATION"  # checked before the role is


@pytest.mark.parametrize(
    "args",
    [
        "k: {n}",
        "k: -{n}",
        "weights: {{vector: {n}}}",
        'scopes: ["user:alice"], kinds: [{n}]',
    ],
)
def test_an_int_literal_too_long_to_convert_is_validation(server: str, key: str, args: str) -> None:
    """Python converts at most 4300 digits: a literal past that is the caller's error, and the
    message does not echo it."""
    digits = "1" * 5000
    extra = args.format(n=digits)
    scopes = "" if "scopes" in extra else 'scopes: ["user:alice"], '
    q = f'{{ recall(query: "where", {scopes}{extra}) {{ considered }} }}'
    resp = post(server, key, q)
    assert code(resp) == "VALIDATION", resp.text[:300]
    assert len(resp.text) < 1000


def _abuse() -> list[tuple[str, dict[str, Any]]]:
    ep = {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in episode().items()}
    recalls = " ".join(
        f'r{i}: recall(query: "where", scopes: ["user:alice"]) {{ considered }}'
        for i in range(1_000)
    )
    entity = "id"
    for _ in range(4):
        entity = f'facts(scopes: ["user:alice"]) {{ subjectEntity {{ {entity} }} }}'
    return [
        ('{ fact(id: "f") { ' + nested("dependents", 10) + " } }", {}),
        ("{ " + recalls + " }", {}),
        ('{ entity(name: "alice") { ' + entity + " } }", {}),
        (
            "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok } }",
            {"e": [ep] * 10_000},
        ),
        (
            'query($s: [String!]!) { recall(query: "where", scopes: $s) { considered } }',
            {"s": [f"user:u{i}" for i in range(20_000)]},
        ),
        (
            'query($q: String!) { recall(query: $q, scopes: ["user:alice"]) { considered } }',
            {"q": "where " * 800_000},
        ),
    ]


def test_abuse_is_refused_fast_while_another_tenant_answers(
    server: str, key: str, settings: Settings
) -> None:
    """The issue's abuse list, sent back to back by one tenant, each answered with a typed
    error in under a second, while a second tenant's simple read keeps answering quickly."""
    import threading

    victim = _create_key(settings, f"victim-{key[-6:]}", "agent")
    simple = '{ facts(filter: {scopes: ["user:alice"]}, first: 5) { edges { cursor } } }'

    def p99(samples: list[float]) -> float:
        return sorted(samples)[int(len(samples) * 0.99) - 1]

    def read_for(seconds: float, at_least: int = 0) -> list[float]:
        out: list[float] = []
        with httpx.Client(headers={"Authorization": f"Bearer {victim}"}, timeout=30) as c:
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline or len(refused) < at_least:
                started = time.perf_counter()
                assert "errors" not in c.post(server, json={"query": simple}).json()
                out.append(time.perf_counter() - started)
                time.sleep(0.02)
                if time.monotonic() > deadline + 30:
                    break
        return out

    stop = threading.Event()
    refused: list[tuple[str, float]] = []
    baseline = read_for(3)
    # Encoded once: the client shares this process (and its GIL) with the server under test.
    bodies = [json.dumps({"query": q, "variables": v}).encode() for q, v in _abuse()]
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

    def attack() -> None:
        with httpx.Client(headers=headers, timeout=30) as c:
            while not stop.is_set():
                for body in bodies:
                    started = time.perf_counter()
                    r = c.post(server, content=body)
                    refused.append((code(r), time.perf_counter() - started))

    attacker = threading.Thread(target=attack, daemon=True)
    attacker.start()
    latencies = read_for(8, at_least=2 * len(bodies))
    stop.set()
    attacker.join(timeout=30)
    print(
        f"victim p99 {p99(baseline) * 1000:.1f} ms alone, {p99(latencies) * 1000:.1f} ms under "
        f"{len(refused)} abusive requests (slowest refusal {max(t for _, t in refused):.2f} s)"
    )
    assert {c for c, _ in refused} <= {"QUERY_TOO_COMPLEX", "VALIDATION", "PAYLOAD_TOO_LARGE"}
    assert max(t for _, t in refused) < 1.0
    # The issue's target is 100 ms p99 on an idle 2-core machine. This one is shared by other
    # test runs and the client runs in the server's process, hence the margin over baseline.
    assert p99(latencies) < p99(baseline) + 0.4


@pytest.fixture(scope="module")
def hasty_server(settings: Settings) -> Iterator[str]:
    """Shape limits lifted, a one-second budget: what the budget alone does."""
    lifted = Limits(max_aliases=10**4, max_cost=10**12, max_query_seconds=1)
    with serving(replace(settings, limits=lifted)) as url:
        yield url


def test_a_query_past_its_time_budget_is_cancelled(hasty_server: str, key: str) -> None:
    recalls = " ".join(
        f'r{i}: recall(query: "where does {i} live", scopes: ["user:alice"]) {{ considered }}'
        for i in range(200)
    )
    started = time.perf_counter()
    r = post(hasty_server, key, "{ " + recalls + " }")
    assert r.status_code == 503 and code(r) == "TIMEOUT"
    assert time.perf_counter() - started < 3.0
    assert "errors" not in post(hasty_server, key, "{ __typename }").json()


def test_a_mutation_is_never_cut_off_half_applied(hasty_server: str, key: str) -> None:
    eps = [
        {k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in episode().items()}
        for _ in range(LIMITS.max_episode_batch)
    ]
    q = "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok } }"
    out = post(hasty_server, key, q, {"e": eps}).json()
    assert "errors" not in out and all(x["ok"] for x in out["data"]["recordEpisodes"])
