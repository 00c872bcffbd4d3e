"""Credentials under attack and outage: one credential per request, a role matrix enforced
per mutation, every denial audited (rate-limited), failed keys throttled, revocation within
the documented delay, and an outage answered 503 without naming the server."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.limits import Limits
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.services.access.keys import AuthService, digest
from graph_memory.settings import Settings
from tests.integration.conftest import ClientFactory, _create_key, episode, fact, serving
from tests.integration.tcp_proxy import TcpProxy

Q = '{ facts(filter: {scopes: ["user:alice"]}) { edges { cursor } } }'


def post(server: str, headers: dict[str, str] | list[tuple[str, str]], query: str = Q) -> Any:
    return httpx.post(server, json={"query": query}, headers=headers, timeout=60)


def code(r: httpx.Response) -> str:
    assert r.headers["content-type"].startswith("application/json"), r.text
    return str(r.json()["errors"][0]["extensions"]["code"])


# -- one credential --------------------------------------------------------------------------


def test_two_authorization_headers_are_refused(
    server: str, settings: Settings, tenant: str
) -> None:
    good = _create_key(settings, tenant, "agent")
    other = _create_key(settings, f"{tenant}-2", "agent")
    for headers in (
        [("Authorization", f"Bearer {good}"), ("Authorization", f"Bearer {other}")],
        [("Authorization", f"Bearer {good}"), ("Authorization", f"Bearer {good}")],
        [("Authorization", f"Bearer {good}"), ("X-Api-Key", other)],
    ):
        r = post(server, headers)
        assert r.status_code == 401 and code(r) == "UNAUTHENTICATED"
    assert "errors" not in post(server, {"Authorization": f"Bearer {good}"}).json()
    assert "errors" not in post(server, {"X-Api-Key": good}).json()


# -- the role matrix -------------------------------------------------------------------------

# Every mutation, with arguments that are harmless in a fresh tenant, and the roles that may
# call it. Reviewing candidates (approve/reject) is the one thing an analyst may change.
MUTATIONS: dict[str, tuple[str, set[str]]] = {
    "recordEpisodes": (
        'recordEpisodes(episodes: [{userId: "u", sessionId: "s", summary: "x", '
        "outcome: SUCCESS}]) { ok }",
        {"agent", "admin"},
    ),
    "recordEpisode": (
        'recordEpisode(episode: {userId: "u", sessionId: "s", summary: "x", outcome: SUCCESS})',
        {"agent", "admin"},
    ),
    "assertFacts": (
        'assertFacts(facts: [{subject: "a", predicate: "p", object: "o", episodes: []}]) '
        "{ accepted }",
        {"agent", "admin"},
    ),
    "remember": (
        'remember(episode: {userId: "u", sessionId: "s", summary: "x", outcome: SUCCESS}) '
        "{ episodeId }",
        {"agent", "admin"},
    ),
    "retractFact": ('retractFact(id: "nope") { id }', {"agent", "admin"}),
    "definePredicates": (
        'definePredicates(predicates: [{name: "zz_p", cardinality: ONE}]) { name }',
        {"admin"},
    ),
    "upsertProcedure": (
        'upsertProcedure(intent: "i", role: "r", steps: ["s"], scope: "user:u") { action }',
        {"agent", "admin"},
    ),
    "recordProcedureOutcome": (
        'recordProcedureOutcome(id: "nope", success: true, episodeId: "nope") { status }',
        {"agent", "admin"},
    ),
    "approveFact": ('approveFact(id: "nope") { id }', {"analyst", "admin"}),
    "rejectFact": ('rejectFact(id: "nope") { id }', {"analyst", "admin"}),
    "forgetContributor": ('forgetContributor(userId: "nobody") { receipt }', {"admin"}),
    "expireFacts": ("expireFacts { expired }", {"admin"}),
    "configureTenant": ("configureTenant(reset: true) { shortTermTtlDays }", {"admin"}),
    "ingestSession": (
        'ingestSession(session: {userId: "u", sessionId: "s", turns: [{role: "user", '
        'content: "I moved to Berlin last month."}]}) { created }',
        {"agent", "admin"},
    ),
    "closeTodo": ('closeTodo(id: "nope") { id }', {"agent", "admin"}),
    "runConsolidation": ('runConsolidation(scopes: ["user:u"], dryRun: true) { id }', {"admin"}),
    "rollbackConsolidation": ('rollbackConsolidation(runId: "nope") { id }', {"admin"}),
    "mintSessionToken": (
        'mintSessionToken(userId: "u", ttlSeconds: 60) { id }',
        {"agent", "admin"},
    ),
    "revokeSessionToken": ('revokeSessionToken(id: "nope")', {"agent", "analyst", "admin"}),
    "resumeConsolidation": ('resumeConsolidation(runId: "nope") { id }', {"admin"}),
    "reportOutcome": (
        'reportOutcome(memoryIds: ["nope"], outcome: HARMFUL, episodeId: "nope") { recorded }',
        {"agent", "admin"},
    ),
}


def test_the_matrix_names_every_mutation() -> None:
    from graph_memory.graphql.schema import schema

    mutation_type = schema._schema.mutation_type
    assert mutation_type is not None
    assert set(MUTATIONS) == set(mutation_type.fields)


@pytest.mark.parametrize("role", ["agent", "analyst", "admin"])
def test_each_role_may_call_exactly_its_mutations(
    server: str, settings: Settings, role: str
) -> None:
    key = _create_key(settings, f"t-{uuid.uuid4().hex[:10]}", role)
    for name, (call, allowed) in MUTATIONS.items():
        body = post(server, {"Authorization": f"Bearer {key}"}, "mutation { " + call + " }").json()
        codes = {e["extensions"]["code"] for e in body.get("errors") or []}
        if role in allowed:
            assert "FORBIDDEN" not in codes, (name, body)
        else:
            assert codes == {"FORBIDDEN"}, (name, body)


def test_analyst_cannot_retract_a_fact(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    e = client.record_episode(**episode("alice"))
    fid = client.assert_facts([fact("alice", "lives_in", "Paris", [e], cardinality="ONE")])[
        "results"
    ][0]["factId"]
    r = analyst.execute  # the raw call: the error is the point
    with pytest.raises(GraphMemoryClientError) as ei:
        r("mutation($id: ID!) { retractFact(id: $id) { id } }", {"id": fid})
    assert getattr(ei.value, "code", None) == "FORBIDDEN"
    assert client.fact(fid)["status"] == "ACTIVE"  # type: ignore[index]


# -- denials are audited ---------------------------------------------------------------------


def test_denials_are_audited_once_a_minute_per_key_and_field(
    make_client: ClientFactory, tenant: str
) -> None:
    analyst = make_client(tenant, "analyst")
    agent = make_client(tenant, "agent")
    for _ in range(5):
        with pytest.raises(GraphMemoryClientError):
            analyst.execute('mutation { retractFact(id: "f1") { id } }')
    with pytest.raises(GraphMemoryClientError):
        agent.execute('mutation { forgetContributor(userId: "bob") { receipt } }')
    with pytest.raises(GraphMemoryClientError):
        agent.execute("{ auditLog { edges { cursor } } }")
    events = [e["node"] for e in analyst.audit_log(action="access_denied", first=50)["edges"]]
    by_target = {(e["actor"], e["targetId"]): e for e in events}
    assert len(events) == 3, events
    assert set(by_target) == {
        ("analyst:analyst", "retractFact"),
        ("agent:agent", "forgetContributor"),
        ("agent:agent", "auditLog"),
    }
    assert "analyst" in by_target[("analyst:analyst", "retractFact")]["reason"]


# -- failed keys are throttled ---------------------------------------------------------------


@pytest.fixture(scope="module")
def strict_server(settings: Settings) -> Iterator[str]:
    """Its own process state: throttling here cannot lock other tests' fresh keys out."""
    with serving(replace(settings, limits=Limits(max_failed_auth=3))) as url:
        yield url


@pytest.fixture(scope="module")
def quick_revocation_server(settings: Settings) -> Iterator[str]:
    with serving(replace(settings, auth_cache_seconds=1.0)) as url:
        yield url


def test_failed_keys_are_throttled(strict_server: str, settings: Settings, tenant: str) -> None:
    known = _create_key(settings, tenant, "agent")
    assert "errors" not in post(strict_server, {"Authorization": f"Bearer {known}"}).json()
    fresh = _create_key(settings, tenant, "agent")
    for i in range(3):
        r = post(strict_server, {"Authorization": f"Bearer gm_guess_{i}"})
        assert r.status_code == 401
    r = post(strict_server, {"Authorization": "Bearer gm_guess_4"})
    assert r.status_code == 429 and code(r) == "RATE_LIMITED"
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    # A key not verified recently waits too (no lookups while throttled) ...
    assert post(strict_server, {"Authorization": f"Bearer {fresh}"}).status_code == 429
    # ... one verified within the cache delay keeps working.
    assert "errors" not in post(strict_server, {"Authorization": f"Bearer {known}"}).json()


def test_revocation_reaches_another_process_within_the_cache_delay(
    quick_revocation_server: str, settings: Settings, tenant: str
) -> None:
    server = quick_revocation_server
    key = _create_key(settings, tenant, "agent")
    assert "errors" not in post(server, {"Authorization": f"Bearer {key}"}).json()

    async def revoke_elsewhere() -> None:  # another process's AuthService, as the CLI is
        db = Database.connect(settings.neo4j())
        try:
            repo = ApiKeyRepository(db)
            row = await repo.by_hash(digest(key))
            assert row is not None
            await AuthService(repo).revoke(row["id"])
        finally:
            await db.close()

    asyncio.run(revoke_elsewhere())
    time.sleep(1.2)  # server's GRAPH_MEMORY_AUTH_CACHE_SECONDS is 1
    r = post(server, {"Authorization": f"Bearer {key}"})
    assert r.status_code == 401 and code(r) == "UNAUTHENTICATED"


# -- Neo4j down ------------------------------------------------------------------------------


@pytest.fixture
def outage(settings: Settings) -> Iterator[tuple[str, TcpProxy]]:
    proxy = TcpProxy(settings.bolt_port)
    try:
        with serving(replace(settings, bolt_port=proxy.port)) as url:
            yield url, proxy
    finally:
        proxy.cut()


def _leaks(text: str, *ports: int) -> bool:
    return "127.0.0.1" in text or "localhost" in text or any(str(p) in text for p in ports)


def test_outage_is_503_retry_later_never_401(
    outage: tuple[str, TcpProxy], settings: Settings, tenant: str
) -> None:
    url, proxy = outage
    cached = _create_key(settings, tenant, "agent")
    assert "errors" not in post(url, {"Authorization": f"Bearer {cached}"}).json()
    unseen = _create_key(settings, tenant, "agent")
    health = url.replace("/graphql", "/health")
    assert httpx.get(health).json() == {"status": "ok"}
    assert httpx.get(url.replace("/graphql", "/ready")).json() == {"status": "ready"}
    proxy.cut()

    r = post(url, {"Authorization": f"Bearer {unseen}"})
    assert r.status_code == 503 and code(r) == "STORE_UNAVAILABLE", r.text
    assert int(r.headers["Retry-After"]) > 0
    assert not _leaks(r.text, proxy.port, settings.bolt_port), r.text

    r = post(url, {"Authorization": f"Bearer {cached}"})  # a known key: the read fails
    assert r.status_code == 503 and code(r) == "STORE_UNAVAILABLE", r.text
    assert not _leaks(r.text, proxy.port, settings.bolt_port), r.text

    h = httpx.get(health, timeout=60)
    assert h.status_code == 503 and h.json() == {"status": "unavailable"}
    h = httpx.get(url.replace("/graphql", "/ready"), timeout=60)
    assert h.status_code == 503 and h.json() == {"status": "unavailable"}

    proxy.restore()
    deadline = time.monotonic() + 30
    while True:
        r = post(url, {"Authorization": f"Bearer {unseen}"})
        if r.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert r.status_code == 200 and "errors" not in r.json(), r.text
