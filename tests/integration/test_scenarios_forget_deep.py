"""Held-out-style scenarios, second round on forgetting a contributor, driven only through
GraphQL: a forgotten version in the middle of a bitemporal chain others wrote, corroborations
and promotions re-judged on the evidence left, premises and procedures, every read filter at
every asOf, the forget's own audit event, repeats, unknown users, tenants, roles, idempotent
replays and per-user capacity. Wrong memory is worse than no memory: after forgetting, no read
may serve what only the forgotten user said, nor point at it."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.integration.conftest import ClientFactory
from tests.integration.scenario_trust_helpers import (
    M_APPROVE,
    M_CONFIGURE,
    M_RETRACT,
    Q_QUEUE,
    Q_RECALL,
    C,
    audit,
    ep,
    err_code,
    fct,
    get,
    hist,
    now_utc,
    one,
    put,
    served,
)

SECRET = "Quetzalmoon"
TEAM = "Core team"
SC = ["team:core", "user:alice", "user:carol", "tenant"]
Y = {y: datetime(y, 1, 1, tzinfo=UTC) for y in range(2019, 2027)}

FORGET = """mutation($u: String!) { forgetContributor(userId: $u) { receipt episodesDeleted
  factVersionsDeleted factsDeletedByTier { tier count } factsRecomputed factsReturnedToReview
  factsReinstated dependentsFlagged proceduresDemoted entitiesDeleted auditEventsRedacted
  userDeleted } }"""
Q_AT = """query($f: FactFilterInput!, $asOf: DateTime, $validAt: DateTime) {
  facts(filter: $f, asOf: $asOf, validAt: $validAt, first: 100) { nodes { id object } } }"""
Q_SUP = """query($id: ID!) { fact(id: $id) { id status supersededBy supersededAt
  needsVerification verificationReason text confidence supersedes { id }
  dependsOn { id } dependents { id } provenance { userId sessionId } } }"""
Q_CTX = """query($q: String!, $sc: [String!]!, $asOf: DateTime) {
  context(query: $q, tokenBudget: 4000, scopes: $sc, k: 50, asOf: $asOf, minScore: 0,
    minConfidence: 0, minRelevance: 0, relativeRelevance: 0) {
    text included { id kind } dropped { id kind } } }"""
Q_REC_K = """query($q: String!, $sc: [String!]!, $kinds: [MemoryKind!], $tiers: [TrustTier!],
  $asOf: DateTime, $intent: String) {
  recall(query: $q, scopes: $sc, k: 50, kinds: $kinds, tiers: $tiers, asOf: $asOf,
    intent: $intent, minScore: 0, minConfidence: 0, minRelevance: 0, relativeRelevance: 0,
    includeCandidates: true, includeExpired: true, includeUnverified: true) {
    items { id kind text provenance { contributors episodes { userId summary } } } } }"""
Q_EPS = """query($sc: [String!]!, $u: String, $s: String, $from: DateTime, $to: DateTime) {
  episodes(scopes: $sc, userId: $u, sessionId: $s, startedFrom: $from, startedTo: $to,
    first: 100) { id userId sessionId summary topics keyEntities } }"""
Q_ALERTS = """query { alerts { total counts { action actor count }
  events { targetId actor reason before after } } }"""
Q_PROC = """query($i: String!, $sc: [String!]!, $c: Boolean!) {
  procedures(intent: $i, scopes: $sc, includeCandidates: $c) {
    id status successCount failureCount } }"""
M_UPSERT = """mutation($i: String!, $s: [String!]!, $sc: String!) {
  upsertProcedure(intent: $i, role: "agent", steps: $s, scope: $sc) { procedure { id status } } }"""
M_OUTCOME = """mutation($id: ID!, $ok: Boolean!, $e: ID!) {
  recordProcedureOutcome(id: $id, success: $ok, episodeId: $e) { status } }"""


def forget(admin: C, user: str) -> dict[str, Any]:
    out: dict[str, Any] = admin.execute(FORGET, {"u": user})["forgetContributor"]
    return out


def at(c: C, fid: str) -> datetime:
    return datetime.fromisoformat(get(c, fid)["recordedAt"])  # type: ignore[index]


def objects_at(
    c: C, subject: str, pred: str, as_of: datetime | None, valid_at: datetime | None = None
) -> list[str]:
    v = {
        "f": {"scopes": SC, "subject": subject, "predicate": pred},
        "asOf": as_of.isoformat() if as_of else None,
        "validAt": valid_at.isoformat() if valid_at else None,
    }
    return sorted(n["object"] for n in c.execute(Q_AT, v)["facts"]["nodes"])


def sup(c: C, fid: str) -> dict[str, Any] | None:
    out: dict[str, Any] | None = c.execute(Q_SUP, {"id": fid})["fact"]
    return out


def recalled(c: C, q: str, **kw: Any) -> set[str]:
    items = c.execute(Q_RECALL, {"q": q, "sc": SC, **kw})["recall"]["items"]
    return {i["id"] for i in items if i["kind"] == "FACT" and "plan" in i["text"]}


def tiers(r: dict[str, Any]) -> dict[str, int]:
    return {t["tier"]: t["count"] for t in r["factsDeletedByTier"]}


def team_ep(c: C, user: str, session: str, **kw: Any) -> str:
    return ep(c, user, session, scope="team:core", **kw)


# -- supersession chains written by several users -------------------------------------------------
def _valid_time_chain(client: C) -> dict[str, Any]:
    a, b = team_ep(client, "alice", "s-a1"), team_ep(client, "bob", "s-b1")
    c = team_ep(client, "alice", "s-a2")
    w: dict[str, Any] = {}
    w["paris"] = one(
        client, fct(TEAM, "office", "Paris", [a], cardinality="ONE", validFrom=Y[2020].isoformat())
    )
    w["t_a"] = at(client, w["paris"])
    w["berlin"] = one(
        client, fct(TEAM, "office", f"{SECRET} Tower", [b], validFrom=Y[2022].isoformat())
    )
    w["t_b"] = at(client, w["berlin"])
    w["rome"] = one(client, fct(TEAM, "office", "Rome", [c], validFrom=Y[2024].isoformat()))
    w["t_c"] = at(client, w["rome"])
    return w


def test_middle_version_excised_from_a_valid_time_chain_at_every_as_of_and_valid_at(
    client: C, admin: C
) -> None:
    w = _valid_time_chain(client)
    assert objects_at(client, TEAM, "office", None, Y[2023]) == [f"{SECRET} Tower"]
    assert objects_at(client, TEAM, "office", w["t_b"], Y[2025]) == [f"{SECRET} Tower"]

    r = forget(admin, "bob")
    assert (r["factVersionsDeleted"], r["factsReinstated"], r["factsRecomputed"]) == (1, 0, 0)
    # As if bob had never spoken: Paris answers wherever Berlin used to, in both time axes.
    want = {
        (w["t_a"], Y[2021]): ["Paris"],
        (w["t_a"], Y[2025]): ["Paris"],
        (w["t_b"], Y[2023]): ["Paris"],
        (w["t_b"], Y[2025]): ["Paris"],
        (w["t_c"], Y[2023]): ["Paris"],
        (w["t_c"], Y[2025]): ["Rome"],
        (None, Y[2019]): [],
        (None, Y[2021]): ["Paris"],
        (None, Y[2023]): ["Paris"],
        (None, Y[2025]): ["Rome"],
    }
    got = {k: objects_at(client, TEAM, "office", *k) for k in want}
    assert got == want
    versions = hist(client, TEAM, "office", SC)
    assert [(v["object"], v["status"]) for v in versions] == [
        ("Paris", "SUPERSEDED"),
        ("Rome", "ACTIVE"),
    ]
    paris, rome = sup(client, w["paris"]), sup(client, w["rome"])
    assert paris and rome
    assert paris["supersededBy"] == w["rome"] and rome["supersedes"] == {"id": w["paris"]}
    assert datetime.fromisoformat(paris["supersededAt"]) == w["t_c"]
    for moment in (w["t_b"], w["t_c"], None):
        seen = json.dumps(hist(client, TEAM, "office", SC, moment))
        assert SECRET not in seen and w["berlin"] not in seen


def test_forgotten_first_version_leaves_the_successor_superseding_nothing(
    client: C, admin: C
) -> None:
    b, a1, a2 = (
        team_ep(client, u, s) for u, s in [("bob", "s-b"), ("alice", "a1"), ("alice", "a2")]
    )
    first = one(client, fct(TEAM, "chat_tool", f"{SECRET}Chat", [b], cardinality="ONE"))
    t_first = at(client, first)
    second = one(client, fct(TEAM, "chat_tool", "Slack", [a1]))
    assert (sup(client, second) or {})["supersedes"] == {"id": first}

    forget(admin, "bob")
    s = sup(client, second)
    assert s and s["supersedes"] is None and s["status"] == "ACTIVE"
    assert objects_at(client, TEAM, "chat_tool", t_first) == []
    assert [v["object"] for v in hist(client, TEAM, "chat_tool", SC)] == ["Slack"]
    # Life goes on: the next version chains onto the survivor, never onto the excised one.
    third = put(client, fct(TEAM, "chat_tool", "Teams", [a2]))[0]
    assert third["ok"] and third["supersedes"] == second
    versions = hist(client, TEAM, "chat_tool", SC)
    assert [(v["object"], v["supersededBy"]) for v in versions] == [
        ("Slack", third["factId"]),
        ("Teams", None),
    ]
    assert versions[1]["version"] > versions[0]["version"]


def test_shared_successor_survives_and_rechains_onto_the_older_version(client: C, admin: C) -> None:
    a = team_ep(client, "alice", "a1")
    b1, b2 = team_ep(client, "bob", "b1"), team_ep(client, "bob", "b2")
    cc = team_ep(client, "carol", "c1", confidence=0.4)
    oldest = one(client, fct(TEAM, "standup", "9:00", [a], cardinality="ONE"))
    middle = one(client, fct(TEAM, "standup", f"{SECRET} 10:00", [b1]))
    t_mid = at(client, middle)
    newest = one(client, fct(TEAM, "standup", "11:00", [b2]))
    assert put(client, fct(TEAM, "standup", "11:00", [cc]))[0]["action"] == "corroborated"

    r = forget(admin, "bob")
    assert (r["factVersionsDeleted"], r["factsRecomputed"]) == (1, 1)
    n = sup(client, newest)
    assert n and n["status"] == "ACTIVE" and n["supersedes"] == {"id": oldest}
    assert n["confidence"] == pytest.approx(0.4)
    assert [(p["userId"], p["sessionId"]) for p in n["provenance"]] == [("carol", "c1")]
    assert (sup(client, oldest) or {})["supersededBy"] == newest
    assert objects_at(client, TEAM, "standup", t_mid) == ["9:00"]
    assert objects_at(client, TEAM, "standup", None) == ["11:00"]


def test_retracted_successor_excised_brings_the_older_version_back(client: C, admin: C) -> None:
    a, b = team_ep(client, "alice", "a1"), team_ep(client, "bob", "b1")
    older = one(client, fct(TEAM, "budget_owner", "Dana", [a], cardinality="ONE"))
    theirs = one(client, fct(TEAM, "budget_owner", f"{SECRET} Inc", [b]))
    client.execute(M_RETRACT, {"id": theirs, "r": f"{SECRET} was wrong"})
    assert (sup(client, older) or {})["supersededBy"] == theirs

    r = forget(admin, "bob")
    assert (r["factsReinstated"], r["factVersionsDeleted"]) == (1, 1)
    o = sup(client, older)
    assert o and (o["status"], o["supersededBy"], o["supersededAt"]) == ("ACTIVE", None, None)
    assert objects_at(client, TEAM, "budget_owner", None) == ["Dana"]


def test_tier_up_confirmation_by_the_forgotten_user_is_undone(
    client: C, admin: C, analyst: C
) -> None:
    a = team_ep(client, "alice", "a1")
    b = team_ep(client, "bob", "b1")
    guess = one(client, fct(TEAM, "language", "Go", [a], source="conversation", cardinality="ONE"))
    assert (get(client, guess) or {})["status"] == "CANDIDATE"
    confirmed = put(client, fct(TEAM, "language", "Go", [b], source="user"))[0]
    assert confirmed["action"] == "superseded" and confirmed["supersedes"] == guess
    assert objects_at(client, TEAM, "language", None) == ["Go"]

    r = forget(admin, "bob")
    assert r["factsReinstated"] == 1
    g = get(client, guess)
    assert g and (g["status"], g["tier"], g["supersededBy"]) == ("CANDIDATE", "INFERRED", None)
    assert objects_at(client, TEAM, "language", None) == []  # an unconfirmed guess again
    queue = analyst.execute(Q_QUEUE, {"sc": SC})["reviewQueue"]
    assert [(q["fact"]["id"], q["contributors"]) for q in queue] == [(guess, ["alice"])]


def test_successors_audit_trail_does_not_point_at_the_excised_version(
    client: C, admin: C, analyst: C
) -> None:
    w = _valid_time_chain(client)
    forget(admin, "bob")
    trail = json.dumps(audit(analyst, target=w["rome"]))
    assert w["berlin"] not in trail, trail


def test_flag_reason_of_a_conclusion_does_not_name_the_excised_successor(
    client: C, admin: C
) -> None:
    a1, a2 = team_ep(client, "alice", "a1"), team_ep(client, "alice", "a2")
    b = team_ep(client, "bob", "b1")
    premise = one(client, fct(TEAM, "office", "Paris", [a1], cardinality="ONE"))
    conclusion = one(
        client, fct(TEAM, "timezone", "CET", [a2], cardinality="ONE", dependsOn=[premise])
    )
    theirs = one(client, fct(TEAM, "office", f"{SECRET} Tower", [b]))
    assert theirs in (sup(client, conclusion) or {})["verificationReason"]

    forget(admin, "bob")
    assert objects_at(client, TEAM, "office", None) == ["Paris"]
    c = sup(client, conclusion)
    assert c and theirs not in (c["verificationReason"] or "")


# -- corroboration and promotion re-judged on the evidence left -----------------------------------
def test_corroborators_forgotten_confidence_falls_back_to_the_first_stater(
    client: C, admin: C, analyst: C
) -> None:
    a = team_ep(client, "alice", "a1")
    b1, b2 = team_ep(client, "bob", "b1"), team_ep(client, "bob", "b2")
    stated = one(client, fct(TEAM, "uses", "Linear", [(a, 0.6)], cardinality="MANY"))
    for e in (b1, b2):
        assert put(client, fct(TEAM, "uses", "Linear", [(e, 0.9)]))[0]["action"] == "corroborated"
    high = (get(client, stated) or {})["confidence"]
    assert high == pytest.approx(0.95)  # capped at the user tier

    r = forget(admin, "bob")
    assert (r["factsRecomputed"], r["factVersionsDeleted"], r["episodesDeleted"]) == (1, 0, 2)
    f = get(client, stated)
    assert f and f["status"] == "ACTIVE" and f["confidence"] == pytest.approx(0.6)
    assert [(p["userId"], p["weight"]) for p in f["provenance"]] == [("alice", 0.6)]
    ev = audit(analyst, target=stated, action="recompute_confidence")
    assert len(ev) == 1 and ev[0]["confidenceDelta"] == pytest.approx(0.6 - high)
    (fe,) = audit(analyst, action="forget_contributor")
    assert fe["confidenceDelta"] == pytest.approx(0.6 - high)


def test_promotions_are_rejudged_against_the_tenants_own_threshold(
    client: C, admin: C, analyst: C
) -> None:
    admin.execute(M_CONFIGURE, {"p": {"promoteSessions": 2}})
    # The same session id from three users is three independent sessions.
    a, b, c = (team_ep(client, u, "s1") for u in ("alice", "bob", "carol"))
    a2, b2 = team_ep(client, "alice", "s2"), team_ep(client, "bob", "s2")
    kept = one(
        client, fct(TEAM, "ci", "Buildkite", [a, b, c], source="conversation", cardinality="ONE")
    )
    lost = one(
        client, fct(TEAM, "cd", "ArgoCD", [a2, b2], source="conversation", cardinality="ONE")
    )
    assert [(get(client, i) or {})["status"] for i in (kept, lost)] == ["ACTIVE", "ACTIVE"]
    t_promoted = now_utc()

    r = forget(admin, "bob")
    assert (r["factsRecomputed"], r["factsReturnedToReview"]) == (2, 1)
    assert (get(client, kept) or {})["status"] == "ACTIVE"  # 2 sessions still meet 2
    assert (get(client, lost) or {})["status"] == "CANDIDATE"
    assert objects_at(client, TEAM, "ci", None) == ["Buildkite"]
    # Its promotion rested on bob: no read, even asOf the past, serves it as truth.
    assert objects_at(client, TEAM, "cd", None) == objects_at(client, TEAM, "cd", t_promoted) == []
    queue = analyst.execute(Q_QUEUE, {"sc": SC})["reviewQueue"]
    assert [
        (q["fact"]["id"], q["sessions"], q["neededSessions"], q["contributors"]) for q in queue
    ] == [(lost, 1, 2, ["alice"])]
    demote = audit(analyst, target=lost, action="demote")
    assert len(demote) == 1 and SECRET not in json.dumps(demote)
    # A human can still approve it; the forget does not block review.
    assert analyst.execute(M_APPROVE, {"id": lost})["approveFact"]["status"] == "ACTIVE"


def test_a_corroborated_fact_does_not_keep_the_forgotten_users_wording(client: C, admin: C) -> None:
    b, a = team_ep(client, "bob", "b1"), team_ep(client, "alice", "a1")
    words = f"Bob confided the team picked Jira for his {SECRET} side project"
    shared = one(client, fct(TEAM, "tracker", "Jira", [b], cardinality="ONE", text=words))
    assert put(client, fct(TEAM, "tracker", "Jira", [a]))[0]["action"] == "corroborated"

    forget(admin, "bob")
    f = sup(client, shared)
    assert f and f["status"] == "ACTIVE"  # the claim itself stands on alice's word
    hits = client.execute(Q_RECALL, {"q": f"{SECRET} side project", "sc": SC})["recall"]
    assert SECRET not in f["text"] and SECRET not in json.dumps(hits)


# -- premises -------------------------------------------------------------------------------------
def test_conclusion_keeps_its_other_premise_and_only_the_current_version_is_flagged(
    client: C, admin: C, analyst: C
) -> None:
    a1, a2, a3 = (team_ep(client, "alice", s) for s in ("a1", "a2", "a3"))
    b = team_ep(client, "bob", "b1")
    theirs = one(client, fct(TEAM, "deadline", f"{SECRET} day", [b], cardinality="ONE"))
    mine = one(client, fct(TEAM, "headcount", "12", [a1], cardinality="ONE"))
    old = one(client, fct(TEAM, "plan", "hire two", [a2], cardinality="ONE", dependsOn=[theirs]))
    cur = one(client, fct(TEAM, "plan", "hire four", [a3], dependsOn=[theirs, mine]))

    r = forget(admin, "bob")
    assert r["dependentsFlagged"] == 1  # the current conclusion, not its superseded version
    c = sup(client, cur)
    assert c and c["needsVerification"] and c["dependsOn"] == [{"id": mine}]
    assert SECRET not in c["verificationReason"] and theirs not in c["verificationReason"]
    o = sup(client, old)
    assert o and o["needsVerification"] is False and o["dependsOn"] == []
    assert (sup(client, mine) or {})["dependents"] == [{"id": cur}]
    flagged = served(client, SC, needsVerification=True)
    assert [f["id"] for f in flagged] == [cur]
    # Unverified conclusions are not recalled as truth by default...
    assert recalled(client, "team plan hire four") == set()
    assert recalled(client, "team plan hire four", unv=True) == {cur}
    ev = audit(analyst, target=cur, action="flag_needs_verification")
    assert len(ev) == 1 and theirs not in json.dumps(ev) and SECRET not in json.dumps(ev)
    # ...until someone confirms them again.
    assert put(client, fct(TEAM, "plan", "hire four", [a1]))[0]["action"] == "corroborated"
    assert recalled(client, "team plan hire four") == {cur}


def test_audit_trail_of_surviving_conclusions_never_quotes_a_forgotten_premise(
    client: C, admin: C, analyst: C
) -> None:
    a1, a2, a3 = (team_ep(client, "alice", s) for s in ("a1", "a2", "a3"))
    b = team_ep(client, "bob", "b1")
    premise = one(client, fct(TEAM, "codename", f"{SECRET}", [b], cardinality="ONE"))
    verified = one(
        client, fct(TEAM, "launch", "spring", [a1], cardinality="ONE", dependsOn=[premise])
    )
    dropped = one(
        client, fct(TEAM, "budget", "large", [a2], cardinality="ONE", dependsOn=[premise])
    )
    client.execute(M_RETRACT, {"id": premise, "r": "not a real codename"})
    # The retraction flags the conclusions, naming the premise by id only (its object stays in
    # the premise's own trail, which the forget redacts); then the trail moves on.
    assert premise in (sup(client, verified) or {})["verificationReason"]
    assert put(client, fct(TEAM, "launch", "spring", [a3]))[0]["action"] == "corroborated"
    admin.execute(M_RETRACT, {"id": dropped, "r": "budget unknown"})
    assert SECRET in json.dumps(audit(analyst))  # the premise's own events quote it

    forget(admin, "bob")
    for fid in (verified, dropped):
        assert get(client, fid) is not None  # alice's conclusions stay
    seen = json.dumps([audit(analyst), [sup(client, i) for i in (verified, dropped)]])
    assert SECRET not in seen


# -- procedures -----------------------------------------------------------------------------------
def _procedure(client: C, intent: str) -> str:
    out = client.execute(
        M_UPSERT, {"i": intent, "s": ["check the queue", "restart the worker"], "sc": "team:core"}
    )
    return str(out["upsertProcedure"]["procedure"]["id"])


def _outcome(client: C, pid: str, ok: bool, episode_id: str) -> str:
    res = client.execute(M_OUTCOME, {"id": pid, "ok": ok, "e": episode_id})
    return str(res["recordProcedureOutcome"]["status"])


def _procs(client: C, intent: str, cand: bool = True) -> list[tuple[str, str, int, int]]:
    rows = client.execute(Q_PROC, {"i": intent, "sc": SC, "c": cand})["procedures"]
    return [(p["id"], p["status"], p["successCount"], p["failureCount"]) for p in rows]


def test_procedures_are_rejudged_on_the_outcomes_left(client: C, admin: C, analyst: C) -> None:
    a1 = team_ep(client, "alice", "a1")
    b = [team_ep(client, "bob", f"b{i}") for i in range(1, 6)]
    only = _procedure(client, "rotate_keys")  # all its evidence is bob's
    partly = _procedure(client, "restart_worker")  # promoted thanks to bob
    blamed = _procedure(client, "drain_queue")  # demoted by bob's failures
    for e in b[:3]:
        _outcome(client, only, True, e)
    assert [_outcome(client, partly, True, e) for e in (a1, b[0], b[1])][-1] == "active"
    _outcome(client, blamed, True, a1)
    assert [_outcome(client, blamed, False, e) for e in b[:4]][-1] == "demoted"
    assert _procs(client, "rotate_keys", cand=False) == [(only, "active", 3, 0)]

    r = forget(admin, "bob")
    assert r["proceduresDemoted"] == 1
    assert _procs(client, "rotate_keys") == []  # demoted: never served
    assert _procs(client, "restart_worker", cand=False) == []
    assert _procs(client, "restart_worker") == [(partly, "candidate", 1, 0)]
    assert _procs(client, "drain_queue") == [(blamed, "candidate", 1, 0)]
    hits = client.execute(
        Q_REC_K, {"q": "rotate keys", "sc": SC, "kinds": ["PROCEDURE"], "intent": "rotate_keys"}
    )["recall"]["items"]
    assert hits == []
    changes = {
        (e["targetId"], e["action"], e["before"], e["after"])
        for e in audit(analyst, actor="admin")
        if e["targetType"] == "procedure"
    }
    assert changes == {
        (only, "demote", '{"status": "active"}', '{"status": "demoted"}'),
        (partly, "demote", '{"status": "active"}', '{"status": "candidate"}'),
        (blamed, "promote", '{"status": "demoted"}', '{"status": "candidate"}'),
    }
    # New evidence from someone else still counts from zero.
    a2 = team_ep(client, "alice", "a2")
    assert _outcome(client, only, True, a2) == "candidate"


# -- no read, with any filter at any moment, reveals them -----------------------------------------
def _reads(client: C, analyst: C, moment: datetime | None, session: str) -> str:
    a = moment.isoformat() if moment else None
    q = f"{SECRET} migration database"
    out: list[Any] = [
        [
            client.execute(Q_REC_K, {"q": q, "sc": SC, "asOf": a, **kw})["recall"]
            for kw in (
                {},
                {"kinds": ["FACT"]},
                {"kinds": ["EPISODE"]},
                {"kinds": ["PROCEDURE"], "intent": "migrate_db"},
                {"tiers": ["SYSTEM"]},
                {"tiers": ["USER"]},
                {"tiers": ["INFERRED"]},
            )
        ],
        client.execute(Q_CTX, {"q": q, "sc": SC, "asOf": a})["context"],
        [
            client.execute(Q_EPS, {"sc": SC, **kw})["episodes"]
            for kw in (
                {},
                {"u": "bob"},
                {"s": session},
                {"from": "2025-12-31T00:00:00+00:00", "to": "2026-01-02T00:00:00+00:00"},
            )
        ],
        served(client, SC, moment, includeCandidates=True, includeExpired=True),
        hist(client, TEAM, "database", SC, moment),
        analyst.execute(Q_QUEUE, {"sc": SC})["reviewQueue"],
        analyst.execute(Q_ALERTS)["alerts"],
        audit(analyst, **({"to": moment} if moment else {})),
        audit(analyst, actor="agent:agent"),
        client.execute(Q_PROC, {"i": "migrate_db", "sc": SC, "c": True})["procedures"],
        client.execute(
            "query($n: String!) { entity(name: $n) { id name } }", {"n": f"{SECRET} DB"}
        ),
    ]
    return json.dumps(out)


def test_no_read_filter_at_any_moment_reveals_the_forgotten(
    client: C, admin: C, analyst: C
) -> None:
    a = team_ep(client, "alice", "a1", summary="Alice reviewed the database migration runbook.")
    story = f"Bob described the {SECRET} migration of the database in detail."
    b1 = team_ep(
        client,
        "bob",
        "b-secret",
        summary=story,
        topics=[SECRET.lower()],
        keyEntities=[f"{SECRET} DB"],
    )
    b2 = ep(client, "bob", "b2", scope="tenant", summary=story)
    ops = ep(admin, "ops", "o1", scope="tenant", source="system")
    one(client, fct(TEAM, "database", f"{SECRET} DB", [b1], cardinality="ONE", objectIsEntity=True))
    one(
        client,
        fct(TEAM, "style", f"{SECRET} style", [b1, b2], source="conversation", cardinality="ONE"),
    )
    one(
        admin,
        fct(
            "ACME",
            "vendor_desk",
            "Initech",
            [ops],
            source="system",
            scope="tenant",
            cardinality="ONE",
        ),
    )
    refused = put(client, fct("ACME", "vendor_desk", f"{SECRET} desk", [b2], scope="tenant"))
    assert refused[0]["error"]["code"] == "TIER_CONFLICT"
    pid = _procedure(client, "migrate_db")
    for e in (b1, b2, a):
        _outcome(client, pid, True, e)
    t_mid = now_utc()
    assert SECRET in _reads(client, analyst, t_mid, "b-secret")

    r = forget(admin, "bob")
    assert (r["episodesDeleted"], r["factVersionsDeleted"], r["entitiesDeleted"]) == (2, 2, 2)
    for moment in (t_mid, now_utc(), None):
        seen = _reads(client, analyst, moment, "b-secret")
        assert SECRET not in seen and SECRET.lower() not in seen, moment
    # The refused override stays an alert (without their words), and alice's memory stays.
    alerts = analyst.execute(Q_ALERTS)["alerts"]
    assert alerts["total"] == 1 and alerts["events"][0]["actor"] == "agent:agent"
    assert {e["userId"] for e in client.execute(Q_EPS, {"sc": SC})["episodes"]} == {"ops", "alice"}
    assert _procs(client, "migrate_db") == [(pid, "candidate", 1, 0)]


# -- the forget's own record ----------------------------------------------------------------------
ZERO = {
    "episodesDeleted": 0,
    "factVersionsDeleted": 0,
    "factsRecomputed": 0,
    "factsReturnedToReview": 0,
    "factsReinstated": 0,
    "dependentsFlagged": 0,
    "proceduresDemoted": 0,
    "entitiesDeleted": 0,
    "auditEventsRedacted": 0,
    "userDeleted": False,
}


def _counts(r: dict[str, Any]) -> dict[str, Any]:
    return {k: r[k] for k in ZERO}


def _four_tiers(client: C, admin: C) -> dict[str, str]:
    a = team_ep(client, "alice", "a1")
    b_user, b_conv = team_ep(client, "bob", "b1"), team_ep(client, "bob", "b2")
    b_sys = ep(admin, "bob", "b-import", scope="tenant", source="system")
    lab = f"{SECRET} Labs"
    return {
        "system": one(
            admin, fct(lab, "contract", "signed", [b_sys], source="system", cardinality="ONE")
        ),
        "admin": one(
            admin, fct(lab, "account_manager", "Eve", [b_sys], source="admin", cardinality="ONE")
        ),
        "user": one(client, fct(lab, "stage", "pilot", [b_user], cardinality="ONE")),
        "inferred": one(
            client, fct(lab, "mood", "keen", [b_conv], source="conversation", cardinality="ONE")
        ),
        "shared": one(client, fct(TEAM, "uses", "Slack", [a, b_user], cardinality="MANY")),
    }


def test_the_forget_event_has_counts_per_tier_and_no_content(
    client: C, admin: C, analyst: C
) -> None:
    w = _four_tiers(client, admin)
    r = forget(admin, "bob")
    assert tiers(r) == {"SYSTEM": 1, "ADMIN": 1, "USER": 1, "INFERRED": 1}
    assert _counts(r) == {
        **ZERO,
        "episodesDeleted": 3,
        "factVersionsDeleted": 4,
        "factsRecomputed": 1,
        "entitiesDeleted": 1,
        "auditEventsRedacted": r["auditEventsRedacted"],
        "userDeleted": True,
    }
    assert r["auditEventsRedacted"] >= 3 + 4  # each episode's and each fact's record at least
    (ev,) = audit(analyst, action="forget_contributor")
    assert (ev["actor"], ev["actorType"], ev["targetType"], ev["targetId"]) == (
        "admin:admin",
        "admin",
        "user",
        r["receipt"],
    )
    assert (ev["before"], ev["reason"], ev["redacted"]) == (None, None, False)
    after = json.loads(ev["after"])
    assert after["facts_deleted"] == {"system": 1, "admin": 1, "user": 1, "inferred": 1}
    assert (after["episodes_deleted"], after["fact_versions_deleted"]) == (3, 4)
    assert after["audit_events_redacted"] == r["auditEventsRedacted"]
    blob = json.dumps(ev)
    assert "bob" not in blob and SECRET not in blob and "b-import" not in blob
    assert all(w[k] not in blob for k in w)
    assert [e["id"] for e in audit(analyst, target=r["receipt"])] == [ev["id"]]


def test_forgetting_twice_changes_nothing_the_second_time(client: C, admin: C, analyst: C) -> None:
    w = _four_tiers(client, admin)
    first = forget(admin, "bob")
    shared = get(client, w["shared"])
    log = audit(analyst)

    again = forget(admin, "bob")
    assert again["receipt"] == first["receipt"]
    assert _counts(again) == ZERO and set(tiers(again).values()) == {0}
    assert get(client, w["shared"]) == shared
    after = audit(analyst)
    assert after[1:] == log  # only the second forget event was added
    assert after[0]["action"] == "forget_contributor" and after[0]["targetId"] == again["receipt"]
    counts = json.loads(after[0]["after"])
    assert counts["episodes_deleted"] == 0 and set(counts["facts_deleted"].values()) == {0}


def test_forgetting_someone_unknown_touches_nothing(client: C, admin: C, analyst: C) -> None:
    a = team_ep(client, "alice", "a1")
    fid = one(client, fct(TEAM, "uses", "Slack", [a], cardinality="MANY"))
    before = (get(client, fid), audit(analyst), client.execute(Q_EPS, {"sc": SC}))
    r = forget(admin, "ghost")
    assert _counts(r) == ZERO and set(tiers(r).values()) == {0}
    assert r["receipt"] != forget(admin, "alice ghost")["receipt"]
    log = audit(analyst)
    assert [e["action"] for e in log[:2]] == ["forget_contributor"] * 2
    assert (get(client, fid), log[2:], client.execute(Q_EPS, {"sc": SC})) == before
    assert all(not e["redacted"] for e in log)


def test_a_user_id_is_forgotten_exactly_as_it_was_recorded(client: C, admin: C) -> None:
    e = team_ep(client, "dora ", "d1", summary=f"Dora spoke about {SECRET} at length today.")
    fid = one(client, fct(TEAM, "mascot", f"{SECRET} owl", [e], cardinality="ONE"))
    r = forget(admin, "dora ")
    assert (r["episodesDeleted"], r["factVersionsDeleted"]) == (1, 1)
    assert get(client, fid) is None and client.execute(Q_EPS, {"sc": SC})["episodes"] == []


# -- tenants, roles -------------------------------------------------------------------------------
def test_forgetting_in_one_tenant_leaves_the_same_user_in_another(
    client: C, admin: C, analyst: C, make_client: ClientFactory
) -> None:
    other = f"t-{uuid.uuid4().hex[:10]}"
    b_agent, b_admin, b_analyst = (make_client(other, r) for r in ("agent", "admin", "analyst"))
    ids: dict[C, str] = {}
    for c in (client, b_agent):
        e = team_ep(c, "bob", "b1", summary=f"Bob mentioned {SECRET} during the sync.")
        ids[c] = one(c, fct(TEAM, "project", f"{SECRET}", [e], cardinality="ONE"))
    theirs = audit(b_analyst)

    r = forget(admin, "bob")
    assert r["factVersionsDeleted"] == 1 and get(client, ids[client]) is None
    assert get(client, ids[b_agent]) is None  # tenant A cannot read tenant B's fact either
    kept = get(b_agent, ids[b_agent])
    assert kept and kept["status"] == "ACTIVE" and kept["object"] == SECRET
    assert [e["userId"] for e in b_agent.execute(Q_EPS, {"sc": SC})["episodes"]] == ["bob"]
    assert audit(b_analyst) == theirs and not any(e["redacted"] for e in theirs)
    assert audit(analyst, action="forget_contributor") != []
    # B's admin can still forget B's bob, under B's own receipt.
    rb = forget(b_admin, "bob")
    assert rb["factVersionsDeleted"] == 1 and rb["receipt"] != r["receipt"]


def test_only_an_admin_may_forget_and_a_refusal_changes_nothing(
    client: C, analyst: C, admin: C, server: str
) -> None:
    from graph_memory.client import GraphMemoryClient

    e = team_ep(client, "bob", "b1")
    fid = one(client, fct(TEAM, "project", SECRET, [e], cardinality="ONE"))
    log = audit(analyst)
    for who in (client, analyst):
        assert err_code(lambda who=who: forget(who, "bob")) == "FORBIDDEN"
    with GraphMemoryClient(server, "gm_not_a_real_key") as stranger:
        assert err_code(lambda: forget(stranger, "bob")) == "UNAUTHENTICATED"
    assert (get(client, fid) or {})["object"] == SECRET
    # Nothing excised, nothing redacted, no forget event: only the two denials, on record.
    after = audit(analyst)
    denials = [x for x in after if x["action"] == "access_denied"]
    assert [x for x in after if x["action"] != "access_denied"] == log
    assert {(x["actor"], x["targetId"]) for x in denials} == {
        ("agent:agent", "forgetContributor"),
        ("analyst:analyst", "forgetContributor"),
    }
    assert err_code(lambda: audit(client)) == "FORBIDDEN"  # agents cannot read the receipt
    assert forget(admin, "bob")["factVersionsDeleted"] == 1


# -- replays and capacity -------------------------------------------------------------------------
M_ASSERT_F = """mutation($f: [FactInput!]!, $k: String) {
  assertFacts(facts: $f, idempotencyKey: $k) { accepted rejected
  results { index ok action factId status error { code field }
  fact { id object text } } } }"""


def test_replaying_a_keyed_batch_after_the_forget_resurrects_nothing(client: C, admin: C) -> None:
    a, b = team_ep(client, "alice", "a1"), team_ep(client, "bob", "b1")
    batch = [
        fct(TEAM, "project", SECRET, [b], cardinality="ONE"),
        fct(TEAM, "uses", "Slack", [(a, 0.5)], cardinality="MANY"),
        fct(TEAM, "uses", "Slack", [(b, 0.9)]),
    ]
    first = client.execute(M_ASSERT_F, {"f": batch, "k": "nightly-42"})["assertFacts"]
    assert [x["action"] for x in first["results"]] == ["created", "created", "corroborated"]
    project, slack = first["results"][0]["factId"], first["results"][1]["factId"]
    forget(admin, "bob")
    slack_after = get(client, slack)
    assert slack_after and slack_after["confidence"] == pytest.approx(0.5)

    # The key's record held what bob's items said: it went with his episode, so the replay
    # answers as for a fresh key (bob's episode no longer exists; alice's item is re-told).
    replay = client.execute(M_ASSERT_F, {"f": batch, "k": "nightly-42"})["assertFacts"]
    assert [(x["ok"], (x["error"] or {}).get("code")) for x in replay["results"]] == [
        (False, "NOT_FOUND"),
        (True, None),
        (False, "NOT_FOUND"),
    ]
    assert SECRET not in json.dumps(replay)
    assert get(client, project) is None and hist(client, TEAM, "project", SC) == []
    assert (get(client, slack) or {})["confidence"] == pytest.approx(0.5)
    # The same batch under a new key is a new write: bob's episode no longer exists.
    fresh = put(client, *batch, key="nightly-43")
    assert [(x["ok"], (x["error"] or {}).get("code")) for x in fresh] == [
        (False, "NOT_FOUND"),
        (True, None),
        (False, "NOT_FOUND"),
    ]
    assert objects_at(client, TEAM, "project", None) == []
    assert (get(client, slack) or {})["confidence"] == pytest.approx(0.5)


def test_versions_evicted_for_capacity_are_excised_with_their_eviction_record(
    client: C, admin: C, analyst: C
) -> None:
    admin.execute(M_CONFIGURE, {"p": {"userCapacity": 2}})
    b = ep(client, "bob", "b1", summary=f"Bob listed his hobbies, {SECRET} first.")
    ids = [
        one(client, fct("bob", "hobby", f"{SECRET} {h}", [b], cardinality="MANY"))
        for h in ("chess", "poker", "darts")
    ]
    statuses = [(get(client, i) or {})["status"] for i in ids]
    assert statuses.count("RETRACTED") == 1 and len(audit(analyst, action="evict")) == 1
    t_before = now_utc()

    r = forget(admin, "bob")
    assert r["factVersionsDeleted"] == 3 and tiers(r)["USER"] == 3
    assert all(get(client, i) is None for i in ids)
    for moment in (t_before, None):
        assert hist(client, "bob", "hobby", ["user:bob"], moment) == []
    (evict,) = audit(analyst, action="evict")
    assert (evict["before"], evict["after"], evict["reason"], evict["redacted"]) == (
        None,
        None,
        None,
        True,
    )
    assert evict["actor"] == "system:capacity"  # who and which action stay on record


def test_capacity_counts_only_what_survives_the_forget(client: C, admin: C, analyst: C) -> None:
    admin.execute(M_CONFIGURE, {"p": {"userCapacity": 2}})
    a = ep(client, "alice", "a1")
    note = ep(client, "bob", "b1", scope="user:alice", summary="Bob left a note for Alice today.")
    kept = one(client, fct("alice", "likes", "tea", [a], cardinality="MANY"))
    one(client, fct("alice", "likes", f"{SECRET} rum", [note]))
    forget(admin, "bob")

    one(client, fct("alice", "likes", "jazz", [a]))
    assert (get(client, kept) or {})["status"] == "ACTIVE"  # 2 live memories: nothing evicted
    assert audit(analyst, action="evict") == []
    one(client, fct("alice", "likes", "chess", [a]))
    assert len(audit(analyst, action="evict")) == 1  # the cap still holds afterwards
    assert sorted(n["object"] for n in served(client, ["user:alice"])) in (
        ["chess", "jazz"],
        ["chess", "tea"],
    )


# -- identity, entities, past promotions ----------------------------------------------------------
def test_only_that_exact_user_is_forgotten_not_look_alikes(client: C, admin: C) -> None:
    users = ["bob", "Bob", "bobby", "bob@corp", "b.*"]
    facts = {
        u: one(
            client,
            fct(
                TEAM,
                "nickname",
                f"nickname number {i}",
                [team_ep(client, u, "s1")],
                cardinality="MANY",
            ),
        )
        for i, u in enumerate(users)
    }
    r = forget(admin, "bob")
    assert (r["episodesDeleted"], r["factVersionsDeleted"]) == (1, 1)
    assert {u for u, f in facts.items() if get(client, f) is None} == {"bob"}
    left = {e["userId"] for e in client.execute(Q_EPS, {"sc": SC})["episodes"]}
    assert left == set(users) - {"bob"}


def test_entities_go_only_when_nothing_else_names_them(client: C, admin: C) -> None:
    a, b = team_ep(client, "alice", "a1"), team_ep(client, "bob", "b1")
    premise = one(client, fct(TEAM, "uses", "Slack", [a], cardinality="MANY", objectIsEntity=True))
    one(client, fct(TEAM, "uses", f"{SECRET} Hub", [b], objectIsEntity=True))
    one(
        client,
        fct(
            "Slack",
            "owner",
            "Salesforce",
            [b],
            cardinality="ONE",
            objectIsEntity=True,
            dependsOn=[premise],
        ),
    )
    r = forget(admin, "bob")
    assert r["entitiesDeleted"] == 2  # SECRET Hub and Salesforce; Slack and Core team stay
    q = "query($n: String!) { entity(name: $n) { name } }"
    names = {
        n: client.execute(q, {"n": n})["entity"]
        for n in (f"{SECRET} Hub", "Salesforce", "Slack", TEAM)
    }
    assert names == {
        f"{SECRET} Hub": None,
        "Salesforce": None,
        "Slack": {"name": "Slack"},
        TEAM: {"name": TEAM},
    }
    assert (sup(client, premise) or {})["dependents"] == []
    assert objects_at(client, TEAM, "uses", None) == ["Slack"]


def test_a_past_promotion_owed_to_the_forgotten_user_is_not_served_at_past_as_of(
    client: C, admin: C
) -> None:
    a1, a2 = team_ep(client, "alice", "a1"), team_ep(client, "alice", "a2")
    b1, b2 = team_ep(client, "bob", "b1"), team_ep(client, "bob", "b2")
    guess = one(
        client, fct(TEAM, "framework", "Django", [a1], source="conversation", cardinality="ONE")
    )
    put(client, fct(TEAM, "framework", "Django", [b1, b2], source="conversation"))
    assert (get(client, guess) or {})["status"] == "ACTIVE"  # 3 sessions, 2 of them bob's
    t_promoted = now_utc()
    one(client, fct(TEAM, "framework", "FastAPI", [a2], source="user"))
    assert objects_at(client, TEAM, "framework", t_promoted) == ["Django"]

    forget(admin, "bob")
    # Without bob, Django only ever had one session: it was never served as truth.
    assert objects_at(client, TEAM, "framework", t_promoted) == []
    assert objects_at(client, TEAM, "framework", None) == ["FastAPI"]
