"""remember: an episode and the facts it established in one call, the facts citing it."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.container import build_services
from graph_memory.db import Database
from graph_memory.domain import EpisodeInput, Outcome, Principal, Role
from graph_memory.embeddings import Embedder
from graph_memory.settings import Settings
from tests.integration.conftest import T0, bolt, episode

REMEMBER = """
mutation($episode: EpisodeInput!, $facts: [FactInput!], $key: String) {
  remember(episode: $episode, facts: $facts, idempotencyKey: $key) {
    episodeId episodeError { code field }
    facts { accepted rejected results { index ok action factId error { code field } } }
  }
}"""

FACTS_OF = """
query($id: ID!) { fact(id: $id) { object provenance { episodeId } } }"""


def _variables(**variables: Any) -> dict[str, Any]:
    as_json: dict[str, Any] = json.loads(json.dumps(variables, default=lambda d: d.isoformat()))
    return as_json


def _remember(client: GraphMemoryClient, **variables: Any) -> dict[str, Any]:
    out: dict[str, Any] = client.execute(REMEMBER, _variables(**variables))["remember"]
    return out


def test_the_python_client_remembers(client: GraphMemoryClient) -> None:
    got = client.remember(episode("alice", "s1"), [_fact("Alice", "lives_in", "Berlin")])
    assert got["episodeId"] and got["facts"]["accepted"] == 1


def _fact(subject: str, predicate: str, obj: str, **kw: Any) -> dict[str, Any]:
    return {"subject": subject, "predicate": predicate, "object": obj, "source": "user", **kw}


def test_the_facts_cite_the_episode_the_call_records(client: GraphMemoryClient) -> None:
    other = client.record_episode(**episode("alice", "s0"))
    got = _remember(
        client,
        episode=episode("alice", "s1"),
        facts=[
            _fact("Alice", "lives_in", "Berlin"),
            _fact("Alice", "speaks", "German", episodes=[{"episodeId": other}], cardinality="MANY"),
        ],
    )
    ep = got["episodeId"]
    assert ep and got["episodeError"] is None
    assert got["facts"]["accepted"] == 2
    first, second = (r["factId"] for r in got["facts"]["results"])
    berlin = client.execute(FACTS_OF, {"id": first})["fact"]
    german = client.execute(FACTS_OF, {"id": second})["fact"]
    assert [e["episodeId"] for e in berlin["provenance"]] == [ep]
    assert {e["episodeId"] for e in german["provenance"]} == {ep, other}


def test_a_bad_fact_is_reported_and_its_siblings_land(client: GraphMemoryClient) -> None:
    got = _remember(
        client,
        episode=episode("alice", "s1"),
        facts=[_fact("Alice", "lives_in", "Berlin"), _fact("", "lives_in", "Paris")],
    )
    assert got["episodeId"]
    res = got["facts"]["results"]
    assert (res[0]["ok"], res[1]["ok"]) == (True, False)
    assert res[1]["error"]["code"] == "VALIDATION"


def test_a_refused_episode_writes_no_fact(client: GraphMemoryClient) -> None:
    got = _remember(
        client,
        episode=episode("alice", "s1", summary="   "),
        facts=[_fact("Alice", "lives_in", "Berlin")],
    )
    assert got["episodeId"] is None
    assert got["episodeError"]["code"] == "VALIDATION"
    assert got["facts"]["results"] == []
    listed = client.facts(scopes=["user:alice"], subject="Alice")
    assert listed["edges"] == []


def test_a_replay_under_the_key_answers_as_the_first_call(client: GraphMemoryClient) -> None:
    args = {"episode": episode("alice", "s1"), "facts": [_fact("Alice", "lives_in", "Berlin")]}
    first = _remember(client, key="k-1", **args)
    again = _remember(client, key="k-1", **args)
    assert again["episodeId"] == first["episodeId"]
    assert again["facts"]["results"][0]["factId"] == first["facts"]["results"][0]["factId"]
    listed = client.execute('query { episodes(scopes: ["user:alice"]) { id } }')["episodes"]
    assert [e["id"] for e in listed] == [first["episodeId"]]
    with pytest.raises(GraphMemoryClientError) as err:
        _remember(client, key="k-1", episode=episode("alice", "s2"), facts=args["facts"])
    assert err.value.code == "CONFLICT"


def test_assert_facts_without_episodes_is_an_item_error(client: GraphMemoryClient) -> None:
    out = client.assert_facts([_fact("Alice", "lives_in", "Berlin")])
    assert out["rejected"] == 1
    assert out["results"][0]["error"]["field"] == "episodes"


def test_concurrent_replays_of_one_key_answer_as_the_first_call(
    server: str, client: GraphMemoryClient, make_key: Callable[..., str], tenant: str
) -> None:
    # A client that retries while its first call is still in flight: every call answers with
    # the one episode and fact, none with the episode id's uniqueness conflict.
    secret = make_key(tenant)
    body = {
        "query": REMEMBER,
        "variables": _variables(
            episode=episode("alice", "s1"), facts=[_fact("Alice", "lives_in", "Berlin")], key="k-1"
        ),
    }

    def call(_: int) -> dict[str, Any]:
        r = httpx.post(server, json=body, headers={"Authorization": f"Bearer {secret}"}, timeout=60)
        got: dict[str, Any] = r.json()
        return got

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(call, range(6)))
    assert [a.get("errors") for a in answers] == [None] * 6
    got = [a["data"]["remember"] for a in answers]
    assert len({g["episodeId"] for g in got}) == 1
    assert len({g["facts"]["results"][0]["factId"] for g in got}) == 1
    listed = client.execute('query { episodes(scopes: ["user:alice"]) { id } }')["episodes"]
    assert [e["id"] for e in listed] == [got[0]["episodeId"]]


def test_a_key_replayed_with_another_payload_is_a_conflict(client: GraphMemoryClient) -> None:
    ep = episode("alice", "s1")
    berlin = [_fact("Alice", "lives_in", "Berlin")]
    first = _remember(client, key="k-1", episode=ep, facts=[])
    _remember(client, key="k-2", episode=episode("alice", "s2"), facts=berlin)
    changed = [
        ("k-1", dict(ep, outcome="ABANDONED"), []),
        ("k-1", dict(ep, scope="team:support"), []),
        ("k-1", dict(ep, startedAt=T0 - timedelta(days=1)), []),
        ("k-1", ep, berlin),  # the first call had no facts
        ("k-2", episode("alice", "s2"), []),  # the first call had one
    ]
    for key, sent, facts in changed:
        with pytest.raises(GraphMemoryClientError) as err:
            _remember(client, key=key, episode=sent, facts=facts)
        assert err.value.code == "CONFLICT", (key, sent, facts)
    assert _remember(client, key="k-1", episode=ep, facts=[]) == first
    listed = client.facts(scopes=["user:alice", "team:support"], subject="Alice")
    assert [e["node"]["object"] for e in listed["edges"]] == ["Berlin"]


def test_remember_keys_and_assert_facts_keys_never_answer_for_each_other(
    client: GraphMemoryClient,
) -> None:
    # Each operation records its own keys: an assertFacts key spelled like the record of a
    # remember call ("remember:<key>") is a fresh key, and the same key under both operations
    # is two keys, whichever call came first.
    ep = client.record_episode(**episode("bob", "s0"))
    berlin = _fact("Alice", "lives_in", "Berlin")
    first = _remember(client, key="k-1", episode=episode("alice", "s1"), facts=[berlin])
    paris = _fact("Bob", "lives_in", "Paris", episodes=[{"episodeId": ep}])
    told = client.assert_facts([paris], "remember:k-1")
    assert told["accepted"] == 1 and told["results"][0]["action"] == "created"
    rome = _fact("Bob", "lives_in", "Rome", episodes=[{"episodeId": ep}])
    moved = client.assert_facts([rome], "k-2")["results"][0]
    again = _remember(client, key="k-2", episode=episode("alice", "s2"), facts=[berlin])
    [retold] = again["facts"]["results"]
    assert retold["ok"] and retold["factId"] != moved["factId"]
    assert retold["factId"] == first["facts"]["results"][0]["factId"]
    assert _remember(client, key="k-1", episode=episode("alice", "s1"), facts=[berlin]) == first


def test_a_key_leaves_no_lock_named_after_it(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    # Keyed writes lock a hash bucket: no lock node keeps the client's key (which outlived a
    # forgotten contributor), and the tenant's lock nodes stay bounded however many keys.
    for n in range(5):
        _remember(client, key=f"canary-key-{n}", episode=episode("alice", f"s{n}"), facts=[])
    locks = bolt(
        settings,
        "MATCH (l:ScopeLock {tenant: $t}) WHERE l.scope STARTS WITH 'idempotency:' "
        "RETURN collect(l.scope) AS names",
        {"t": tenant},
    )[0]["names"]
    assert locks and not [n for n in locks if "canary" in n], locks


FORGET = "mutation($u: String!) { forgetContributor(userId: $u) { receipt } }"


def test_a_key_replayed_after_its_user_is_forgotten_records_as_a_fresh_key(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    said = episode("bob", summary="Bob said his locker code is 4417.")
    facts = [_fact("bob", "locker_code", "4417", cardinality="ONE")]
    first = _remember(client, episode=said, facts=facts, key="turn-9")
    assert first["facts"]["accepted"] == 1, first
    admin.execute(FORGET, {"u": "bob"})
    assert client.execute(FACTS_OF, {"id": first["facts"]["results"][0]["factId"]})["fact"] is None

    # A new bob (a new, unrelated contributor) says it again under the same key: it is a
    # new call, written in full, and shares nothing with the forgotten one, not even ids.
    again = _remember(client, episode=said, facts=facts, key="turn-9")
    assert again["episodeError"] is None and again["facts"]["accepted"] == 1
    assert again["episodeId"] != first["episodeId"]
    fact_id = again["facts"]["results"][0]["factId"]
    (cited,) = client.execute(FACTS_OF, {"id": fact_id})["fact"]["provenance"]
    assert cited["episodeId"] == again["episodeId"]
    # ... and a replay of that call answers as it did.
    assert _remember(client, episode=said, facts=facts, key="turn-9") == again


def test_a_replay_of_a_call_made_before_ids_took_the_contributor_finds_its_episode(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    # Before the upgrade the id was derived from the key alone: a client retrying across it
    # gets the first call's episode back, not a second one.
    async def go() -> tuple[str | None, str, int]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        assert services.remember is not None
        agent = Principal(tenant, Role.AGENT, "k-test")
        said = EpisodeInput(
            user_id="carol",
            session_id="s1",
            started_at=None,
            ended_at=None,
            summary="Carol asked to be called before noon.",
            outcome=Outcome.SUCCESS,
            source="user",
        )
        earlier = (
            "ep_" + hashlib.sha256(f"{tenant}\x00remember\x00old-key".encode()).hexdigest()[:32]
        )
        try:
            await services.remember.episodes.record(agent, [said], ids=[earlier])
            got = await services.remember.remember(agent, said, [], "old-key")
            listed = await services.remember.episodes.list(agent, ["user:carol"])
            return got.episode_id, earlier, len(listed)
        finally:
            await services.db.close()

    got, earlier, episodes = asyncio.run(go())
    assert got == earlier and episodes == 1
