"""The audit log over HTTP: every change says who, when, what it was before and the
confidence delta; analysts filter it by actor, target, action and time; agents cannot read it."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import ClientFactory, episode, fact


def _history_of_a_fact(client: GraphMemoryClient, admin: GraphMemoryClient) -> dict[str, str]:
    e1 = client.record_episode(**episode("alice", "s1", confidence=0.6))
    e2 = client.record_episode(**episode("alice", "s2", confidence=0.6))
    a = client.assert_facts([fact("alice", "lives_in", "Paris", [e1])])["results"][0]
    client.assert_facts([fact("alice", "lives_in", "Paris", [e2])])  # corroborates
    b = client.assert_facts([fact("alice", "lives_in", "Lyon", [e2])])["results"][0]
    admin.retract_fact(b["factId"], "moved again")
    return {"e1": e1, "paris": a["factId"], "lyon": b["factId"]}


def test_every_change_records_who_when_before_and_delta(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    ids = _history_of_a_fact(client, admin)
    paris = [e["node"] for e in analyst.audit_log(target=ids["paris"])["edges"]]
    assert [e["action"] for e in paris] == ["corroborated", "created"]  # newest first
    created, corroborated = paris[1], paris[0]
    assert created["actor"] == "agent:agent" and created["actorType"] == "user"
    assert json.loads(created["after"])["object"] == "Paris"
    assert created["confidenceDelta"] == pytest.approx(0.6)
    assert corroborated["confidenceDelta"] == pytest.approx(0.24)  # 0.6 -> 0.84
    assert datetime.fromisoformat(corroborated["at"]) > datetime.fromisoformat(created["at"])

    lyon = [e["node"] for e in analyst.audit_log(target=ids["lyon"])["edges"]]
    assert [e["action"] for e in lyon] == ["retract", "superseded"]
    assert json.loads(lyon[1]["before"]) == {"id": ids["paris"]}  # what it replaced
    retract = lyon[0]
    assert retract["actor"] == "admin:admin" and retract["actorType"] == "admin"
    assert retract["reason"] == "moved again"
    assert json.loads(retract["before"])["status"] == "active"
    assert retract["confidenceDelta"] == pytest.approx(-0.6)

    recorded = analyst.audit_log(target=ids["e1"])["edges"][0]["node"]
    assert recorded["action"] == "record" and recorded["targetType"] == "episode"


def test_filters_time_range_and_paging(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    _history_of_a_fact(client, admin)
    everything = [e["node"] for e in analyst.audit_log(first=100)["edges"]]
    assert len(everything) == 6  # 2 episodes, created, corroborated, superseded, retract
    assert (
        [e["node"]["action"] for e in analyst.audit_log(actor="admin")["edges"]]
        == [x["action"] for x in everything if x["actorType"] == "admin"]
        == ["retract"]
    )
    assert len(analyst.audit_log(actor="agent:agent")["edges"]) == 5
    assert len(analyst.audit_log(action="record")["edges"]) == 2

    stamps = sorted(datetime.fromisoformat(e["at"]) for e in everything)
    start, end = stamps[1], stamps[-1]
    window = analyst.audit_log(start=start, end=end, first=100)["edges"]
    # [from, to): the event at `from` is in, the one at `to` is out.
    inside = [s for s in stamps if start <= s < end]
    assert len(window) == len(inside)
    assert analyst.audit_log(start=stamps[-1] + timedelta(seconds=1))["edges"] == []

    seen: list[str] = []
    after = None
    while True:
        page = analyst.audit_log(first=4, after=after)
        seen += [e["node"]["id"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [e["id"] for e in everything]


def test_agents_cannot_read_the_log_and_tenants_never_see_each_other(
    client: GraphMemoryClient,
    analyst: GraphMemoryClient,
    make_client: ClientFactory,
    tenant: str,
) -> None:
    ep = client.record_episode(**episode("alice"))
    with pytest.raises(GraphMemoryClientError) as err:
        client.audit_log()
    assert err.value.code == "FORBIDDEN"
    other = make_client(f"{tenant}-other", "analyst")
    assert other.audit_log(target=ep)["edges"] == []
    assert analyst.audit_log(target=ep)["edges"][0]["node"]["action"] == "record"
    # The record, and the agent's denied read of the log (every denial is audited).
    assert [e["node"]["action"] for e in analyst.audit_log()["edges"]] == [
        "access_denied",
        "record",
    ]
    with pytest.raises(GraphMemoryClientError) as err:
        analyst.audit_log(first=0)
    assert err.value.code == "VALIDATION"


def test_a_declared_cardinality_is_audited_with_its_declarer(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    e = client.record_episode(**episode("alice"))
    client.assert_facts([fact("alice", "owns_pet", "a cat", [e], cardinality="MANY")])
    client.assert_facts([fact("alice", "owns_pet", "a dog", [e])])  # already registered
    log = analyst.execute(
        'query { auditLog(filter: {action: "define_predicate"}) '
        "{ edges { node { actor targetId after } } } }"
    )["auditLog"]["edges"]
    assert [(n["node"]["actor"], n["node"]["targetId"]) for n in log] == [
        ("agent:agent", "owns_pet")
    ]
    assert json.loads(log[0]["node"]["after"]) == {"cardinality": "many", "name": "owns_pet"}
