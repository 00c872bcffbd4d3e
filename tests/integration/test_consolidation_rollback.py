"""Rolling a consolidation run back in one call restores exactly the state before it, read at
several asOf moments before and after the rollback; audited; refused when the run's changes
were built on since."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact
from tests.integration.consolidation_helpers import (
    CORE,
    M_ROLLBACK,
    Q_RUNS,
    SCOPES,
    answers,
    build_store,
    run,
)


def _history(client: GraphMemoryClient) -> list[dict[str, Any]]:
    """The slot's versions; evidence as a set (episodes started at one moment have no order)."""
    versions = client.history("Core team", "uses", SCOPES)["versions"]
    return [
        {**v, "provenance": sorted(v["provenance"], key=lambda p: p["episodeId"])} for v in versions
    ]


def _moment() -> datetime:
    time.sleep(0.05)
    at = datetime.now(UTC)
    time.sleep(0.05)
    return at


def test_rollback_restores_every_answer_at_every_as_of(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    s = build_store(settings, tenant, client, admin)
    t_setup = _moment()
    before = {"setup": answers(client, t_setup), "now": answers(client)}
    history_before = _history(client)

    done = run(admin)
    t_run = _moment()
    after_run = answers(client, t_run)
    assert after_run != before["now"]  # the run changed what is served
    assert answers(client, t_setup) == before["setup"]  # the past did not change

    back = admin.execute(M_ROLLBACK, {"id": done["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK" and back["rolledBackAt"]
    (m,) = analyst.execute("{ consolidationRuns { restored rollbackMs } }", {})["consolidationRuns"]
    facts_changed = {c["targetId"] for c in done["changes"] if c["targetId"].startswith("fact_")}
    compacted = sum(
        c["value"]
        for step in done["steps"]
        for c in step["counts"]
        if c["name"] == "episodes_compacted"
    )
    # Restored: every fact it changed, and the episodes its digests stood for.
    assert m["restored"] == len(facts_changed) + compacted and m["rollbackMs"] > 0
    t_back = _moment()
    # As if the run never happened, at every moment: before it, while it was in force, now.
    assert answers(client, t_setup) == before["setup"]
    assert answers(client, t_run) == before["now"]
    assert answers(client, t_back) == before["now"]
    assert answers(client) == before["now"]
    assert _history(client) == history_before
    restored = client.fact(s.jira_dup)
    assert restored and restored["status"] == "ACTIVE" and restored["retractedAt"] is None
    assert client.fact(s.expiring)["status"] == "ACTIVE"  # type: ignore[index]

    events = analyst.audit_log(actor="consolidation", action="rollback", first=100)["edges"]
    assert {e["node"]["targetId"] for e in events} >= {s.expiring, s.jira_dup, s.candidate}
    assert all(done["id"] in e["node"]["reason"] for e in events)
    listed = analyst.execute(Q_RUNS, {})["consolidationRuns"]
    assert [(r["id"], r["status"]) for r in listed] == [(done["id"], "ROLLED_BACK")]
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert err.value.code == "CONFLICT"

    # The same cleanup can be run again after the rollback.
    again = run(admin)
    assert {c["targetId"] for c in again["changes"]} == {c["targetId"] for c in done["changes"]}


def test_rollback_audits_each_restored_memory_with_its_status_before_and_after(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    s = build_store(settings, tenant, client, admin)
    done = run(admin)
    admin.execute(M_ROLLBACK, {"id": done["id"]})
    facts_changed = {c["targetId"] for c in done["changes"] if c["targetId"].startswith("fact_")}
    events = analyst.audit_log(actor="consolidation", action="rollback", first=100)["edges"]
    # One event per restored memory, found by the memory's id like any other change of it.
    assert sorted(e["node"]["targetId"] for e in events) == sorted(facts_changed)
    (expired,) = analyst.audit_log(target=s.expiring, action="rollback")["edges"]
    node = expired["node"]
    assert node["actor"] == "consolidation" and node["actorType"] == "consolidation"
    assert node["targetType"] == "fact" and node["confidenceDelta"] is None
    assert json.loads(node["before"]) == {"status": "expired"}
    assert json.loads(node["after"]) == {"status": "active"}
    assert node["reason"].startswith(f"rollback of consolidation run {done['id']} by ")
    assert len({e["node"]["id"] for e in events}) == len(events)
    # And who undid the run, once, on the run itself (a run that only compacted episodes
    # restores no memory, and would leave no other trace).
    (undone,) = analyst.audit_log(target=done["id"], action="rollback")["edges"]
    assert undone["node"]["targetType"] == "consolidation_run"
    assert undone["node"]["actor"].startswith("admin:")
    assert json.loads(undone["node"]["after"])["status"] == "rolled_back"
    # A malformed scope filter is an error, not an empty list of runs.
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute(Q_RUNS, {"scope": "bogus"})
    assert err.value.code == "VALIDATION"


def test_rollback_is_refused_once_a_changed_memory_changed_again(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    done = run(admin)
    client.retract_fact(s.jira, "we moved off Jira")
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert err.value.code == "CONFLICT" and s.jira in err.value.args[0]
    with pytest.raises(GraphMemoryClientError) as err:
        client.execute(M_ROLLBACK, {"id": done["id"]})
    assert err.value.code == "FORBIDDEN"


ENTITY_Q = 'query($n: String!) { entity(name: $n) { name facts(scopes: ["team:x"]) { object } } }'


def test_rollback_is_refused_once_a_merged_away_claim_was_told_again(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """An entity merge ends the version filed under the absorbed name and carries it over; a
    fact told again under that name after the run is a new version in the old slot. Restoring
    the old version beside it would leave two live versions of one claim: CONFLICT, naming it.
    Another object of the slot (a claim of its own) does not stand in the way."""
    e1 = client.record_episode(**episode("wa", "s-w1", scope=CORE))
    e2 = client.record_episode(**episode("wb", "s-w2", scope=CORE))
    many = {"scope": CORE, "cardinality": "MANY"}
    assert (
        client.assert_facts([fact("Initrode Labs", "builds", "sensors", [e1], **many)])["accepted"]
        == 1
    )
    assert (
        client.assert_facts(
            [fact("Initrode Labs.", "builds", "temperature sensors", [e2], **many)]
        )["accepted"]
        == 1
    )
    done = run(admin, steps=["ENTITIES"])
    assert done["status"] == "APPLIED" and done["changes"], done
    e3 = client.record_episode(**episode("wc", "s-w3", scope=CORE))
    other = client.assert_facts([fact("Initrode Labs.", "builds", "chips", [e3], **many)])
    assert other["accepted"] == 1
    again = client.assert_facts(
        [fact("Initrode Labs.", "builds", "temperature sensors", [e3], **many)]
    )
    told = again["results"][0]
    assert told["action"] == "created", told  # the old version was ended by the merge
    with pytest.raises(GraphMemoryClientError) as err:
        admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert err.value.code == "CONFLICT" and str(told["factId"]) in str(err.value)
    assert str(other["results"][0]["factId"]) not in str(err.value)


def test_a_rollback_after_a_forget_leaves_no_entity_only_the_forgotten_named(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """quillon named "Acme Corp", bob "ACME Corp."; a run merges them onto quillon's spelling,
    quillon is forgotten (bob's moved fact keeps the entity), then the run is rolled back: bob's
    fact is about his own spelling again, and the name only quillon gave answers nothing."""
    q = client.record_episode(**episode("quillon", "q1", scope="team:x"))
    b = client.record_episode(**episode("bob", "b1", scope="team:x"))
    for f in (
        fact("Acme Corp", "vendor_code", "V-77", [q], scope="team:x", cardinality="ONE"),
        fact("ACME Corp.", "ceo", "Dana Reyes", [b], scope="team:x", cardinality="ONE"),
    ):
        assert client.assert_facts([f])["accepted"] == 1
    done = admin.execute(
        'mutation { runConsolidation(scopes: ["team:x"], steps: [ENTITIES]) { id status } }'
    )["runConsolidation"]
    assert done["status"] == "APPLIED"
    assert admin.forget_contributor("quillon", wait_seconds=30)["state"] == "DONE"
    admin.execute(M_ROLLBACK, {"id": done["id"]})
    bobs = client.execute(ENTITY_Q, {"n": "ACME Corp."})["entity"]
    assert bobs is not None and [f["object"] for f in bobs["facts"]] == ["Dana Reyes"]
    assert client.execute(ENTITY_Q, {"n": "Acme Corp"})["entity"] is None


def _shape(changes: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(c["seq"], c["step"], c["action"], c["targetId"]) for c in changes]


def test_the_run_s_diff_is_read_back_only_when_asked_for(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    """A rollback or a listing that does not select the diff answers without it (and without
    reading it); one that selects it, directly or through a fragment, gets all of it."""
    build_store(settings, tenant, client, admin)
    done = run(admin)
    assert done["changes"]
    bare = admin.execute(
        "mutation($id: ID!) { rollbackConsolidation(runId: $id) { id status restored changed } }",
        {"id": done["id"]},
    )["rollbackConsolidation"]
    assert bare["status"] == "ROLLED_BACK" and bare["restored"] > 0
    assert bare["changed"] == len(done["changes"])  # counted on the run, not by reading it
    listed = analyst.execute("{ consolidationRuns { id status changed } }", {})
    assert listed["consolidationRuns"] == [
        {"id": done["id"], "status": "ROLLED_BACK", "changed": len(done["changes"])}
    ]
    (direct,) = analyst.execute(Q_RUNS, {})["consolidationRuns"]
    assert _shape(direct["changes"]) == _shape(done["changes"])
    (spread,) = analyst.execute(
        "fragment Diff on ConsolidationRun { changes { seq step action targetId } } "
        "{ consolidationRuns { id ...Diff } }",
        {},
    )["consolidationRuns"]
    (inline,) = analyst.execute(
        "{ consolidationRuns { id ... on ConsolidationRun { changes { seq step action targetId } }"
        " } }",
        {},
    )["consolidationRuns"]
    assert _shape(spread["changes"]) == _shape(inline["changes"]) == _shape(done["changes"])
    # A rollback asked for its diff returns it (a second run, rolled back selecting it).
    again = run(admin)
    back = admin.execute(M_ROLLBACK, {"id": again["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK"
    assert _shape(back["changes"]) == _shape(again["changes"])
