"""remember: an episode and the facts it established in one call, the facts citing it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode

REMEMBER = """
mutation($episode: EpisodeInput!, $facts: [FactInput!], $key: String) {
  remember(episode: $episode, facts: $facts, idempotencyKey: $key) {
    episodeId episodeError { code field }
    facts { accepted rejected results { index ok action factId error { code field } } }
  }
}"""

FACTS_OF = """
query($id: ID!) { fact(id: $id) { object provenance { episodeId } } }"""


def _remember(client: GraphMemoryClient, **variables: Any) -> dict[str, Any]:
    as_json = json.loads(json.dumps(variables, default=lambda d: d.isoformat()))
    out: dict[str, Any] = client.execute(REMEMBER, as_json)["remember"]
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
