"""Forget in two phases: everything only the contributor gave is unanswerable from the call's
first transaction on, while the purge job is still in flight (held here by a runner that does
not go on, as a crashed or slow one would); the job then purges in batches, resumes after its
runner dies, counts every batch once, and a second forget joins it."""

from __future__ import annotations

import asyncio
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.container import Services
from graph_memory.db import Database
from graph_memory.services.forget.service import ForgetJob
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, _free_port, episode
from tests.integration.conftest import fact as _fact
from tests.integration.forget_helpers import STALLED, admin_of, finish, held, with_services
from tests.integration.forget_helpers import release as _release
from tests.integration.forget_helpers import run_purge as _run

SECRET = "Quetzalcoatl"
SCOPES = ["team:core"]
T = TypeVar("T")

FORGET = """mutation($u: String!, $w: Float!) { forgetContributor(userId: $u, waitSeconds: $w) {
  receipt jobId state batches episodesDeleted factVersionsDeleted userDeleted } }"""
JOB = """query($id: ID!) { forgetJob(id: $id) {
  jobId state batches episodesDeleted factVersionsDeleted factsRecomputed finishedAt } }"""
ENTITY = "query($n: String!) { entity(name: $n) { id name } }"
EPISODES = """query($sc: [String!]!, $u: String) {
  episodes(scopes: $sc, userId: $u, first: 100) { id userId summary } }"""


def fact(subject: str, predicate: str, obj: str, episodes: list[str]) -> dict[str, Any]:
    return _fact(subject, predicate, obj, episodes, cardinality="ONE")


def _bolt(settings: Settings, text: str, **params: Any) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        db = Database.connect(settings.neo4j())
        try:
            return await db.run_raw(text, params)
        finally:
            await db.close()

    return asyncio.run(go())


def _until_done(settings: Settings, tenant: str, job_id: str, batch: int) -> ForgetJob:
    """Run the purge to its end here, or, when the server's resumer took it over first (it
    scans for purges without a runner), wait for that runner to finish it."""
    ran = _run(settings, tenant, job_id, batch)
    deadline = time.monotonic() + 60
    while ran is None or not ran.done:
        assert time.monotonic() < deadline, "the purge did not finish"
        time.sleep(0.1)

        async def get(s: Services) -> ForgetJob:
            assert s.forget is not None
            return await s.forget.job(admin_of(tenant), job_id)

        ran = with_services(settings, get)
    return ran


def _canaries(settings: Settings, tenant: str, needle: str) -> list[str]:
    """Every property of every node of the tenant and of every relationship touching one that
    mentions the needle (a raw scan, bypassing every query of the service)."""
    rows = _bolt(
        settings,
        "MATCH (n) WHERE n.tenant = $t OPTIONAL MATCH (n)-[r]-() "
        "RETURN labels(n) AS labels, properties(n) AS props, collect(properties(r)) AS rels",
        t=tenant,
    )
    return [
        f"{r['labels']}.{k}"
        for r in rows
        for props in [r["props"], *r["rels"]]
        for k, v in props.items()
        if needle.lower() in str(v).lower()
    ]


def _world(client: GraphMemoryClient) -> dict[str, str]:
    def ep(user: str, session: str, summary: str) -> str:
        return client.record_episode(
            **episode(user, session, scope="team:core", summary=summary, confidence=0.6)
        )

    w = {
        "a1": ep("alice", "s-a1", "Alice set up the team's build tools."),
        "b1": ep("bob", "s-b1", f"Bob kept talking about his project {SECRET}."),
        "b2": ep("bob", "s-b2", f"Bob said {SECRET} ships in spring."),
    }
    out = client.assert_facts(
        [
            fact("core", "uses_tool", "gradle", [w["a1"]]),
            fact("bob", "works_on", SECRET, [w["b1"], w["b2"]]),
            fact("core", "ships_in", "spring", [w["a1"], w["b2"]]),
        ]
    )
    assert out["accepted"] == 3, [r["error"] for r in out["results"]]
    w["tool"], w["secret"], w["shared"] = (str(r["factId"]) for r in out["results"])
    tool = client.fact(w["tool"])
    assert tool is not None
    w["told"] = str(tool["recordedAt"])
    return w


def _sees_nothing_of_bob(client: GraphMemoryClient, w: dict[str, str]) -> None:
    # Now, and as of the moment the facts were written (before the forget): no asOf shows them.
    told = datetime.fromisoformat(str(w["told"]))
    for as_of in (None, datetime.now(UTC), told):
        listed = client.facts(SCOPES, as_of=as_of, first=100, include_candidates=True)
        ids = {e["node"]["id"] for e in listed["edges"]}
        assert w["secret"] not in ids and w["tool"] in ids and w["shared"] in ids
    assert client.fact(w["secret"]) is None
    hist = client.history("bob", "works_on", SCOPES)
    assert SECRET not in str(hist)
    eps = client.execute(EPISODES, {"sc": SCOPES, "u": None})["episodes"]
    seen = {e["id"] for e in eps}
    assert w["a1"] in seen and not {w["b1"], w["b2"]} & seen
    assert client.execute(ENTITY, {"n": SECRET})["entity"] is None
    recalled = client.recall(f"what is {SECRET}", SCOPES, include_candidates=True)
    assert SECRET not in str(recalled)
    shared = client.fact(w["shared"])
    assert shared is not None and SECRET not in str(shared)
    assert {e["episodeId"] for e in shared["provenance"]} == {w["a1"]}


def test_forget_hides_everything_at_once_while_the_purge_is_in_flight(
    client: GraphMemoryClient, settings: Settings, tenant: str, admin: GraphMemoryClient
) -> None:
    w = _world(client)
    job_id = held(settings, tenant, "bob")
    _sees_nothing_of_bob(client, w)
    # The audit trail keeps who/when/what of the events about bob's fact, not their content.
    trail = admin.audit_log(first=200)
    assert w["secret"] in str(trail) and SECRET not in str(trail)
    # Nothing new may be built on their words while the purge runs.
    refused = client.assert_facts([fact("bob", "likes", "tea", [w["b1"]])])
    assert refused["accepted"] == 0
    assert refused["results"][0]["error"]["code"] == "CONTRIBUTOR_FORGOTTEN"
    # Nor may their episodes judge a memory or evidence a procedure.
    proc = client.execute(
        'mutation { upsertProcedure(intent: "build", role: "dev", steps: ["gradle build"], '
        'scope: "team:core") { procedure { id } } }'
    )["upsertProcedure"]["procedure"]["id"]
    for cites in (
        f'reportOutcome(memoryIds: ["{w["tool"]}"], outcome: HARMFUL, episodeId: "{w["b1"]}")'
        " { recorded }",
        f'recordProcedureOutcome(id: "{proc}", success: true, episodeId: "{w["b1"]}") {{ status }}',
    ):
        with pytest.raises(GraphMemoryClientError) as err:
            client.execute("mutation { " + cites + " }")
        assert err.value.code == "CONTRIBUTOR_FORGOTTEN", cites
    # The same user id talking again is a new contributor, unrelated to the forgotten one.
    fresh = client.record_episode(
        **episode("bob", "s-b3", scope="team:core", summary="Bob joined the infra rota.")
    )
    assert client.assert_facts([fact("bob", "on_rota", "infra", [fresh])])["accepted"] == 1
    running = admin.execute(JOB, {"id": job_id})["forgetJob"]
    assert running["state"] == "RUNNING" and running["batches"] == 0

    _release(settings, job_id)
    done = _until_done(settings, tenant, job_id, batch=1)
    assert done.counts.episodes_deleted == 2 and done.counts.fact_versions_deleted == 1
    _sees_nothing_of_bob(client, w)
    assert _canaries(settings, tenant, SECRET) == []
    eps = client.execute(EPISODES, {"sc": SCOPES, "u": "bob"})["episodes"]
    assert [e["id"] for e in eps] == [fresh]
    shared = client.fact(w["shared"])
    assert shared is not None and shared["confidence"] < 1.0
    # A predicate only bob's facts used goes (its name can be his words); the others stay.
    names = _bolt(settings, "MATCH (p:Predicate {tenant: $t}) RETURN p.name AS n", t=tenant)
    assert {r["n"] for r in names} == {"uses_tool", "ships_in", "on_rota"}
    assert done.counts.predicates_deleted == 1
    # The markers are gone once the purge is done: reads pay nothing for it any more.
    assert _bolt(settings, "MATCH (h:Forgotten {tenant: $t}) RETURN h", t=tenant) == []
    final = admin.execute(JOB, {"id": job_id})["forgetJob"]
    assert final["state"] == "DONE" and final["finishedAt"] and final["factVersionsDeleted"] == 1


def test_a_procedure_only_their_sessions_proved_is_hidden_while_the_purge_runs(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """Procedures are among what a forget hides from its first transaction: one whose every
    evidence is the forgotten user's sessions is served neither by procedures() nor by
    recall; one another user's session also proved stays."""
    bob = client.record_episode(
        **episode("bob", "s-b", scope="team:core", summary=f"{SECRET} ran.")
    )
    ann = client.record_episode(**episode("ann", "s-a", scope="team:core", summary="Ann deployed."))

    def proven(intent: str, *episodes: str) -> str:
        made = client.upsert_procedure(intent, "dev", [f"{intent} step"], "team:core")
        pid = str(made["procedure"]["id"])
        for e in episodes:
            client.record_procedure_outcome(pid, True, e)
        return pid

    theirs = proven("bob_ritual", bob)
    shared = proven("deploy_service", bob, ann)

    def served(intent: str) -> list[str]:
        listed = [p["id"] for p in client.procedures(intent, SCOPES, include_candidates=True)]
        got = client.recall(
            intent.replace("_", " "), SCOPES, intent=intent, include_candidates=True
        )
        return listed + [i["id"] for i in got["items"] if i["kind"] == "PROCEDURE"]

    assert served("bob_ritual") == [theirs, theirs]
    held(settings, tenant, "bob")
    assert served("bob_ritual") == []
    assert served("deploy_service") == [shared, shared]


def test_a_procedure_only_they_proved_is_served_at_no_asof_once_purged(
    client: GraphMemoryClient, settings: Settings, tenant: str, admin: GraphMemoryClient
) -> None:
    """The purge leaves a procedure only their sessions proved as if those sessions never
    happened: an agent's is served at no asOf (it was active only by their successes) and
    counts none; an admin's stays reviewed knowledge of its past, with no count of theirs."""
    bobs = [
        client.record_episode(
            **episode("bob", f"s-b{n}", scope="team:core", summary=f"{SECRET} deployed {n}.")
        )
        for n in range(3)
    ]

    def proven(c: GraphMemoryClient, intent: str) -> str:
        pid = str(
            c.upsert_procedure(intent, "dev", [f"{intent} step"], "team:core")["procedure"]["id"]
        )
        for ep in bobs:
            client.record_procedure_outcome(pid, True, ep)
        return pid

    agents = proven(client, "bob_ritual")
    admins = proven(admin, "deploy_acme")
    before = client.procedures("bob_ritual", SCOPES)[0]
    assert before["status"] == "active" and before["successCount"] == 3
    at = datetime.now(UTC)
    job_id = held(settings, tenant, "bob")
    _release(settings, job_id)
    _until_done(settings, tenant, job_id, batch=1)
    for as_of in (None, at):
        assert client.procedures("bob_ritual", SCOPES, include_candidates=True, as_of=as_of) == []
    (kept,) = client.procedures("deploy_acme", SCOPES, as_of=at)
    assert kept["id"] == admins and kept["successCount"] == 0
    assert client.procedures("deploy_acme", SCOPES) == []  # nothing proves it any more
    counts = _bolt(
        settings,
        "MATCH (p:Procedure {tenant: $t}) RETURN p.id AS id, p.success_count AS n",
        t=tenant,
    )
    assert {r["id"]: r["n"] for r in counts} == {agents: 0, admins: 0}


def test_a_procedure_of_their_own_scope_is_hidden_while_the_purge_runs(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """A procedure kept in the forgotten user's own scope is theirs whether or not an episode
    proved it (the purge deletes it whole): hidden from the forget's commit on. One the same
    user id keeps after the forget belongs to the new contributor and is served."""
    scopes = ["user:bob"]

    def served(intent: str) -> list[str]:
        listed = [p["id"] for p in client.procedures(intent, scopes, include_candidates=True)]
        got = client.recall(
            intent.replace("_", " "), scopes, intent=intent, include_candidates=True
        )
        return listed + [i["id"] for i in got["items"] if i["kind"] == "PROCEDURE"]

    client.record_episode(**episode("bob", "s-b", scope="user:bob", summary="Bob woke up."))
    made = client.upsert_procedure("bob_morning", "dev", [f"{SECRET} first"], "user:bob")
    old = str(made["procedure"]["id"])
    assert served("bob_morning") == [old, old]
    held(settings, tenant, "bob")
    assert served("bob_morning") == []
    again = client.upsert_procedure("bob_evening", "dev", ["stretch"], "user:bob")
    new = str(again["procedure"]["id"])
    assert served("bob_evening") == [new, new]


def test_a_claim_they_made_first_is_believed_from_when_another_user_first_made_it(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Excision is "as if they had never said it": a value bob said first and ann said again
    later was, until ann said it, bob's alone. After the forget no asOf before ann's telling
    shows it (no value with a confidence of 0 and no provenance); the value it superseded
    holds until then; from ann's telling on it stands, on her evidence."""
    ann0 = client.record_episode(
        **episode("ann", "s-a0", scope="team:core", summary="Dana lives in Rome.")
    )
    bob = client.record_episode(
        **episode("bob", "s-b", scope="team:core", summary=f"{SECRET} talk.")
    )
    ann1 = client.record_episode(
        **episode("ann", "s-a1", scope="team:core", summary="Dana moved away.")
    )
    said = {"cardinality": "ONE", "scope": "team:core", "validFrom": "2026-02-10T00:00:00Z"}
    rome = client.assert_facts([_fact("Dana", "lives_in", "Rome", [ann0], **said)])
    assert rome["accepted"] == 1
    time.sleep(0.05)
    before_bob = datetime.now(UTC)
    time.sleep(0.05)
    assert (
        client.assert_facts([_fact("Dana", "lives_in", "Berlin", [bob], **said)])["accepted"] == 1
    )
    time.sleep(0.05)
    bobs_alone = datetime.now(UTC)
    time.sleep(0.05)
    again = client.assert_facts([_fact("Dana", "lives_in", "Berlin", [ann1], **said)])
    assert again["results"][0]["action"] == "corroborated", again
    time.sleep(0.05)
    after_ann = datetime.now(UTC)

    def lives_in(as_of: datetime) -> list[tuple[str, list[str]]]:
        page = client.facts(["team:core"], as_of=as_of, valid_at="2026-06-01T00:00:00Z")
        return [
            (n["object"], sorted(e["episodeId"] for e in n["provenance"]))
            for n in (x["node"] for x in page["edges"])
            if n["predicate"] == "lives_in"
        ]

    assert lives_in(bobs_alone) == [("Berlin", [bob])]
    assert admin.forget_contributor("bob", wait_seconds=60)["state"] == "DONE"
    assert lives_in(before_bob) == [("Rome", [ann0])]
    assert lives_in(bobs_alone) == [("Rome", [ann0])]  # as if bob had never said Berlin
    assert lives_in(after_ann) == [("Berlin", [ann1])]
    history = client.history("Dana", "lives_in", ["team:core"], as_of=bobs_alone)
    assert [v["object"] for v in history["versions"]] == ["Rome"]


def test_an_undated_claim_they_made_first_holds_in_the_world_from_the_others_session(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """With no validFrom stated, a claim holds from its earliest cited session's start. Bob's
    (January) was that start for a value ann said again in her March session: once bob is
    forgotten it holds from March, so no validAt between answers from his testimony."""
    jan, mar = datetime(2026, 1, 5, tzinfo=UTC), datetime(2026, 3, 5, tzinfo=UTC)
    bob = client.record_episode(
        **episode(
            "bob", "s-b", scope="team:core", summary=f"{SECRET} talk.", startedAt=jan, endedAt=jan
        )
    )
    ann = client.record_episode(
        **episode(
            "ann",
            "s-a",
            scope="team:core",
            summary="Dana moved to Oslo.",
            startedAt=mar,
            endedAt=mar,
        )
    )
    said = {"cardinality": "ONE", "scope": "team:core"}
    assert client.assert_facts([_fact("Dana", "lives_in", "Oslo", [bob], **said)])["accepted"] == 1
    again = client.assert_facts([_fact("Dana", "lives_in", "Oslo", [ann], **said)])
    assert again["results"][0]["action"] == "corroborated", again

    def held_at(valid_at: str) -> list[str]:
        page = client.facts(["team:core"], valid_at=valid_at)
        return [x["node"]["object"] for x in page["edges"] if x["node"]["predicate"] == "lives_in"]

    assert held_at("2026-02-01T00:00:00Z") == ["Oslo"]
    assert admin.forget_contributor("bob", wait_seconds=60)["state"] == "DONE"
    assert held_at("2026-02-01T00:00:00Z") == []
    assert held_at("2026-04-01T00:00:00Z") == ["Oslo"]
    (version,) = client.history("Dana", "lives_in", ["team:core"])["versions"]
    assert version["validFrom"].startswith("2026-03-05")


def test_their_wording_of_a_fact_others_support_is_withheld_while_the_purge_runs(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """Bob first wrote a fact ann also supports, in his own words: from the forget's commit
    on, before any batch rewords it, every read serves the triple's neutral wording."""
    bob = client.record_episode(
        **episode("bob", "s-b", scope="team:core", summary="Bob talked a lot.")
    )
    ann = client.record_episode(
        **episode("ann", "s-a", scope="team:core", summary="Ann talked a lot.")
    )
    words = f"Bob confided the team picked Jira for his {SECRET} side project"
    said = {"cardinality": "ONE", "scope": "team:core"}
    first = client.assert_facts([_fact("core", "tracker", "Jira", [bob], text=words, **said)])
    fid = str(first["results"][0]["factId"])
    again = client.assert_facts([_fact("core", "tracker", "Jira", [ann], **said)])
    assert again["results"][0]["action"] == "corroborated"
    assert client.fact(fid)["text"] == words  # type: ignore[index]

    held(settings, tenant, "bob")
    neutral = "core tracker Jira"
    assert client.fact(fid)["text"] == neutral  # type: ignore[index]
    listed = client.facts(SCOPES)["edges"]
    assert [e["node"]["text"] for e in listed] == [neutral]
    history = client.history("core", "tracker", SCOPES)["versions"]
    assert [v["text"] for v in history] == [neutral]
    got = client.recall("which tracker does the core team use", SCOPES, min_relevance=0.0)
    assert fid in [i["id"] for i in got["items"]] and SECRET not in str(got)
    packed = client.context("which tracker does the core team use", 300, SCOPES)
    assert "Jira" in str(packed) and SECRET not in str(packed)


def test_a_predicate_name_only_they_introduced_is_not_listed_while_the_purge_runs(
    client: GraphMemoryClient, settings: Settings, tenant: str, admin: GraphMemoryClient
) -> None:
    """A name their facts registered on the way is their words, hidden from the forget's
    commit on, also once a purge batch has deleted their facts (the name goes at the job's
    end), and the audit trail names it by the purge's stand-in meanwhile; one an admin
    defined stays listed, whoever used it."""
    admin.execute(
        'mutation { definePredicates(predicates: [{name: "badge_code", cardinality: ONE}])'
        " { name } }"
    )
    bob = client.record_episode(
        **episode("bob", "s-b", scope="team:core", summary=f"{SECRET} said things.")
    )
    out = client.assert_facts(
        [
            _fact("bob", f"{SECRET.lower()}_rank", "high", [bob], cardinality="ONE"),
            _fact("bob", "badge_code", "B-17", [bob]),
        ]
    )
    assert out["accepted"] == 2, out

    def listed() -> set[str]:
        return {p["name"] for p in client.execute("{ predicates { name } }")["predicates"]}

    def trail() -> str:
        return str(admin.audit_log(action="define_predicate", first=100))

    assert {f"{SECRET.lower()}_rank", "badge_code"} <= listed()
    job_id = held(settings, tenant, "bob")
    assert f"{SECRET.lower()}_rank" not in listed() and "badge_code" in listed()
    assert SECRET.lower() not in trail().lower() and "forgotten-predicate" in trail()
    ran = _run(settings, tenant, job_id, batch=1, max_batches=1, owner=STALLED)
    assert ran is not None and ran.state == "running", ran
    assert f"{SECRET.lower()}_rank" not in listed() and "badge_code" in listed()
    assert SECRET.lower() not in trail().lower()
    finish(settings, tenant, job_id, batch=100)
    assert f"{SECRET.lower()}_rank" not in listed() and SECRET.lower() not in trail().lower()


def test_a_purge_resumes_after_its_runner_dies_and_counts_each_batch_once(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    eps = [
        client.record_episode(
            **episode("bob", f"s-{i}", scope="team:core", summary=f"{SECRET} note {i}.")
        )
        for i in range(5)
    ]
    batch = [fact("bob", f"p{i}", f"{SECRET}-{i}", [e]) for i, e in enumerate(eps)]
    out = client.assert_facts(batch, idempotency_key="bob-notes")
    assert out["accepted"] == 5
    job_id = held(settings, tenant, "bob")
    first = _run(settings, tenant, job_id, batch=2, max_batches=1, owner=STALLED)
    assert first is not None and first.state == "running" and first.batches == 1
    # That runner dies holding the lease; a new one waits for it to run out, then resumes.
    _bolt(
        settings,
        "MATCH (j:ForgetJob {id: $id}) SET j.lease_owner = 'dead', "
        "j.lease_until = datetime() + duration('PT1H')",
        id=job_id,
    )
    assert _run(settings, tenant, job_id, batch=2) is None
    _release(settings, job_id)
    done = _until_done(settings, tenant, job_id, batch=2)
    assert done.batches >= 2
    assert done.counts.episodes_deleted == 5 and done.counts.fact_versions_deleted == 5
    assert done.counts.user_deleted
    assert _canaries(settings, tenant, SECRET) == []
    events = _bolt(
        settings,
        "MATCH (a:AuditEvent {tenant: $t}) WHERE a.action = 'forget_contributor' "
        "RETURN a.after AS after",
        t=tenant,
    )
    assert len(events) == 1 and '"episodes_deleted": 5' in str(events[0]["after"])
    # The idempotency record of bob's batch went with his episodes: a replay of the key is
    # a fresh request (whose episodes no longer exist), not the stored answer.
    replay = client.assert_facts(batch, idempotency_key="bob-notes")
    assert replay["accepted"] == 0
    assert {r["error"]["code"] for r in replay["results"]} == {"NOT_FOUND"}
    # Running a finished job again is a no-op.
    again = _run(settings, tenant, job_id, batch=2)
    assert again is None or again.batches == done.batches


def test_a_second_forget_joins_the_running_purge(
    client: GraphMemoryClient, settings: Settings, tenant: str, admin: GraphMemoryClient
) -> None:
    w = _world(client)
    job_id = held(settings, tenant, "bob")
    # Bob talks again (a new contributor), then is forgotten again while the first purge runs.
    again = client.record_episode(
        **episode("bob", "s-b9", scope="team:core", summary=f"Bob mentioned {SECRET} again.")
    )
    joined = admin.execute(FORGET, {"u": "bob", "w": 0})["forgetContributor"]
    assert joined["jobId"] == job_id and joined["state"] == "RUNNING"
    eps = client.execute(EPISODES, {"sc": SCOPES, "u": "bob"})["episodes"]
    assert eps == []
    _release(settings, job_id)
    done = _until_done(settings, tenant, job_id, batch=50)
    assert done.counts.episodes_deleted == 3
    assert _canaries(settings, tenant, SECRET) == []
    assert client.fact(w["tool"]) is not None and again not in str(
        client.facts(SCOPES, include_candidates=True)
    )


def test_forget_over_http_returns_its_job_and_forget_job_follows_it(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    make_client: Callable[..., GraphMemoryClient],
    tenant: str,
    settings: Settings,
) -> None:
    _world(client)
    bob = client.execute(ENTITY, {"n": "bob"})["entity"]  # facts about bob name him
    started = admin.execute(FORGET, {"u": "bob", "w": 0})["forgetContributor"]
    assert started["receipt"].startswith("forgotten_") and "bob" not in started["receipt"]
    # Keyed by the tenant's salt: not the hash of the id anyone can compute, nor the entity's.
    unkeyed = hashlib.sha256(f"{tenant}\x00bob".encode()).hexdigest()[:24]
    assert unkeyed not in started["receipt"] and bob["id"][4:] not in started["receipt"]
    deadline = time.monotonic() + 30
    job = admin.execute(JOB, {"id": started["jobId"]})["forgetJob"]
    while job["state"] != "DONE" and time.monotonic() < deadline:
        time.sleep(0.1)
        job = admin.execute(JOB, {"id": started["jobId"]})["forgetJob"]
    assert job["state"] == "DONE" and job["episodesDeleted"] == 2
    assert _canaries(settings, tenant, SECRET) == []
    # An unknown user: nothing to delete, still a finished (audited) job.
    nobody = admin.execute(FORGET, {"u": "nobody", "w": 5})["forgetContributor"]
    assert nobody["state"] == "DONE" and nobody["episodesDeleted"] == 0
    for bad in ({"u": "bob", "w": -1}, {"u": " ", "w": 0}):
        with pytest.raises(GraphMemoryClientError) as e:
            admin.execute(FORGET, bad)
        assert e.value.code == "VALIDATION"
    with pytest.raises(GraphMemoryClientError) as e:
        admin.execute(JOB, {"id": "forget_nope"})
    assert e.value.code == "NOT_FOUND"
    with pytest.raises(GraphMemoryClientError) as e:
        make_client(tenant, "analyst").execute(JOB, {"id": started["jobId"]})
    assert e.value.code == "FORBIDDEN"
    # Another tenant's admin cannot see the job.
    with pytest.raises(GraphMemoryClientError) as e:
        make_client(f"{tenant}-other", "admin").execute(JOB, {"id": started["jobId"]})
    assert e.value.code == "NOT_FOUND"


def test_a_service_killed_mid_purge_leaves_it_resumable_and_it_finishes_exactly_once(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """kill -9 of the process running a purge, between two of its batches: nothing of bob is
    answerable meanwhile, and the next runner finishes the job with every count once."""
    eps = [
        client.record_episode(
            **episode("bob", f"s-{i}", scope="team:core", summary=f"{SECRET} log {i}.")
        )
        for i in range(12)
    ]
    assert (
        client.assert_facts(
            [fact("bob", f"q{i}", f"{SECRET}-{i}", [e]) for i, e in enumerate(eps)]
        )["accepted"]
        == 12
    )
    port = _free_port()
    env = {**os.environ, "GRAPH_MEMORY_FORGET_BATCH": "1"}
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graph_memory.cli", "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            admin = GraphMemoryClient(
                f"http://127.0.0.1:{port}/graphql", _create_key(settings, tenant, "admin")
            )
            deadline = time.monotonic() + 60
            while True:
                try:
                    started = admin.execute(FORGET, {"u": "bob", "w": 0})["forgetContributor"]
                    break
                except GraphMemoryClientError as e:  # UNAVAILABLE until it listens
                    assert e.code == "UNAVAILABLE", e
                    assert time.monotonic() < deadline, "serve did not start"
                    time.sleep(0.2)
            job_id = started["jobId"]
            while admin.execute(JOB, {"id": job_id})["forgetJob"]["batches"] < 3:
                assert time.monotonic() < deadline, "the purge made no progress"
                time.sleep(0.05)
        finally:
            proc.send_signal(signal.SIGKILL)  # a crash: no cleanup, the lease stays behind
            proc.wait(timeout=10)
    mid = _bolt(
        settings, "MATCH (j:ForgetJob {id: $id}) RETURN j.state AS s, j.batches AS b", id=job_id
    )[0]
    assert mid["s"] == "running" and mid["b"] >= 3, mid
    assert SECRET not in str(client.facts(SCOPES, include_candidates=True))
    assert SECRET not in str(client.recall(SECRET, SCOPES, include_candidates=True))
    _release(settings, job_id)
    done = _until_done(settings, tenant, job_id, batch=5)
    assert done.counts.episodes_deleted == 12 and done.counts.fact_versions_deleted == 12
    assert _canaries(settings, tenant, SECRET) == []
    events = _bolt(
        settings,
        "MATCH (a:AuditEvent {tenant: $t}) WHERE a.action = 'forget_contributor' RETURN a",
        t=tenant,
    )
    assert len(events) == 1


def test_a_purge_leaves_the_slots_it_shares_as_if_their_versions_were_never_written(
    client: GraphMemoryClient, settings: Settings, tenant: str, admin: GraphMemoryClient
) -> None:
    """Most excised versions take their slot's whole timeline with them; where a slot keeps
    versions of others (a value bob replaced, a many-valued predicate both used) the timeline
    is rebuilt, one version per batch: every asOf answers as if bob never spoke."""
    a1 = client.record_episode(
        **episode("alice", "s-a1", scope="team:core", summary="Alice planned the release.")
    )
    b1 = client.record_episode(
        **episode("bob", "s-b1", scope="team:core", summary=f"Bob talked about {SECRET}.")
    )
    spring = client.assert_facts([fact("core", "ships_in", "spring", [a1])])["results"][0]
    told_spring = client.fact(str(spring["factId"]))["recordedAt"]  # type: ignore[index]
    replaced = client.assert_facts([fact("core", "ships_in", SECRET, [b1])])
    assert replaced["accepted"] == 1
    both = client.assert_facts(
        [
            _fact("core", "likes", "tea", [a1], cardinality="MANY"),
            _fact("core", "likes", f"{SECRET} tea", [b1], cardinality="MANY"),
            fact("bob", "codename", SECRET, [b1]),
        ]
    )
    assert both["accepted"] == 3
    told_all = client.fact(str(both["results"][2]["factId"]))["recordedAt"]  # type: ignore[index]

    job_id = held(settings, tenant, "bob")
    # Run by the holder of the lease, so no resumer of the server takes it over with its own
    # batch size: one version per batch.
    done = _run(settings, tenant, job_id, batch=1, owner=STALLED)
    assert done is not None and done.done
    assert done.counts.fact_versions_deleted == 3 and done.batches >= 3

    for as_of in (None, told_spring, told_all):
        listed = client.facts(SCOPES, as_of=as_of, first=100, include_candidates=True)
        objects = sorted(str(e["node"]["object"]) for e in listed["edges"])
        assert objects == (["spring"] if as_of == told_spring else ["spring", "tea"]), as_of
    hist = client.history("core", "ships_in", SCOPES)
    assert SECRET not in str(hist) and "spring" in str(hist)
    # No segment is left without the version it let answer; the autouse fixture then checks
    # that every slot's stored timeline equals the one recomputed from what is left.
    orphans = _bolt(
        settings,
        "MATCH (s:Segment {tenant: $t}) WHERE NOT (s)-[:WINS]->(:Fact) RETURN count(s) AS n",
        t=tenant,
    )
    assert orphans == [{"n": 0}]
    assert _canaries(settings, tenant, SECRET) == []


def test_a_shared_version_is_said_when_the_others_said_it_once_a_reteller_is_forgotten(
    make_client: Any, tenant: str, admin: GraphMemoryClient
) -> None:
    """bob says spring (January), alice says it again (March), carol's February session says
    summer and arrives last: undated, the later-said claim wins, and alice's telling made
    spring the later one. Once alice is forgotten the slot answers as if she never spoke:
    carol's summer, told after bob's spring, is the value, now and at every asOf."""

    def tell(c: GraphMemoryClient, user: str, month: int, obj: str) -> str:
        ep = c.record_episode(
            **episode(
                user,
                f"s-{user}",
                scope="team:core",
                startedAt=datetime(2026, month, 1, tzinfo=UTC),
                endedAt=datetime(2026, month, 1, 1, tzinfo=UTC),
            )
        )
        out = c.assert_facts([fact("core", "ships_in", obj, [ep])])
        assert out["accepted"] == 1, out
        return str(out["results"][0]["action"])

    def now_and_before(c: GraphMemoryClient, moment: str | None) -> list[str]:
        listed = c.facts(SCOPES, as_of=moment, subject="core", predicate="ships_in")
        return [str(e["node"]["object"]) for e in listed["edges"]]

    client = make_client(tenant)
    tell(client, "bob", 1, "spring")
    assert tell(client, "alice", 3, "spring") == "corroborated"
    tell(client, "carol", 2, "summer")
    assert now_and_before(client, None) == ["spring"]
    told = datetime.now(UTC).isoformat()  # before the forget: an answer it rewrites
    admin.forget_contributor("alice")

    # The same story without alice, in a tenant of its own: what every read must now match.
    control_tenant = f"{tenant}-control"
    control = make_client(control_tenant)
    tell(control, "bob", 1, "spring")
    tell(control, "carol", 2, "summer")
    assert now_and_before(control, None) == ["summer"]
    assert now_and_before(client, None) == ["summer"]
    assert now_and_before(client, told) == ["summer"]


def test_every_purge_batch_holds_the_lock_of_the_scopes_the_contributors_episodes_are_in(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """bob's session in team:ops backs nothing, so it goes in the last batch: every batch
    before takes that scope's lock too (a runner reads those scopes once, not per batch), so
    no writer of team:ops interleaves with any of them."""
    client.record_episode(
        **episode("bob", "s-ops", scope="team:ops", summary="Bob was on call for ops.")
    )
    b1 = client.record_episode(
        **episode("bob", "s-b1", scope="team:core", summary="Bob planned the core work.")
    )
    out = client.assert_facts([fact("core", f"p{i}", f"v{i}", [b1]) for i in range(3)])
    assert out["accepted"] == 3, out
    seq = "MATCH (l:ScopeLock {tenant: $t, scope: 'team:ops'}) RETURN l.seq AS n"
    job_id = held(settings, tenant, "bob")
    marked = _bolt(settings, seq, t=tenant)[0]["n"]
    ran = _run(settings, tenant, job_id, batch=1, max_batches=2, owner=STALLED)
    assert ran is not None and ran.batches == 2 and ran.counts.fact_versions_deleted == 2
    assert _bolt(settings, seq, t=tenant)[0]["n"] == marked + 2
    done = _run(settings, tenant, job_id, batch=1, owner=STALLED)
    assert done is not None and done.done and done.counts.episodes_deleted == 2


def test_a_shared_version_is_what_the_others_told_once_its_first_teller_is_forgotten(
    make_client: Any, tenant: str, admin: GraphMemoryClient
) -> None:
    """bob told each triple first; alice told it again in her own terms (no start; another
    start, from a conversation), which only added evidence to bob's version. Once bob is
    forgotten each one is what alice's telling alone would have made it: her start, her tier
    and source (an inference from a conversation waiting for review, not bob's active
    statement), compared field by field
    with a tenant where bob never spoke."""

    def session(c: GraphMemoryClient, user: str, day: str) -> str:
        at = datetime.fromisoformat(day).replace(tzinfo=UTC)
        return c.record_episode(
            **episode(user, f"s-{user}-{day}", scope="team:core", startedAt=at, endedAt=at)
        )

    def tell(c: GraphMemoryClient, user: str, day: str, *items: dict[str, Any]) -> None:
        ep = session(c, user, day)
        out = c.assert_facts([{**i, "episodes": [{"episodeId": ep}]} for i in items])
        assert out["accepted"] == len(items), out

    def story(c: GraphMemoryClient, with_bob: bool) -> None:
        if with_bob:
            tell(
                c,
                "bob",
                "2021-05-08",
                _fact(
                    "dave",
                    "lives_in",
                    "Paris",
                    [],
                    cardinality="ONE",
                    validFrom="2018-02-02T00:00:00Z",
                ),
                fact("carol", "lives_in", "Berlin", []),
            )
        tell(c, "alice", "2026-01-02", fact("dave", "lives_in", "Paris", []))
        tell(
            c,
            "alice",
            "2025-12-17",
            _fact(
                "carol",
                "lives_in",
                "Berlin",
                [],
                cardinality="ONE",
                source="conversation",
                validFrom="2023-08-09T00:00:00Z",
            ),
        )

    def shown(c: GraphMemoryClient, valid_at: str | None) -> list[tuple[Any, ...]]:
        page = c.facts(SCOPES, valid_at=valid_at, first=100, include_candidates=True)
        return sorted(
            (
                n["subject"],
                n["predicate"],
                n["object"],
                n["validFrom"],
                n["validTo"],
                n["tier"],
                n["status"],
                n["source"],
            )
            for n in (e["node"] for e in page["edges"])
        )

    client = make_client(tenant)
    story(client, with_bob=True)
    control = make_client(f"{tenant}-control")
    story(control, with_bob=False)
    assert admin.forget_contributor("bob", wait_seconds=60)["state"] == "DONE"
    for valid_at in (None, "2019-06-01T00:00:00Z", "2024-01-01T00:00:00Z"):
        assert shown(client, valid_at) == shown(control, valid_at), valid_at
    assert [n[5:] for n in shown(client, None) if n[0] == "carol"] == [
        ("INFERRED", "CANDIDATE", "conversation")
    ]


def test_the_audit_of_a_fact_they_said_before_others_keeps_only_the_others_telling(
    client: GraphMemoryClient, settings: Settings, tenant: str, admin: GraphMemoryClient
) -> None:
    """Bob said it first, with a date and words of his own; ann said it later. Its audit
    events from before ann's telling recorded Bob's (his date, his words): from the forget's
    commit on they keep who, when and which action only, as after the purge; ann's stay."""
    bob = client.record_episode(**episode("bob", "s-b", scope="team:core"))
    ann = client.record_episode(**episode("ann", "s-a", scope="team:core"))
    said = {"cardinality": "ONE", "scope": "team:core"}
    words = f"Bob recalled {SECRET} founded it in 1987"
    first = client.assert_facts(
        [
            _fact(
                "initrode",
                "founded",
                "Springfield",
                [bob],
                text=words,
                validFrom="1987-04-03T00:00:00Z",
                **said,
            )
        ]
    )
    fid = str(first["results"][0]["factId"])
    client.assert_facts([_fact("initrode", "founded", "Springfield", [ann], **said)])

    def trail() -> list[dict[str, Any]]:
        return [e["node"] for e in admin.audit_log(target=fid)["edges"]]

    before = trail()
    assert "1987" in str(before)
    job = held(settings, tenant, "bob")

    def check() -> None:
        events = trail()
        assert {e["id"] for e in before} <= {e["id"] for e in events}
        assert "1987" not in str(events) and SECRET not in str(events)
        assert any(e["action"] == "corroborated" for e in events)

    check()
    finish(settings, tenant, job, batch=100)
    check()
