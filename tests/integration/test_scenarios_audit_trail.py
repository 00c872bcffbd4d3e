"""Held-out-style scenarios for an analyst auditing "who wrote what, when, and why".

Driven only through GraphQL text. Every change (record, create, corroborate, supersede,
promote, approve, reject, retract, expire, evict, demote, forget) must leave exactly the audit
events it should, attributed to the right actor, stamped with the same instant the change shows
on the fact itself, with a `before` snapshot and a confidence delta that matches what a reader
observes. The log filters by actor / target / action / `[from, to)` (schema.graphql: `from`
inclusive, `to` exclusive), pages with an opaque cursor without gaps or duplicates, is closed to
agents and to other tenants, and tier conflicts are counted as alerts per window.

The one exception to "API only" is `elapse_ttl` (the passage of time, as in test_expiry.py).
"""

from __future__ import annotations

import json
import threading
import uuid
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings
from tests.integration.conftest import ClientFactory, elapse_ttl

C = GraphMemoryClient


def _agent(server: str, settings: Settings, tenant: str, name: str) -> GraphMemoryClient:
    """A second agent key of the tenant, under its own name (its own actor)."""
    import asyncio

    from graph_memory.db import Database
    from graph_memory.repositories.apikeys import ApiKeyRepository
    from graph_memory.services.access.keys import AuthService

    async def create() -> str:
        db = Database.connect(settings.neo4j())
        try:
            return (await AuthService(ApiKeyRepository(db)).create_key(tenant, "agent", name))[1]
        finally:
            await db.close()

    return GraphMemoryClient(server, asyncio.run(create()))


US = timedelta(microseconds=1)
SCOPE = ["user:alice"]
_EV = "id at actor actorType action targetType targetId before after confidenceDelta reason"
_EV += " redacted"
Q_LOG = f"""query($f: AuditFilterInput, $first: Int!, $after: String) {{
  auditLog(filter: $f, first: $first, after: $after) {{
    edges {{ cursor node {{ {_EV} }} }} pageInfo {{ hasNextPage endCursor }} }} }}"""
Q_ALERTS = f"""query($from: DateTime, $to: DateTime, $first: Int!) {{
  alerts(from: $from, to: $to, first: $first) {{
    total counts {{ action actor count firstAt lastAt }} events {{ {_EV} }} }} }}"""
M_RECORD = """mutation($eps: [EpisodeInput!]!) {
  recordEpisodes(episodes: $eps) { ok id error { code message } } }"""
M_ASSERT = """mutation($facts: [FactInput!]!, $key: String) {
  assertFacts(facts: $facts, idempotencyKey: $key) { accepted rejected
    results { index ok action factId version status confidence supersedes
              error { code message field } } } }"""
Q_FACT = """query($id: ID!) { fact(id: $id) { id object status confidence version recordedAt
  supersededAt supersededBy retractedAt retractedBy retractReason needsVerification } }"""
Q_EPISODE = "query($id: ID!) { episode(id: $id) { id recordedAt } }"
M_RETRACT = "mutation($id: ID!, $r: String) { retractFact(id: $id, reason: $r) { id status } }"
M_APPROVE = "mutation($id: ID!) { approveFact(id: $id) { id status } }"
M_REJECT = "mutation($id: ID!, $r: String) { rejectFact(id: $id, reason: $r) { id status } }"
M_EXPIRE = "mutation { expireFacts { expired dependentsFlagged at } }"
M_CONFIGURE = "mutation($p: TenantPolicyInput) { configureTenant(policy: $p) { version } }"
M_FORGET = """mutation($u: String!) { forgetContributor(userId: $u) { receipt episodesDeleted
  factVersionsDeleted factsDeletedByTier { tier count } auditEventsRedacted } }"""
M_UPSERT_PROC = """mutation($i: String!, $s: [String!]!) {
  upsertProcedure(intent: $i, role: "support", steps: $s, scope: "tenant") {
    procedure { id status } } }"""
M_OUTCOME = """mutation($id: ID!, $ok: Boolean!, $e: ID!) {
  recordProcedureOutcome(id: $id, success: $ok, episodeId: $e) { statusBefore status } }"""


# -- helpers --------------------------------------------------------------------------------------
def ts(s: str) -> datetime:
    return datetime.fromisoformat(s)


def code(exc: pytest.ExceptionInfo[GraphMemoryClientError]) -> str:
    return exc.value.code


def page(c: C, first: int = 100, after: str | None = None, **flt: Any) -> dict[str, Any]:
    f = {k.rstrip("_"): (v.isoformat() if isinstance(v, datetime) else v) for k, v in flt.items()}
    out: dict[str, Any] = c.execute(Q_LOG, {"f": f or None, "first": first, "after": after})
    return dict(out["auditLog"])


def log(c: C, **flt: Any) -> list[dict[str, Any]]:
    """Matching events, newest first (one page of 100 is plenty for one test's tenant)."""
    p = page(c, **flt)
    assert not p["pageInfo"]["hasNextPage"]
    return [e["node"] for e in p["edges"]]


def actions(c: C, **flt: Any) -> list[str]:
    return [e["action"] for e in log(c, **flt)]


def alerts(
    c: C, start: datetime | None = None, end: datetime | None = None, first: int = 100
) -> Any:
    v = {"from": start and start.isoformat(), "to": end and end.isoformat(), "first": first}
    return c.execute(Q_ALERTS, v)["alerts"]


def eps(c: C, *sessions: str, user: str = "alice", conf: float = 0.8, **kw: Any) -> list[str]:
    rows = [
        {
            "userId": user,
            "sessionId": s,
            "startedAt": "2026-01-01T00:00:00+00:00",
            "summary": f"{user} told the support agent about where they live and work now.",
            "outcome": "SUCCESS",
            "source": kw.get("source", "user"),
            "confidence": conf,
            "scope": kw.get("scope", f"user:{user}"),
        }
        for s in sessions
    ]
    out = c.execute(M_RECORD, {"eps": rows})["recordEpisodes"]
    assert all(r["ok"] for r in out), out
    return [r["id"] for r in out]


def item(
    s: str, p: str, o: str, cites: list[str], w: float | None = None, **kw: Any
) -> dict[str, Any]:
    return {
        "subject": s,
        "predicate": p,
        "object": o,
        "episodes": [{"episodeId": e, "weight": w} for e in cites],
        "source": kw.pop("source", "user"),
        **kw,
    }


def put(c: C, *items: dict[str, Any], key: str | None = None) -> list[dict[str, Any]]:
    return list(c.execute(M_ASSERT, {"facts": list(items), "key": key})["assertFacts"]["results"])


def one(c: C, it: dict[str, Any]) -> str:
    r = put(c, it)[0]
    assert r["ok"], r["error"]
    return str(r["factId"])


def get(c: C, fact_id: str) -> dict[str, Any]:
    return dict(c.execute(Q_FACT, {"id": fact_id})["fact"])


def js(s: str | None) -> Any:
    return json.loads(s) if s is not None else None


# -- every action leaves the right events ---------------------------------------------------------
def test_recording_episodes_leaves_one_record_event_each_stamped_at_recorded_at(
    client: C, analyst: C
) -> None:
    e1, e2 = eps(client, "s1", "s2")
    for e in (e1, e2):
        (ev,) = log(analyst, target=e)
        assert (ev["action"], ev["targetType"], ev["actor"], ev["actorType"]) == (
            "record",
            "episode",
            "agent:agent",
            "user",
        )
        assert ev["before"] is None and js(ev["after"])["session_id"] in ("s1", "s2")
        recorded = client.execute(Q_EPISODE, {"id": e})["episode"]["recordedAt"]
        assert ts(ev["at"]) == ts(recorded)


def test_created_fact_event_carries_the_fact_and_its_full_confidence(client: C, analyst: C) -> None:
    (e,) = eps(client, "s1")
    fid = one(client, item("alice", "lives_in", "Paris", [e], w=0.6))
    f = get(client, fid)
    (ev,) = log(analyst, target=fid)
    assert ev["action"] == "created" and ev["before"] is None
    assert ts(ev["at"]) == ts(f["recordedAt"])
    after = js(ev["after"])
    assert (after["object"], after["status"], after["tier"]) == ("Paris", "active", "user")
    assert ev["confidenceDelta"] == pytest.approx(f["confidence"]) == pytest.approx(0.6)


def test_corroboration_delta_equals_the_change_a_reader_observes(client: C, analyst: C) -> None:
    e1, e2, e3 = eps(client, "s1", "s2", "s3")
    fid = one(client, item("alice", "lives_in", "Paris", [e1], w=0.6))
    seen = [get(client, fid)["confidence"]]
    for e, w in ((e2, 0.5), (e3, 0.3)):
        assert put(client, item("alice", "lives_in", "Paris", [e], w=w))[0]["action"] == (
            "corroborated"
        )
        seen.append(get(client, fid)["confidence"])
    evs = log(analyst, target=fid)
    assert [e["action"] for e in evs] == ["corroborated", "corroborated", "created"]
    assert [e["confidenceDelta"] for e in reversed(evs[:2])] == pytest.approx(
        [seen[1] - seen[0], seen[2] - seen[1]]
    )
    assert ts(evs[0]["at"]) > ts(evs[1]["at"]) > ts(evs[2]["at"])


def test_two_corroborations_in_one_batch_do_not_double_count_the_delta(
    client: C, analyst: C
) -> None:
    e1, e2, e3 = eps(client, "s1", "s2", "s3")
    fid = one(client, item("alice", "lives_in", "Paris", [e1], w=0.6))
    res = put(
        client,
        item("alice", "lives_in", "Paris", [e2], w=0.5),
        item("alice", "lives_in", "Paris", [e3], w=0.5),
    )
    assert [r["action"] for r in res] == ["corroborated", "corroborated"]
    final = get(client, fid)["confidence"]  # 1 - 0.4*0.5*0.5 = 0.9
    deltas = [e["confidenceDelta"] for e in log(analyst, target=fid)]
    # The trail must add up to what the fact holds: 0.6 + 0.3, not 0.6 + 0.3 + 0.3.
    assert sum(deltas) == pytest.approx(final)


def test_created_and_corroborated_in_one_batch_deltas_sum_to_the_confidence(
    client: C, analyst: C
) -> None:
    e1, e2 = eps(client, "s1", "s2")
    res = put(
        client,
        item("alice", "lives_in", "Paris", [e1], w=0.6),
        item("alice", "lives_in", "Paris", [e2], w=0.6),
    )
    assert [r["action"] for r in res] == ["created", "corroborated"]
    fid = res[0]["factId"]
    final = get(client, fid)["confidence"]  # 0.84
    evs = {e["action"]: e["confidenceDelta"] for e in log(analyst, target=fid)}
    assert sum(evs.values()) == pytest.approx(final)
    assert evs["created"] == pytest.approx(0.6)


def test_supersession_names_the_old_version_at_the_instant_belief_switched(
    client: C, analyst: C
) -> None:
    e1, e2 = eps(client, "s1", "s2")
    old = one(client, item("alice", "lives_in", "Paris", [e1], w=0.6))
    r = put(client, item("alice", "lives_in", "Lyon", [e2], w=0.7))[0]
    assert (r["action"], r["supersedes"]) == ("superseded", old)
    (ev,) = log(analyst, target=r["factId"])
    assert ev["action"] == "superseded" and js(ev["before"])["id"] == old
    assert js(ev["after"])["object"] == "Lyon"
    assert ev["confidenceDelta"] == pytest.approx(0.7)
    assert (
        ts(ev["at"])
        == ts(get(client, old)["supersededAt"])
        == ts(get(client, r["factId"])["recordedAt"])
    )
    # The old version is still what its `before` points at: an analyst can open it.
    assert get(analyst, old)["object"] == "Paris"


def test_retraction_records_who_why_state_before_and_flags_dependents(
    client: C, analyst: C
) -> None:
    e1, e2 = eps(client, "s1", "s2")
    premise = one(client, item("alice", "works_at", "ACME", [e1], w=0.7))
    concl = one(
        client,
        item("alice", "commutes_to", "ACME tower", [e2], dependsOn=[premise], cardinality="ONE"),
    )
    client.execute(M_RETRACT, {"id": premise, "r": "she quit in March"})
    f = get(client, premise)
    evs = log(analyst, target=premise)
    assert [e["action"] for e in evs] == ["retract", "created"]
    ev = evs[0]
    assert (ev["actor"], ev["actorType"], ev["reason"]) == (
        "agent:agent",
        "user",
        "she quit in March",
    )
    assert js(ev["before"])["status"] == "active" and js(ev["before"])["object"] == "ACME"
    assert js(ev["after"])["status"] == "retracted"
    assert ev["confidenceDelta"] == pytest.approx(-0.7)
    assert ts(ev["at"]) == ts(f["retractedAt"]) and f["retractedBy"] == "agent:agent"
    flags = log(analyst, target=concl, action="flag_needs_verification")
    assert len(flags) == 1 and premise in flags[0]["reason"] and flags[0]["actor"] == "agent:agent"
    assert ts(flags[0]["at"]) == ts(ev["at"])


def test_promotion_by_a_third_session_is_one_promote_event(client: C, analyst: C) -> None:
    e1, e2, e3 = eps(client, "s1", "s2", "s3")
    inferred = {"source": "conversation"}
    fid = one(client, item("alice", "likes", "jazz", [e1], w=0.5, **inferred))
    assert get(client, fid)["status"] == "CANDIDATE"
    put(client, item("alice", "likes", "jazz", [e2], w=0.5, **inferred))
    assert get(client, fid)["status"] == "CANDIDATE"
    put(client, item("alice", "likes", "jazz", [e3], w=0.5, **inferred))
    assert get(client, fid)["status"] == "ACTIVE"
    # promote and the third corroboration share one instant (one transaction): order by time.
    trail = log(analyst, target=fid)
    assert sorted(e["action"] for e in trail[:2]) == ["corroborated", "promote"]
    assert trail[0]["at"] == trail[1]["at"]
    assert [e["action"] for e in trail[2:]] == ["corroborated", "created"]
    promote = log(analyst, target=fid, action="promote")[0]
    assert "3 sessions" in promote["reason"] and promote["actor"] == "agent:agent"


def test_promotion_inside_one_batch_is_still_one_promote_event(client: C, analyst: C) -> None:
    e1, e2, e3 = eps(client, "s1", "s2", "s3")
    res = put(
        client,
        *(item("alice", "likes", "jazz", [e], w=0.5, source="conversation") for e in (e1, e2, e3)),
    )
    assert [r["action"] for r in res] == ["created", "corroborated", "corroborated"]
    fid = res[0]["factId"]
    assert get(client, fid)["status"] == "ACTIVE"
    assert actions(analyst, target=fid, action="promote") == ["promote"]


def test_approve_and_reject_are_attributed_to_the_analyst(client: C, analyst: C) -> None:
    e1, e2 = eps(client, "s1", "s2")
    good = one(client, item("alice", "likes", "tea", [e1], source="conversation"))
    bad = one(client, item("alice", "likes", "durian", [e2], source="conversation"))
    analyst.execute(M_APPROVE, {"id": good})
    analyst.execute(M_REJECT, {"id": bad, "r": "misheard in the transcript"})
    appr, created = log(analyst, target=good)
    assert (appr["action"], appr["actor"], created["actor"]) == (
        "approve",
        "analyst:analyst",
        "agent:agent",
    )
    assert (js(appr["before"]), js(appr["after"])) == (
        {"status": "candidate"},
        {"status": "active"},
    )
    rej = log(analyst, target=bad)[0]
    assert (rej["action"], rej["actor"], rej["reason"]) == (
        "reject",
        "analyst:analyst",
        "misheard in the transcript",
    )
    assert (js(rej["before"]), js(rej["after"])) == (
        {"status": "candidate"},
        {"status": "rejected"},
    )
    assert {e["targetId"] for e in log(analyst, actor="analyst:analyst")} == {good, bad}


def test_expiry_sweep_is_audited_with_state_before_and_the_ttl_reason(
    client: C, admin: C, analyst: C, settings: Settings, tenant: str
) -> None:
    (e,) = eps(client, "s1")
    fid = one(client, item("alice", "visiting", "Rome", [e], ttlDays=2, cardinality="ONE"))
    elapse_ttl(settings, tenant, fid)
    swept = admin.execute(M_EXPIRE)["expireFacts"]
    assert swept["expired"] == 1
    ev = log(analyst, target=fid, action="expire")[0]
    # An admin asked for the sweep: the admin is who; the scheduled sweep would be system.
    assert (ev["actor"], ev["actorType"]) == ("admin:admin", "admin")
    assert js(ev["before"]) == {"status": "active"} and js(ev["after"])["status"] == "expired"
    assert "TTL of 2 days" in ev["reason"] and ts(ev["at"]) == ts(swept["at"])
    assert admin.execute(M_EXPIRE)["expireFacts"]["expired"] == 0
    assert actions(analyst, target=fid) == ["expire", "created"]  # a re-sweep adds nothing


def test_capacity_eviction_is_audited_as_the_system_never_silently(
    client: C, admin: C, analyst: C
) -> None:
    admin.execute(M_CONFIGURE, {"p": {"userCapacity": 2}})
    cfg = log(analyst, action="configure_tenant")[0]
    assert cfg["actorType"] == "admin" and js(cfg["after"]) == {"user_capacity": 2}
    e1, e2, e3 = eps(client, "s1", "s2", "s3")
    weak = one(client, item("alice", "likes", "opera", [e1], w=0.3))
    one(client, item("alice", "likes", "chess", [e2], w=0.9))
    one(client, item("alice", "likes", "hiking", [e3], w=0.9))
    (ev,) = log(analyst, actor="system")
    assert (ev["action"], ev["targetId"], ev["actor"]) == ("evict", weak, "system:capacity")
    assert js(ev["before"])["status"] == "active" and js(ev["after"]) == {"status": "retracted"}
    assert ev["confidenceDelta"] == pytest.approx(-0.3) and "capacity" in ev["reason"]
    f = get(client, weak)
    assert f["status"] == "RETRACTED" and ts(f["retractedAt"]) == ts(ev["at"])


def test_procedure_demotion_leaves_outcomes_then_one_demote(client: C, analyst: C) -> None:
    proc = client.execute(M_UPSERT_PROC, {"i": "refund", "s": ["check order", "refund it"]})
    pid = proc["upsertProcedure"]["procedure"]["id"]
    runs = eps(client, "p1", "p2", "p3", scope="tenant")
    for e in runs:
        client.execute(M_OUTCOME, {"id": pid, "ok": False, "e": e})
    trail = actions(analyst, target=pid)
    assert sorted(trail[:2]) == ["demote", "outcome"]  # the third failure and its demotion
    assert trail[2:] == ["outcome", "outcome", "create"]
    demote = log(analyst, target=pid, action="demote")[0]
    assert (js(demote["before"]), js(demote["after"])) == (
        {"status": "candidate"},
        {"status": "demoted"},
    )
    assert "3 failures" in demote["reason"] and demote["targetType"] == "procedure"


def test_procedure_versions_name_the_steps_they_replaced(client: C, analyst: C) -> None:
    old, new = ["check order", "refund it"], ["check order", "ask a lead", "refund it"]
    pid1 = client.execute(M_UPSERT_PROC, {"i": "refund", "s": old})["upsertProcedure"]
    pid2 = client.execute(M_UPSERT_PROC, {"i": "refund", "s": new})["upsertProcedure"]
    client.execute(M_UPSERT_PROC, {"i": "refund", "s": new})  # unchanged: nothing to audit
    evs = log(analyst, actor="agent:agent", action="new_version")
    assert [e["targetId"] for e in evs] == [pid2["procedure"]["id"]]
    assert js(evs[0]["before"]) == {"id": pid1["procedure"]["id"], "version": 1, "steps": old}
    assert js(evs[0]["after"])["steps"] == new
    assert sorted(actions(analyst)) == ["create", "new_version"]


def test_registering_a_predicate_cardinality_is_audited(admin: C, analyst: C) -> None:
    define = "mutation($p: [PredicateInput!]!) { definePredicates(predicates: $p) { name } }"
    admin.execute(define, {"p": [{"name": "owns_pet", "cardinality": "MANY"}]})
    # Cardinality is final and decides whether later writes supersede: who decided it?
    mine = [e for e in log(analyst, actor="admin:admin") if "owns_pet" in json.dumps(e)]
    assert len(mine) == 1


def test_forget_contributor_leaves_one_content_free_event_with_counts(
    client: C, admin: C, analyst: C
) -> None:
    who = f"zed{uuid.uuid4().hex[:6]}"
    e1, e2 = eps(client, "z1", "z2", user=who)
    one(client, item(who, "lives_in", "Oslo", [e1], text=f"{who} moved to Oslo last winter"))
    one(client, item(who, "likes", "skiing", [e2]))
    res = admin.execute(M_FORGET, {"u": who})["forgetContributor"]
    (ev,) = log(analyst, action="forget_contributor")
    assert (ev["targetId"], ev["targetType"], ev["actor"]) == (
        res["receipt"],
        "user",
        "admin:admin",
    )
    counts = js(ev["after"])
    assert counts["episodes_deleted"] == res["episodesDeleted"] == 2
    assert counts["fact_versions_deleted"] == res["factVersionsDeleted"] == 2
    assert sum(counts["facts_deleted"].values()) == 2
    # Nothing left in the whole log names the forgotten person or repeats what they said.
    for e in log(analyst):
        blob = json.dumps(e)
        assert who not in blob.lower() and "oslo" not in blob.lower(), e
    assert all(e["redacted"] for e in log(analyst) if e["action"] in ("record", "created"))


def test_forget_recounts_shared_facts_and_the_forget_event_carries_the_delta(
    client: C, admin: C, analyst: C
) -> None:
    (ea,) = eps(client, "a1", scope="team:ops")
    (ez,) = eps(client, "z1", user=f"zed{uuid.uuid4().hex[:6]}", scope="team:ops")
    who = client.execute("query($id: ID!) { episode(id: $id) { userId } }", {"id": ez})
    fid = one(client, item("acme", "uses", "Jira", [ea], w=0.6))
    put(client, item("acme", "uses", "Jira", [ez], w=0.5))
    before = get(client, fid)["confidence"]  # 0.8
    admin.execute(M_FORGET, {"u": who["episode"]["userId"]})
    after = get(client, fid)["confidence"]  # 0.6
    (rc,) = log(analyst, target=fid, action="recompute_confidence")
    assert rc["confidenceDelta"] == pytest.approx(after - before) == pytest.approx(-0.2)
    (fe,) = log(analyst, action="forget_contributor")
    # The purge writes its changes batch by batch; the forget event, when it is done, last.
    assert rc["actor"] == "admin:admin" and ts(rc["at"]) <= ts(fe["at"])
    assert fe["confidenceDelta"] == pytest.approx(after - before)


def test_decisions_on_something_already_decided_are_refused_and_not_logged_twice(
    client: C, analyst: C
) -> None:
    e1, e2 = eps(client, "s1", "s2")
    cand = one(client, item("alice", "likes", "tea", [e1], source="conversation"))
    fid = one(client, item("alice", "lives_in", "Paris", [e2]))
    analyst.execute(M_APPROVE, {"id": cand})
    client.execute(M_RETRACT, {"id": fid, "r": "wrong"})
    # Analysts review; retracting is the agent's (an analyst's attempt is FORBIDDEN by role).
    for who, q, v in (
        (analyst, M_APPROVE, {"id": cand}),
        (analyst, M_REJECT, {"id": cand}),
        (client, M_RETRACT, {"id": fid}),
    ):
        with pytest.raises(GraphMemoryClientError) as err:
            who.execute(q, v)
        assert code(err) == "CONFLICT", q
    assert actions(analyst, target=cand) == ["approve", "created"]
    assert actions(analyst, target=fid) == ["retract", "created"]


def test_refused_items_leave_no_write_events_but_their_siblings_do(client: C, analyst: C) -> None:
    (e,) = eps(client, "s1")
    res = put(
        client,
        item("alice", "lives_in", "Paris", [e]),
        item("alice", "likes", "x", [e], text="ok"),  # service phrase: refused
        item("alice", "likes", "tea", [e], source="gossip"),  # unknown source: refused
    )
    assert [r["ok"] for r in res] == [True, False, False]
    assert sorted(actions(analyst)) == ["created", "record"]


# -- filters and paging ---------------------------------------------------------------------------
def test_time_window_from_is_inclusive_and_to_is_exclusive(client: C, analyst: C) -> None:
    for s in ("s1", "s2", "s3"):
        eps(client, s)
    t3, t2, t1 = (ts(e["at"]) for e in log(analyst))
    assert t1 < t2 < t3

    def n(**w: Any) -> int:
        return len(log(analyst, **w))

    assert (n(from_=t2), n(to=t2), n(from_=t1, to=t3), n(from_=t2, to=t2 + US)) == (2, 1, 2, 1)
    assert (n(from_=t3 + US), n(to=t1), n(from_=t1 - US, to=t3 + US)) == (0, 0, 3)
    # The same instants written at another offset are the same bounds.
    paris = timezone(timedelta(hours=2))
    assert (n(from_=t2.astimezone(paris)), n(to=t2.astimezone(paris))) == (2, 1)


def test_filters_combine_as_and(client: C, admin: C, analyst: C) -> None:
    e1, e2 = eps(client, "s1", "s2")
    paris = one(client, item("alice", "lives_in", "Paris", [e1]))
    put(client, item("alice", "lives_in", "Paris", [e2]))
    admin.execute(M_RETRACT, {"id": paris, "r": "test data"})
    assert actions(analyst, target=paris) == ["retract", "corroborated", "created"]
    assert actions(analyst, target=paris, actor="agent:agent") == ["corroborated", "created"]
    assert actions(analyst, target=paris, actor="admin") == ["retract"]  # by actor type
    assert actions(analyst, actor="agent:agent", action="record") == ["record", "record"]
    assert actions(analyst, actor="admin:admin", action="created") == []
    assert actions(analyst, action="no_such_action") == []
    start = ts(log(analyst, action="corroborated")[0]["at"])
    assert actions(analyst, from_=start, actor="user") == ["corroborated"]


def test_bad_windows_pages_and_cursors_are_refused_not_guessed(analyst: C) -> None:
    now = datetime.fromisoformat("2026-03-01T00:00:00+00:00")
    bad: list[dict[str, Any]] = [
        {"f": {"from": now.isoformat(), "to": (now - US).isoformat()}, "first": 10},
        {"f": {"from": "2026-03-01T00:00:00"}, "first": 10},  # naive: which zone?
        {"f": None, "first": 501},
        {"f": None, "first": -1},
        {"f": None, "first": 10, "after": "not-a-cursor"},
    ]
    for v in bad:
        with pytest.raises(GraphMemoryClientError) as err:
            analyst.execute(Q_LOG, v)
        assert code(err) == "VALIDATION", v
    for a in ({"from": now.isoformat(), "to": (now - US).isoformat(), "first": 5}, {"first": 0}):
        with pytest.raises(GraphMemoryClientError) as err:
            analyst.execute(Q_ALERTS, a)
        assert code(err) == "VALIDATION", a


def test_paging_one_by_one_through_a_single_instant_has_no_gaps(client: C, analyst: C) -> None:
    ids = eps(client, *(f"s{i}" for i in range(6)))  # six events sharing one `at`
    assert len({e["at"] for e in log(analyst)}) == 1
    seen: list[str] = []
    after = None
    while True:
        p = page(analyst, first=1, after=after)
        seen += [e["node"]["targetId"] for e in p["edges"]]
        if not p["pageInfo"]["hasNextPage"]:
            break
        after = p["pageInfo"]["endCursor"]
    assert seen == [e["targetId"] for e in log(analyst)] and sorted(seen) == sorted(ids)


def test_paging_is_stable_while_new_events_arrive(client: C, analyst: C) -> None:
    for i in range(4):
        eps(client, f"a{i}", f"b{i}")  # 8 events in 4 instants
    before = [e["id"] for e in log(analyst)]
    seen: list[str] = []
    p = page(analyst, first=3)
    while True:
        seen += [e["node"]["id"] for e in p["edges"]]
        eps(client, f"late{len(seen)}")  # newer than anything already paged
        if not p["pageInfo"]["hasNextPage"]:
            break
        p = page(analyst, first=3, after=p["pageInfo"]["endCursor"])
    assert seen == before  # no duplicates, no gaps, same order; late arrivals wait on top
    assert len(log(analyst, action="record")) == 8 + 3  # one late arrival per page of 3


def test_paging_a_filtered_log_keeps_the_filter(client: C, analyst: C) -> None:
    (e,) = eps(client, "s1")
    for obj in ("tea", "jazz", "chess", "rain", "maps"):
        one(client, item("alice", "likes", obj, [e]))
    want = [x["targetId"] for x in log(analyst, action="created")]
    p1 = page(analyst, first=3, action="created")
    p2 = page(analyst, first=3, action="created", after=p1["pageInfo"]["endCursor"])
    got = [x["node"]["targetId"] for x in p1["edges"] + p2["edges"]]
    assert got == want and len(got) == 5 and not p2["pageInfo"]["hasNextPage"]


# -- who may read, and whose events ---------------------------------------------------------------
def test_agents_cannot_read_the_log_or_alerts_analysts_and_admins_can(
    client: C, admin: C, analyst: C
) -> None:
    eps(client, "s1")
    for q, v in ((Q_LOG, {"first": 10}), (Q_ALERTS, {"first": 10})):
        with pytest.raises(GraphMemoryClientError) as err:
            client.execute(q, v)
        assert code(err) == "FORBIDDEN"
    # Both denials are on record (access_denied), beside the episode.
    assert actions(analyst) == actions(admin) == ["access_denied", "access_denied", "record"]
    denied = {e["targetId"] for e in log(analyst, action="access_denied")}
    assert denied == {"auditLog", "alerts"}
    assert alerts(analyst)["total"] == alerts(admin)["total"] == 0


def test_tenants_never_see_each_others_events_or_alerts(
    client: C, analyst: C, admin: C, make_client: ClientFactory, tenant: str
) -> None:
    (e,) = eps(client, "s1")
    mine = one(client, item("alice", "lives_in", "Paris", [e]))
    (ops,) = eps(admin, "ops", source="admin")
    policy: dict[str, Any] = {"source": "policy", "scope": "tenant", "cardinality": "ONE"}
    one(admin, item("acme", "policy.refund_days", "30", [ops], **policy))
    put(client, item("acme", "policy.refund_days", "365", [e], scope="tenant"))  # conflict
    other_t = f"{tenant}-b"
    other_agent, other = make_client(other_t, "agent"), make_client(other_t, "analyst")
    eps(other_agent, "s1")
    assert log(other, target=mine) == [] and log(other, target=e) == []
    assert actions(other) == ["record"]
    assert alerts(other)["total"] == 0 and alerts(analyst)["total"] == 1
    assert mine not in {x["targetId"] for x in log(other, actor="agent:agent")}


# -- tier conflicts and alerts --------------------------------------------------------------------
def test_override_of_a_higher_tier_is_rejected_audited_and_alerted(
    client: C, admin: C, analyst: C
) -> None:
    (ops,) = eps(admin, "hr", source="admin")
    hr = one(admin, item("alice", "works_at", "Globex", [ops], source="admin"))
    (e,) = eps(client, "s1")
    res = put(
        client,
        item("alice", "works_at", "ACME", [e]),
        item("alice", "likes", "tea", [e]),
    )
    assert res[0]["error"]["code"] == "TIER_CONFLICT" and res[1]["ok"]
    assert get(client, hr)["status"] == "ACTIVE"
    (ev,) = log(analyst, action="tier_conflict")
    assert (ev["targetId"], ev["actor"], ev["actorType"]) == (hr, "agent:agent", "user")
    a = alerts(analyst)
    assert a["total"] == 1 and [x["id"] for x in a["events"]] == [ev["id"]]
    assert [(c["action"], c["actor"], c["count"]) for c in a["counts"]] == [
        ("tier_conflict", "agent:agent", 1)
    ]


def test_refused_retraction_of_a_higher_tier_fact_stays_on_record(
    client: C, admin: C, analyst: C
) -> None:
    (ops,) = eps(admin, "hr", source="admin")
    hr = one(admin, item("alice", "works_at", "Globex", [ops], source="admin"))
    with pytest.raises(GraphMemoryClientError) as err:
        client.execute(M_RETRACT, {"id": hr, "r": "I think this is wrong"})
    assert code(err) == "TIER_CONFLICT"
    assert get(client, hr)["status"] == "ACTIVE"
    (ev,) = log(analyst, target=hr, action="tier_conflict")
    assert ev["actor"] == "agent:agent"
    assert alerts(analyst)["counts"][0]["actor"] == "agent:agent"


def test_alert_counts_follow_the_window_and_the_actor(
    client: C, admin: C, analyst: C, server: str, settings: Settings, tenant: str
) -> None:
    (ops,) = eps(admin, "hr", source="admin")
    hr = one(admin, item("alice", "works_at", "Globex", [ops], source="admin"))
    (e,) = eps(client, "s1")
    put(client, item("acme", "policy.refund_days", "365", [e], scope="tenant"))  # protected
    put(client, item("alice", "works_at", "ACME", [e]))  # override
    second = _agent(server, settings, tenant, "second")  # another actor of the tenant
    with second, pytest.raises(GraphMemoryClientError):
        second.execute(M_RETRACT, {"id": hr})  # refused retraction
    evs = alerts(analyst)["events"]
    t3, t2, t1 = (ts(x["at"]) for x in evs)
    assert t1 < t2 < t3 and len(log(analyst, action="tier_conflict")) == 3

    def counts(start: datetime | None = None, end: datetime | None = None) -> dict[str, int]:
        a = alerts(analyst, start, end)
        by = {c["actor"]: c["count"] for c in a["counts"]}
        assert a["total"] == sum(by.values()) == len(a["events"])
        return by

    assert counts() == {"agent:agent": 2, "agent:second": 1}
    assert counts(t2) == {"agent:agent": 1, "agent:second": 1}
    assert counts(None, t2) == {"agent:agent": 1}
    assert counts(t1, t3) == {"agent:agent": 2}
    assert counts(t3 + US) == {}
    agent = next(c for c in alerts(analyst)["counts"] if c["actor"] == "agent:agent")
    assert (ts(agent["firstAt"]), ts(agent["lastAt"])) == (t1, t2)
    latest = alerts(analyst, first=1)
    assert latest["total"] == 3 and [ts(x["at"]) for x in latest["events"]] == [t3]


# -- idempotent replays ---------------------------------------------------------------------------
def test_replaying_a_keyed_batch_writes_no_new_audit_events(client: C, analyst: C) -> None:
    e1, e2 = eps(client, "s1", "s2")
    batch = [item("alice", "lives_in", "Paris", [e1]), item("alice", "likes", "tea", [e2])]
    first = put(client, *batch, key="k-1")
    trail = log(analyst)
    assert put(client, *batch, key="k-1") == first
    assert log(analyst) == trail
    with pytest.raises(GraphMemoryClientError) as err:
        put(client, item("alice", "lives_in", "Rome", [e1]), key="k-1")
    assert code(err) == "CONFLICT"
    assert log(analyst) == trail


def test_replaying_a_batch_that_tripped_a_tier_conflict_raises_no_second_alert(
    client: C, admin: C, analyst: C
) -> None:
    (ops,) = eps(admin, "hr", source="admin")
    one(admin, item("alice", "works_at", "Globex", [ops], source="admin"))
    (e,) = eps(client, "s1")
    batch = [item("alice", "works_at", "ACME", [e]), item("alice", "likes", "tea", [e])]
    first = put(client, *batch, key="k-alert")
    assert first[0]["error"]["code"] == "TIER_CONFLICT"
    assert put(client, *batch, key="k-alert") == first
    assert alerts(analyst)["total"] == 1
    assert len(log(analyst, action="created")) == 2  # Globex and tea, once each
    put(client, *batch)  # an unkeyed retry is a new attempt: a second refusal, on record
    assert alerts(analyst)["total"] == 2


def test_a_replay_never_tells_a_caller_more_than_its_role_may_write(client: C, admin: C) -> None:
    # An admin's admin-tier batch under a key; the agent sending the same batch under the
    # same key is refused the admin-tier item as on a first call, and is told the rest.
    (ops,) = eps(admin, "hr", source="admin")
    batch = [
        item("acme", "motto", "ship it", [ops], source="admin", cardinality="ONE"),
        item("acme", "likes", "tea", [ops], cardinality="MANY"),
    ]
    first = put(admin, *batch, key="k-admin")
    assert [r["ok"] for r in first] == [True, True], first
    again = put(client, *batch, key="k-admin")
    assert [r["error"] and r["error"]["code"] for r in again] == ["FORBIDDEN", None]
    assert again[1] == first[1]


def test_concurrent_replays_of_one_key_audit_the_write_once(client: C, analyst: C) -> None:
    (e,) = eps(client, "s1")
    batch = [item("alice", "lives_in", "Paris", [e]), item("alice", "likes", "tea", [e])]
    out: list[Any] = []

    def go() -> None:
        try:
            out.append(put(client, *batch, key="race"))
        except GraphMemoryClientError as exc:  # pragma: no cover - recorded for the assert
            out.append(exc)

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(o == out[0] for o in out), out
    assert sorted(actions(analyst, action="created")) == ["created", "created"]
    assert len(log(analyst)) == 3  # one record + two created
