"""Scoped session tokens: an agent serving alice, even when asked to, reads and writes nothing
of bob's. Every read and write field is tried with bob's scope or bob's ids; each answer is
FORBIDDEN and carries none of bob's words, and bob's memory is unchanged afterwards."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.services.access.keys import AuthService
from graph_memory.settings import Settings
from tests.integration.conftest import ClientFactory, episode, fact

BOB_WORDS = "Zanzibarcanary"  # in bob's summary, fact and procedure: never in a token's answer

MINT = """mutation($user: String!, $teams: [String!], $ttl: Int!, $tenant: Boolean!) {
  mintSessionToken(userId: $user, teams: $teams, ttlSeconds: $ttl, includeTenant: $tenant) {
    id token userId scopes expiresAt } }"""


def mint(
    key_client: GraphMemoryClient,
    user: str = "alice",
    teams: list[str] | None = None,
    ttl: int = 600,
    include_tenant: bool = True,
) -> dict[str, Any]:
    out = key_client.execute(
        MINT, {"user": user, "teams": teams, "ttl": ttl, "tenant": include_tenant}
    )
    token: dict[str, Any] = out["mintSessionToken"]
    return token


def raw(server: str, secret: str, query: str, variables: dict[str, Any] | None = None) -> Any:
    r = httpx.post(
        server,
        json={"query": query, "variables": variables or {}},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=60,
    )
    return r


def codes(body: dict[str, Any]) -> set[str]:
    return {e["extensions"]["code"] for e in body.get("errors") or []}


def item_codes(data: object) -> set[str]:
    """The codes of the per-item errors anywhere in a batch's answer."""
    if isinstance(data, list):
        return {c for d in data for c in item_codes(d)}
    if not isinstance(data, dict):
        return set()
    found = {c for v in data.values() for c in item_codes(v)}
    error = data.get("error")
    return found | ({error["code"]} if isinstance(error, dict) and "code" in error else set())


def refusals(body: dict[str, Any]) -> set[str]:
    """A refused call's codes, or a batch's items' refused in their own slots."""
    return codes(body) | item_codes(body.get("data"))


@dataclass(frozen=True)
class World:
    alice_ep: str
    alice_fact: str
    bob_ep: str
    bob_fact: str
    bob_proc: str
    tenant_fact: str  # a tenant-wide fact citing bob's episode (allowed for a key)


@pytest.fixture
def world(make_client: ClientFactory, tenant: str) -> World:
    admin = make_client(tenant, "admin")
    a_ep = admin.record_episode(**episode("alice"))
    b_ep = admin.record_episode(**episode("bob", summary=f"bob said {BOB_WORDS} is his home."))
    a_fact = admin.assert_facts([fact("alice", "lives_in", "Paris", [a_ep], cardinality="ONE")])
    b_fact = admin.assert_facts(
        [fact("bob", "lives_in", BOB_WORDS, [b_ep], cardinality="ONE", scope="user:bob")]
    )
    t_fact = admin.assert_facts(
        [fact("acme", "uses", "Linux", [b_ep], scope="tenant", source="admin")]
    )
    proc = admin.upsert_procedure("refund", "support", [f"ask {BOB_WORDS}"], "user:bob")
    ids = [r["results"][0]["factId"] for r in (a_fact, b_fact, t_fact)]
    assert all(ids), (a_fact, b_fact, t_fact)
    return World(a_ep, ids[0], b_ep, ids[1], proc["procedure"]["id"], ids[2])


def test_a_token_reads_and_writes_its_users_scopes(
    server: str, client: GraphMemoryClient, world: World
) -> None:
    tok = mint(client, teams=["support"])
    assert tok["scopes"] == ["user:alice", "team:support", "tenant"]
    alice = GraphMemoryClient(server, tok["token"])
    try:
        assert alice.fact(world.alice_fact)["object"] == "Paris"  # type: ignore[index]
        q = "query($id: ID!) { fact(id: $id) { provenance { summary } } }"
        evidence = alice.execute(q, {"id": world.alice_fact})["fact"]["provenance"]
        assert evidence and "alice" in evidence[0]["summary"]
        e = alice.record_episode(**episode("alice"))
        res = alice.assert_facts([fact("alice", "likes", "tea", [e])])
        assert res["accepted"] == 1, res
        team = alice.assert_facts([fact("alice", "uses", "vim", [e], scope="team:support")])
        assert team["accepted"] == 1, team
        found = alice.facts(["user:alice"])
        assert {n["node"]["object"] for n in found["edges"]} >= {"Paris", "tea"}
    finally:
        alice.close()


def _reads(w: World) -> list[str]:
    bob = '"user:bob"'
    return [
        f'{{ facts(filter: {{scopes: ["user:alice", {bob}]}}) '
        "{ edges { node { object } } } }",
        f'{{ history(subject: "bob", predicate: "lives_in", scopes: [{bob}]) '
        "{ versions { object } } }",
        f"{{ episodes(scopes: [{bob}]) {{ summary }} }}",
        f'{{ recall(query: "where does bob live", scopes: [{bob}]) {{ items {{ text }} }} }}',
        f'{{ context(query: "bob", tokenBudget: 500, scopes: [{bob}]) {{ text }} }}',
        f'{{ procedures(intent: "refund", scopes: [{bob}]) {{ steps }} }}',
        f"{{ memos(scopes: [{bob}]) {{ text }} }}",
        f'{{ factCitations(ids: ["{w.bob_fact}"], scopes: ["user:alice"]) {{ quotes }} }}',
        f'{{ fact(id: "{w.bob_fact}") {{ object }} }}',
        f'{{ episode(id: "{w.bob_ep}") {{ summary }} }}',
        f'{{ entity(name: "alice") {{ facts(scopes: [{bob}]) {{ object }} }} }}',
        f'{{ history(subject: "bob", predicate: "lives_in", scopes: ["user:alice", {bob}]) '
        "{ versions { object } } }",
        f"{{ reviewQueue(scopes: [{bob}]) {{ contributors }} }}",
        f"{{ entityMergeProposals(scopes: [{bob}]) {{ scope }} }}",
        "{ auditLog { edges { node { reason } } } }",
        "{ consolidationRuns { id } }",
    ]


def _writes(w: World) -> list[str]:
    bob_ep = f'{{episodeId: "{w.bob_ep}"}}'
    alice_ep = f'{{episodeId: "{w.alice_ep}"}}'
    ep = 'sessionId: "s", summary: "a summary long enough", outcome: SUCCESS'
    fact_ = 'subject: "bob", predicate: "likes", object: "x"'
    item_errors = "{ accepted results { error { code } } }"
    return [
        f'recordEpisode(episode: {{userId: "bob", {ep}}})',
        f'recordEpisode(episode: {{userId: "alice", scope: "user:bob", {ep}}})',
        f'recordEpisodes(episodes: [{{userId: "alice", {ep}}}, {{userId: "bob", {ep}}}]) '
        "{ ok error { code } }",
        f'assertFacts(facts: [{{{fact_}, scope: "user:bob", episodes: [{alice_ep}]}}]) '
        f"{item_errors}",
        f"assertFacts(facts: [{{{fact_}, episodes: [{bob_ep}]}}]) {item_errors}",  # defaulted
        f'assertFacts(facts: [{{{fact_}, scope: "tenant", episodes: [{bob_ep}]}}]) {item_errors}',
        f'assertFacts(facts: [{{{fact_}, scope: "user:alice", episodes: [{alice_ep}], '
        f'dependsOn: ["{w.bob_fact}"]}}]) {item_errors}',
        f'retractFact(id: "{w.bob_fact}") {{ id }}',
        'upsertProcedure(intent: "i", role: "r", steps: ["s"], scope: "user:bob") { action }',
        f'recordProcedureOutcome(id: "{w.bob_proc}", success: false, episodeId: "{w.alice_ep}") '
        "{ status }",
        'ingestSession(session: {userId: "bob", sessionId: "s", turns: [{role: "user", '
        'content: "I moved to Rome."}]}) { created }',
        'ingestSession(session: {userId: "alice", sessionId: "s", turns: [{role: "user", '
        'content: "I moved to Rome."}]}, options: {scope: "user:bob"}) { created }',
        f'closeTodo(id: "{w.bob_ep}") {{ id }}',
        'forgetContributor(userId: "bob") { receipt }',
        'mintSessionToken(userId: "bob") { token }',
        "expireFacts { expired }",
        'runConsolidation(scopes: ["user:bob"], dryRun: true) { id }',
    ]


def test_a_token_for_alice_gets_nothing_of_bobs(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, world: World
) -> None:
    secret = mint(client)["token"]
    before = admin.facts(["user:bob", "tenant"])
    for query in _reads(world) + ["mutation { " + w + " }" for w in _writes(world)]:
        r = raw(server, secret, query)
        assert r.headers["content-type"].startswith("application/json"), (query, r.text)
        body = r.json()
        assert refusals(body) == {"FORBIDDEN"}, (query, body)
        assert BOB_WORDS not in r.text, (query, r.text)
    # bob's words reached through a link from a memory the token may read: the link is left
    # out, the memory served (tests/integration/test_session_token_links.py).
    linked = raw(
        server, secret, f'{{ fact(id: "{world.tenant_fact}") {{ provenance {{ summary }} }} }}'
    )
    assert linked.json() == {"data": {"fact": {"provenance": []}}}, linked.text
    assert admin.facts(["user:bob", "tenant"]) == before
    assert admin.fact(world.bob_fact)["status"] == "ACTIVE"  # type: ignore[index]
    bob_eps = admin.execute('{ episodes(scopes: ["user:bob"]) { id } }')["episodes"]
    assert [e["id"] for e in bob_eps] == [world.bob_ep]
    procs = admin.procedures("refund", ["user:bob"], role="support", include_candidates=True)
    assert len(procs) == 1 and procs[0]["successCount"] + procs[0]["failureCount"] == 0, procs


def test_a_tokens_episode_batch_reports_an_episode_outside_its_scopes_in_its_slot(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    secret = mint(client)["token"]
    call = """mutation($e: [EpisodeInput!]!) {
      recordEpisodes(episodes: $e) { index ok id error { code field } } }"""
    session = "s-batch"

    def ep(user: str, summary: str, **kw: str) -> dict[str, str]:
        return {"userId": user, "sessionId": session, "summary": summary, "outcome": "SUCCESS"} | kw

    batch = [
        ep("alice", "Alice asked about her account."),
        ep("alice", "Alice's words filed in bob's scope.", scope="user:bob"),
        ep("bob", "An episode of bob's, told to alice's agent."),
        ep("alice", "Alice's second episode, in her own scope."),
    ]
    body = raw(server, secret, call, {"e": batch}).json()
    assert body.get("errors") is None, body
    got = body["data"]["recordEpisodes"]
    assert [(r["ok"], r["error"]) for r in got] == [
        (True, None),
        (False, {"code": "FORBIDDEN", "field": "scope"}),
        (False, {"code": "FORBIDDEN", "field": "userId"}),
        (True, None),
    ], got
    listed = """query($s: String) {
      episodes(scopes: ["user:alice", "user:bob"], sessionId: $s) { id } }"""
    landed = {e["id"] for e in admin.execute(listed, {"s": session})["episodes"]}
    assert landed == {got[0]["id"], got[3]["id"]}
    denied = analyst.audit_log(action="access_denied", target="recordEpisodes")["edges"]
    assert len(denied) == 1 and "user:bob" in denied[0]["node"]["reason"], denied


def test_a_tokens_fact_batch_reports_a_fact_outside_its_scopes_in_its_slot(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient,
    world: World,
) -> None:  # fmt: skip
    secret = mint(client)["token"]
    call = """mutation($f: [FactInput!]!) {
      assertFacts(facts: $f) { accepted rejected results { ok factId error { code field } } } }"""
    mine = [world.alice_ep]
    batch = [
        fact("alice", "likes", "tea", mine, cardinality="MANY"),
        fact("alice", "likes", "coffee", mine, cardinality="MANY", scope="team:other"),
        fact("alice", "likes", "cocoa", [world.bob_ep], cardinality="MANY", scope="user:alice"),
        fact("alice", "likes", "mate", mine, cardinality="MANY", dependsOn=[world.bob_fact]),
        fact("alice", "likes", "chai", mine, cardinality="MANY"),
    ]
    body = raw(server, secret, call, {"f": batch}).json()
    assert body.get("errors") is None, body
    got = body["data"]["assertFacts"]
    assert (got["accepted"], got["rejected"]) == (2, 3), got
    assert [r["error"] for r in got["results"]] == [
        None,
        {"code": "FORBIDDEN", "field": "scope"},
        {"code": "FORBIDDEN", "field": "episodes"},
        {"code": "FORBIDDEN", "field": "dependsOn"},
        None,
    ], got
    landed = admin.facts(["user:alice", "team:other"])
    liked = {e["node"]["object"] for e in landed["edges"] if e["node"]["predicate"] == "likes"}
    assert liked == {"tea", "chai"}, landed
    denied = analyst.audit_log(action="access_denied", target="assertFacts")["edges"]
    assert len(denied) == 1 and "team:other" in denied[0]["node"]["reason"], denied


def test_a_token_without_tenant_reads_no_tenant_memory(
    server: str, client: GraphMemoryClient, world: World
) -> None:
    secret = mint(client, include_tenant=False)["token"]
    body = raw(server, secret, f'{{ fact(id: "{world.tenant_fact}") {{ object }} }}').json()
    assert codes(body) == {"FORBIDDEN"} and body["data"]["fact"] is None
    ok = raw(server, secret, f'{{ fact(id: "{world.alice_fact}") {{ object }} }}').json()
    assert ok["data"]["fact"]["object"] == "Paris"


def test_minting_is_for_agent_and_admin_keys_with_bounded_lifetimes(
    make_client: ClientFactory, tenant: str
) -> None:
    analyst = make_client(tenant, "analyst")
    with pytest.raises(GraphMemoryClientError) as e:
        mint(analyst)
    assert getattr(e.value, "code", None) == "FORBIDDEN"
    admin = make_client(tenant, "admin")
    assert mint(admin)["userId"] == "alice"
    for bad in ({"ttl": 0}, {"ttl": 10**9}, {"user": "bob smith"}, {"teams": ["a b"]}):
        with pytest.raises(GraphMemoryClientError) as e:
            mint(admin, **bad)
        assert getattr(e.value, "code", None) == "VALIDATION", bad


def test_a_token_expires(server: str, client: GraphMemoryClient) -> None:
    secret = mint(client, ttl=1)["token"]
    assert "errors" not in raw(server, secret, "{ predicates { name } }").json()
    time.sleep(1.5)  # cached no longer than it lives
    r = raw(server, secret, "{ predicates { name } }")
    assert r.status_code == 401 and codes(r.json()) == {"UNAUTHENTICATED"}


def test_revocation_by_its_key_by_itself_and_with_its_key(
    server: str, settings: Settings, make_client: ClientFactory, tenant: str
) -> None:
    agent, other = make_client(tenant, "agent"), make_client(tenant, "agent")
    q = "{ predicates { name } }"
    revoke = "mutation($id: ID!) { revokeSessionToken(id: $id) }"
    first = mint(agent)
    assert "errors" not in raw(server, first["token"], q).json()
    with pytest.raises(GraphMemoryClientError) as e:  # another key's token is not yours
        other.execute(revoke, {"id": first["id"]})
    assert getattr(e.value, "code", None) == "NOT_FOUND"
    agent.execute(revoke, {"id": first["id"]})
    assert raw(server, first["token"], q).status_code == 401  # at once, though it was cached

    second = mint(agent)
    body = raw(server, second["token"], revoke, {"id": second["id"]}).json()
    assert body["data"] == {"revokeSessionToken": True}, body
    assert raw(server, second["token"], q).status_code == 401

    third = mint(agent)

    async def revoke_the_key() -> None:
        db = Database.connect(settings.neo4j())
        try:
            keys = await ApiKeyRepository(db).list(tenant)
            for k in keys:
                await AuthService(ApiKeyRepository(db)).revoke(k["id"])
        finally:
            await db.close()

    asyncio.run(revoke_the_key())
    assert raw(server, third["token"], q).status_code == 401  # dies with its key


def test_forgetting_the_user_deletes_their_tokens(
    server: str, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    tok = mint(admin, user="carol")
    admin.forget_contributor("carol")
    assert raw(server, tok["token"], "{ predicates { name } }").status_code == 401

    async def left() -> list[dict[str, Any]]:
        db = Database.connect(settings.neo4j())
        try:
            return await db.run_raw(
                "MATCH (t:SessionToken {tenant: $t}) RETURN properties(t) AS p", {"t": tenant}
            )
        finally:
            await db.close()

    assert "carol" not in json.dumps([r["p"] for r in asyncio.run(left())], default=str)


def test_a_token_calls_only_agent_mutations_for_its_own_user(
    server: str, client: GraphMemoryClient
) -> None:
    from tests.integration.test_auth_hardening import MUTATIONS

    secret = mint(client, user="u")["token"]  # the matrix's calls name user u
    for name, (call, allowed) in MUTATIONS.items():
        body = raw(server, secret, "mutation { " + call + " }").json()
        may = "agent" in allowed and name != "mintSessionToken"
        assert ("FORBIDDEN" in codes(body)) is not may, (name, body)


def test_a_token_remembers_for_its_user_only(server: str, client: GraphMemoryClient) -> None:
    secret = mint(client, user="alice")["token"]
    call = """mutation($e: EpisodeInput!, $f: [FactInput!]) {
      remember(episode: $e, facts: $f) { episodeId facts { accepted } } }"""
    fact_in = {"subject": "Alice", "predicate": "lives_in", "object": "Oslo", "source": "user"}
    mine = {"userId": "alice", "sessionId": "s1", "summary": "Alice moved.", "outcome": "SUCCESS"}
    ok = raw(server, secret, call, {"e": mine, "f": [fact_in]}).json()
    assert ok["data"]["remember"]["facts"]["accepted"] == 1, ok
    bobs = {**mine, "userId": "bob"}
    assert "FORBIDDEN" in codes(raw(server, secret, call, {"e": bobs, "f": [fact_in]}).json())
    shared = {**fact_in, "scope": "team:other"}
    assert "FORBIDDEN" in codes(raw(server, secret, call, {"e": mine, "f": [shared]}).json())


def test_a_tokens_idempotency_keys_are_its_users_own(
    server: str, client: GraphMemoryClient
) -> None:
    # Alice's token claims the keys bob's writes will use: bob's later writes under them are
    # fresh, not CONFLICT (nor a replay of hers), and nothing tells her which keys he used.
    alice, bob = mint(client, user="alice")["token"], mint(client, user="bob")["token"]
    call = """mutation($e: EpisodeInput!, $f: [FactInput!], $k: String) {
      remember(episode: $e, facts: $f, idempotencyKey: $k) {
        episodeId facts { accepted results { factId } } } }"""
    told = """mutation($f: [FactInput!]!, $k: String) {
      assertFacts(facts: $f, idempotencyKey: $k) { accepted results { factId } } }"""

    def ep(user: str, summary: str) -> dict[str, str]:
        return {"userId": user, "sessionId": "s77", "summary": summary, "outcome": "SUCCESS"}

    def lives(user: str, city: str) -> dict[str, str]:
        return {"subject": user, "predicate": "lives_in", "object": city, "source": "user"}

    squat = raw(server, alice, call, {"e": ep("alice", "Alice squats."), "f": [], "k": "b-s77"})
    assert squat.json()["data"]["remember"]["episodeId"], squat.text
    real = raw(server, bob, call, {"e": ep("bob", "Bob is here."), "f": [lives("bob", "Oslo")],
                                   "k": "b-s77"}).json()  # fmt: skip
    assert real.get("errors") is None, real
    got = real["data"]["remember"]
    assert got["episodeId"] != squat.json()["data"]["remember"]["episodeId"]
    assert got["facts"]["accepted"] == 1
    bob_ep = got["episodeId"]
    cited = {**lives("bob", "Rome"), "episodes": [{"episodeId": bob_ep}]}
    mine = raw(server, alice, told, {"f": [lives("alice", "Paris")], "k": "import-b"}).json()
    assert mine.get("errors") is None, mine
    his = raw(server, bob, told, {"f": [cited], "k": "import-b"}).json()
    assert his.get("errors") is None and his["data"]["assertFacts"]["accepted"] == 1, his
    # Each user's replay still answers as their first call did.
    again = raw(server, bob, told, {"f": [cited], "k": "import-b"}).json()
    assert again["data"]["assertFacts"] == his["data"]["assertFacts"]


def test_a_token_is_told_no_name_that_only_other_users_memories_hold(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, world: World
) -> None:
    # A predicate and an entity that only bob's memories use are bob's words: a token serving
    # alice neither lists nor finds them; a key (every scope of its tenant) does.
    clinic = f"{BOB_WORDS} Clinic"
    admin.assert_facts(
        [
            fact(
                clinic,
                "treats_bob_for",
                "asthma",
                [world.bob_ep],
                cardinality="MANY",
                scope="user:bob",
            )
        ]
    )
    secret = mint(client)["token"]
    names = "{ predicates { name } }"
    assert "treats_bob_for" in {p["name"] for p in admin.execute(names)["predicates"]}
    listed = raw(server, secret, names)
    assert "treats_bob_for" not in listed.text and "lives_in" in listed.text, listed.text
    by_name = "query($n: String!) { entity(name: $n) { id name } }"
    found = admin.execute(by_name, {"n": clinic})["entity"]
    assert found and found["name"] == clinic
    for query, variables in (
        (by_name, {"n": clinic}),
        ("query($id: ID!) { entity(id: $id) { name } }", {"id": found["id"]}),
    ):
        r = raw(server, secret, query, variables)
        assert r.json() == {"data": {"entity": None}}, r.text
    own = raw(server, secret, by_name, {"n": "alice"}).json()["data"]["entity"]
    assert own and own["name"].lower() == "alice"
    # An entity alice's own fact names as its object is hers to look up too.
    admin.assert_facts(
        [fact("alice", "visits", clinic, [world.alice_ep], cardinality="MANY", objectIsEntity=True)]
    )
    named = raw(server, secret, by_name, {"n": clinic}).json()["data"]["entity"]
    assert named and named["name"] == clinic
