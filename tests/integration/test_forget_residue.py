"""What a forget must not leave behind beyond the user's episodes and facts (probe6 D2, D5):
what a session token serving them did (audit events, procedures), entities a consolidation
merged, their outcome reports' effect on surviving facts, the job's own record, and the
consolidation history of their scope. Each test does what the attacker probe did, forgets,
and then reads every property of every node and relationship of the tenant for the user's
canary strings."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.embeddings import Embedder
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, bolt, episode, fact
from tests.integration.consolidation_helpers import M_RUN
from tests.integration.fake_llm import FakeLLM, extraction
from tests.integration.forget_helpers import STALLED, held, release, run_purge
from tests.integration.ingest_helpers import INGEST, drain, llm_settings, serve, session

USER = "quokkazed"  # the user id is itself a canary
CANARY = "quokkazed"

M_TOKEN = (
    "mutation($u: String!, $t: [String!]) { mintSessionToken(userId: $u, teams: $t) { token } }"
)
M_OUTCOME = (
    "mutation($m: [ID!]!, $e: ID!) { reportOutcome(memoryIds: $m, outcome: HARMFUL,"
    " episodeId: $e) { memoryId recorded harmful } }"
)
M_CONSOLIDATE = "mutation($s: [String!]!) { runConsolidation(scopes: $s) { id status changed } }"
Q_ENTITY = "query($n: String!) { entity(name: $n) { id name } }"
Q_RUNS = "query { consolidationRuns(first: 50) { id scopes changes { reason before after } } }"


def residue(settings: Settings, tenant: str, *needles: str) -> list[str]:
    """Every property (and list item) of every node and relationship of the tenant that holds
    one of the needles, case-insensitively: where it is, for the assertion's message. Scope
    lock nodes are left out: their names are handled apart from the purge."""
    rows = bolt(
        settings,
        """
        CALL () {
          MATCH (n) WHERE n.tenant = $tenant AND NOT n:ScopeLock
          RETURN 'node ' + apoc_free_labels AS what, properties(n) AS props
          UNION ALL
          MATCH (a)-[r]->(b) WHERE a.tenant = $tenant OR b.tenant = $tenant
          RETURN 'rel ' + type(r) AS what, properties(r) AS props
        }
        RETURN what, props""".replace(
            "apoc_free_labels", "reduce(s = '', l IN labels(n) | s + ':' + l)"
        ),
        {"tenant": tenant},
    )
    low = [n.lower() for n in needles]
    hits = []
    for r in rows:
        for k, v in r["props"].items():
            items = v if isinstance(v, list) else [v]
            if any(isinstance(x, str) and any(n in x.lower() for n in low) for x in items):
                hits.append(f"{r['what']}.{k} = {str(v)[:160]}")
    return hits


def _token(client: GraphMemoryClient, server: str, user: str) -> GraphMemoryClient:
    tok = client.execute(M_TOKEN, {"u": user, "t": [f"{CANARY}team"]})["mintSessionToken"]
    return GraphMemoryClient(server, tok["token"])


def _ids(client: GraphMemoryClient, *facts: dict[str, Any]) -> list[str]:
    out = client.assert_facts([{"cardinality": "MANY", **f} for f in facts])
    assert out["accepted"] == len(facts), out
    return [str(r["factId"]) for r in out["results"]]


def _forget(admin: GraphMemoryClient, user: str = USER) -> dict[str, Any]:
    r = admin.forget_contributor(user, wait_seconds=60)
    assert r["state"] == "DONE", r
    return r


def test_a_token_serving_the_user_leaves_no_procedure_nor_audit_words(
    server: str,
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    alice_ep = client.record_episode(**episode("alice", "s-alice", scope="tenant"))
    (alice_fact,) = _ids(client, fact("Lobby", "color", "red", [alice_ep], scope="tenant"))
    tok = _token(client, server, USER)
    try:
        ep = tok.record_episode(
            **episode(USER, f"{CANARY}-s1", summary=f"{CANARY} said something of theirs.")
        )
        # A fact their token wrote that alice also supports survives; one of alice's it
        # retracted, with their reason, stays retracted.
        (shared_fact,) = _ids(tok, fact("Lobby", "floor", "stone", [ep], scope="tenant"))
        _ids(client, fact("Lobby", "floor", "stone", [alice_ep], scope="tenant"))
        tok.retract_fact(alice_fact, f"{CANARY} retract reason")
        # A denied request: its reason names the token's scopes (the user id among them).
        with pytest.raises(GraphMemoryClientError):
            tok.facts([f"user:{CANARY}other"])
        own = tok.upsert_procedure(
            f"{CANARY}proc", "agent", [f"{CANARY}step"], f"user:{USER}", f"{CANARY} desc"
        )
        shared = tok.upsert_procedure(
            f"{CANARY}tenantproc", "agent", [f"{CANARY}tool"], "tenant", f"{CANARY} how"
        )
        tok.record_procedure_outcome(shared["procedure"]["id"], True, ep)
    finally:
        tok.close()
    assert own["procedure"]["id"] and shared["procedure"]["id"]
    # Someone else's procedure stays.
    other = client.upsert_procedure("reset_password", "agent", ["open the form"], "tenant")
    client.record_procedure_outcome(other["procedure"]["id"], True, alice_ep)

    _forget(admin)

    assert admin.procedures(f"{CANARY}proc", [f"user:{USER}"], include_candidates=True) == []
    assert admin.procedures(f"{CANARY}tenantproc", ["tenant"], include_candidates=True) == []
    kept = admin.procedures("reset_password", ["tenant"], include_candidates=True)
    assert [p["id"] for p in kept] == [other["procedure"]["id"]]
    assert client.fact(shared_fact) is not None
    events = [e["node"] for e in analyst.audit_log(first=200)["edges"]]
    assert any(e["actor"].endswith(" for [forgotten]") for e in events)
    assert CANARY not in json.dumps(events).lower()
    assert residue(settings, tenant, CANARY) == []


def test_entities_a_consolidation_merged_go_with_the_users_facts(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    scope = f"user:{USER}"
    ep = client.record_episode(**episode(USER, "s-q1", scope=scope))
    out = client.assert_facts(
        [
            fact(USER, "works_at", "Quokkazed Corp", [ep], scope=scope, objectIsEntity=True),
            fact("Quokkazed Corp", "located_in", "Berlin", [ep], scope=scope, cardinality="MANY"),
            fact("Quokkazed Corp.", "ceo", "Ann Lee", [ep], scope=scope, cardinality="ONE"),
        ]
    )
    assert out["accepted"] == 3, [r["error"] for r in out["results"]]
    run = admin.execute(M_CONSOLIDATE, {"s": [scope]})["runConsolidation"]
    assert run["status"] == "APPLIED", run
    merged = bolt(
        settings,
        "MATCH (:Entity {tenant: $t})-[m:MERGED_INTO]->(:Entity) RETURN count(m) AS n",
        {"t": tenant},
    )
    assert merged[0]["n"] >= 1  # the probe's situation: a merge edge exists

    # Mid-purge: a batch has deleted their facts; the names the merge keeps wait for the
    # purge's end, and none of them is answerable meanwhile.
    job = held(settings, tenant, USER)
    ran = run_purge(settings, tenant, job, batch=100, max_batches=1, owner=STALLED)
    assert ran is not None and ran.state == "running"
    assert bolt(settings, "MATCH (f:Fact {tenant: $t}) RETURN f.id", {"t": tenant}) == []
    for name in ("Quokkazed Corp", "Quokkazed Corp.", "quokkazed corp."):
        assert analyst.execute(Q_ENTITY, {"n": name})["entity"] is None, name
    # Nor a merge proposal naming them (the user's id and the company, one word apart).
    proposals = admin.execute(
        "query($s: [String!]!) { entityMergeProposals(scopes: $s) { nameA nameB } }",
        {"s": [scope]},
    )["entityMergeProposals"]
    assert CANARY not in json.dumps(proposals).lower(), proposals
    release(settings, job)
    _forget(admin)

    for name in (USER, "Quokkazed Corp", "Quokkazed Corp.", "quokkazed corp."):
        assert analyst.execute(Q_ENTITY, {"n": name})["entity"] is None, name
    runs = analyst.execute(Q_RUNS)["consolidationRuns"]
    assert CANARY not in json.dumps(runs).lower()
    assert residue(settings, tenant, CANARY) == []


def test_outcome_reports_of_the_forgotten_are_recounted_off_surviving_facts(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    alice_ep = client.record_episode(**episode("alice", "s-a"))
    out = admin.assert_facts(
        [fact("Parking Garage", "opens_at", "7am", [alice_ep], scope="tenant", cardinality="ONE")]
    )
    assert out["accepted"] == 1, out
    fid = out["results"][0]["factId"]
    mine = [client.record_episode(**episode(USER, f"s-w{i}")) for i in range(2)]
    for ep in mine:
        client.execute(M_OUTCOME, {"m": [fid], "e": ep})
    # Someone else's report stays counted.
    client.execute(M_OUTCOME, {"m": [fid], "e": alice_ep})

    def counts() -> dict[str, Any]:
        rows = bolt(
            settings,
            "MATCH (f:Fact {id: $id}) RETURN f.harmful_count AS harmful,"
            " f.helpful_count AS helpful, f.last_outcome AS last",
            {"id": fid},
        )
        return dict(rows[0])

    assert counts()["harmful"] == 2  # their two episodes weigh as one contributor
    _forget(admin)
    assert counts() == {"harmful": 1, "helpful": 0, "last": "harmful"}
    assert residue(settings, tenant, CANARY) == []
    # The surviving fact's trail keeps who/when of their reports, not which episode judged it.
    trail = bolt(
        settings,
        "MATCH (a:AuditEvent {tenant: $t, target_id: $id, action: 'report_outcome'})"
        " RETURN a.reason AS reason, a.after AS after",
        {"t": tenant, "id": fid},
    )
    assert len(trail) == 3
    assert not any(ep in str(trail) for ep in mine)
    assert sum(alice_ep in str(r["reason"]) for r in trail) == 1


def test_the_finished_job_keeps_no_predicate_of_theirs(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # An admin defined `badge_code`; only their facts used it. The registration is the
    # admin's, not theirs: it stays, and others go on writing with it.
    admin.execute(
        'mutation { definePredicates(predicates: [{name: "badge_code", cardinality: ONE}])'
        " { name } }"
    )
    ep = client.record_episode(**episode(USER, "s-p"))
    out = client.assert_facts(
        [
            fact(USER, f"{CANARY}_newpred", "something", [ep], cardinality="MANY"),
            fact(USER, "badge_code", "B-17", [ep]),
        ]
    )
    assert out["accepted"] == 2, out
    _forget(admin)
    names = {p["name"] for p in client.execute("{ predicates { name } }")["predicates"]}
    assert "badge_code" in names and f"{CANARY}_newpred" not in names
    alice = client.record_episode(**episode("alice", "s-al"))
    assert client.assert_facts([fact("alice", "badge_code", "A-1", [alice])])["accepted"] == 1
    jobs = bolt(
        settings,
        "MATCH (j:ForgetJob {tenant: $t}) RETURN j.predicates AS p, j.state AS s",
        {"t": tenant},
    )
    assert [(j["s"], j["p"] or []) for j in jobs] == [("done", [])]
    assert residue(settings, tenant, CANARY) == []


def test_a_compaction_digest_quoting_their_episodes_leaves_no_history(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    scope, old = "team:support", datetime.now(UTC) - timedelta(days=45)
    texts = [
        (USER, "Quokkazed asked for a refund of a damaged blender; refund approved to card."),
        (USER, "Quokkazed wanted a refund for a broken blender that arrived damaged; refunded."),
        ("alice", "Customer wanted their money back for a damaged blender; card refund issued."),
    ]
    for user, text in texts:
        client.record_episode(
            **episode(user, scope=scope, summary=text, startedAt=old, endedAt=old)
        )
    run = admin.execute(M_RUN, {"s": [scope], "steps": ["COMPACTION"], "dry": False})
    assert CANARY in json.dumps(run).lower()  # the digest quotes them

    # From the forget's commit on, while the purge is still to run, the run's diff shows the
    # digest's change without the words quoting them (as the finished purge leaves it).
    job = held(settings, tenant, USER)
    runs = analyst.execute(Q_RUNS)["consolidationRuns"]
    assert runs and CANARY not in json.dumps(runs).lower()
    assert len(runs[0]["changes"]) == len(run["runConsolidation"]["changes"])
    release(settings, job)
    _forget(admin)

    runs = analyst.execute(Q_RUNS)["consolidationRuns"]
    assert runs and CANARY not in json.dumps(runs).lower()
    assert residue(settings, tenant, CANARY) == []


@pytest.fixture(scope="module")
def llm(settings: Settings, fake: FakeLLM) -> Settings:
    return llm_settings(settings, fake.url, ingest_worker=False)


@pytest.fixture(scope="module")
def ingest_url(llm: Settings) -> Iterator[str]:
    yield from serve(llm)


M_CLOSE = "mutation($id: ID!, $r: String) { closeTodo(id: $id, reason: $r) { status } }"


@pytest.mark.parametrize("via", ["token", "key"])
def test_an_ingested_session_of_theirs_leaves_no_memo_procedure_or_trail(
    via: str,
    ingest_url: str,
    settings: Settings,
    tenant: str,
    fake: FakeLLM,
    llm: Settings,
    embedder: Embedder,
) -> None:
    agent = GraphMemoryClient(ingest_url, _create_key(settings, tenant, "agent"))
    admin = GraphMemoryClient(ingest_url, _create_key(settings, tenant, "admin"))
    # Through a token serving them, or an agent key naming them (the procedure learned from
    # the practice of their session is then the key's writing, of their tool calls).
    tok = _token(agent, ingest_url, USER) if via == "token" else agent
    try:
        s = session(
            user=USER,
            turns=[
                ("user", "Quokkazed here: please plan my trip and renew my passport."),
                ("assistant", "Booking it and filing the renewal."),
                ("user", "Thanks, that worked."),
            ],
        )
        s["turns"][1]["toolCalls"] = [
            {"name": f"{CANARY}_book", "arguments": f'{{"who": "{CANARY}"}}', "ok": True},
        ]
        fake.script(
            s["sessionId"],
            extraction(
                summary=f"{CANARY} wants a trip planned and a passport renewed.",
                events=[{"text": f"Trip of {CANARY}", "turns": [0]}],
                todos=[{"text": f"Renew the passport of {CANARY}", "turns": [0]}],
                intent=f"{CANARY}_travel",
            ),
        )
        tok.execute(INGEST, {"s": s, "o": None})
        drain(llm, embedder, tenants=[tenant])
        memos = bolt(
            settings,
            "MATCH (m:Memo {tenant: $t}) RETURN m.id AS id, m.kind AS kind",
            {"t": tenant},
        )
        (todo,) = [m["id"] for m in memos if m["kind"] == "todo"]
        tok.execute(M_CLOSE, {"id": todo, "r": f"{CANARY} closed it"})
        procs = bolt(settings, "MATCH (p:Procedure {tenant: $t}) RETURN p.id AS id", {"t": tenant})
        # The practice of their session made one through the key; a token's sessions do not
        # teach the tenant's procedures.
        assert bool(procs) == (via == "key"), procs

        _forget(admin)

        assert residue(settings, tenant, CANARY) == []
    finally:
        for c in (tok, agent, admin):
            c.close()


def test_the_users_own_scope_lock_goes_and_is_made_again_when_the_id_writes_again(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    """The lock of scope user:<id> is named by the id: it goes with the purge, and the same
    id writing again (a new contributor) makes a new one."""
    mine = f"user:{USER}"
    ep = client.record_episode(**episode(USER, "s1", scope=mine))
    _ids(client, fact(USER, "likes", "tea", [ep], scope=mine))
    _forget(admin)
    q = "MATCH (l:ScopeLock {tenant: $t}) RETURN l.scope AS s, l.caption AS c"
    left = bolt(settings, q, {"t": tenant})
    assert not [r for r in left if USER in str(r["s"]) + str(r["c"])], left
    again = client.record_episode(**episode(USER, "s2", scope=mine))
    assert _ids(client, fact(USER, "likes", "coffee", [again], scope=mine))
    assert mine in {r["s"] for r in bolt(settings, q, {"t": tenant})}
