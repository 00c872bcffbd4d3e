"""Held-out-style trust scenarios, driven only through GraphQL text as an outside caller would:
tier ladders, the protected namespace, promotion by distinct sessions, review, TTL read at
future asOf, cascades through chains, capacity evictions that cascade, forgetting a
contributor across tiers and chains, the gate per item, and the audit log's filters.

The one exception to "API only" is moving a fact's ``expires_at`` into the past (the passage of
time, as in test_expiry.py): no API can make a day go by."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.settings import Settings

C = GraphMemoryClient
T0 = "2026-01-01T00:00:00+00:00"
F = """id scope subject predicate object tier status confidence version recordedAt
  supersededAt supersededBy retractedAt retractedBy retractReason expiresAt needsVerification
  verificationReason provenance { episodeId sessionId userId weight } dependsOn { id status }"""
M_EP = """mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) {
  index ok id error { code message field } } }"""
M_ASSERT = """mutation($f: [FactInput!]!, $k: String) { assertFacts(facts: $f, idempotencyKey: $k) {
  accepted rejected results { index ok action factId version status confidence supersedes
  error { code message field } } } }"""
Q_FACTS = f"""query($f: FactFilterInput!, $asOf: DateTime, $first: Int! = 100) {{
  facts(filter: $f, asOf: $asOf, first: $first) {{ edges {{ node {{ {F} }} }} }} }}"""
Q_FACT = f"query($id: ID!) {{ fact(id: $id) {{ {F} }} }}"
Q_HISTORY = f"""query($s: String!, $p: String!, $sc: [String!]!, $asOf: DateTime) {{
  history(subject: $s, predicate: $p, scopes: $sc, asOf: $asOf) {{ versions {{ {F} }} }} }}"""
Q_RECALL = """query($q: String!, $sc: [String!]!, $asOf: DateTime, $exp: Boolean! = false,
  $unv: Boolean! = false, $cand: Boolean! = false) {
  recall(query: $q, scopes: $sc, k: 50, asOf: $asOf, minScore: 0, minConfidence: 0,
    minRelevance: 0, relativeRelevance: 0, includeExpired: $exp, includeUnverified: $unv,
    includeCandidates: $cand) { items { id kind text fact { id tier status } } } }"""
Q_QUEUE = f"""query($sc: [String!]!) {{ reviewQueue(scopes: $sc) {{ sessions neededSessions
  contributors evidence {{ episodeId sessionId userId weight }} fact {{ {F} }} }} }}"""
Q_AUDIT = """query($f: AuditFilterInput, $first: Int! = 100, $after: String) {
  auditLog(filter: $f, first: $first, after: $after) { pageInfo { hasNextPage endCursor }
  nodes { id at actor actorType action targetType targetId before after confidenceDelta
  reason redacted } } }"""
Q_ALERTS = """query($from: DateTime) { alerts(from: $from) { total
  counts { action actor count } events { targetId actor reason } } }"""
M_APPROVE = "mutation($id: ID!) { approveFact(id: $id) { id status tier } }"
M_REJECT = "mutation($id: ID!, $r: String) { rejectFact(id: $id, reason: $r) { id status } }"
M_RETRACT = "mutation($id: ID!, $r: String) { retractFact(id: $id, reason: $r) { id status } }"
M_FORGET = """mutation($u: String!) { forgetContributor(userId: $u) { receipt episodesDeleted
  factVersionsDeleted factsDeletedByTier { tier count } factsRecomputed factsReturnedToReview
  factsReinstated dependentsFlagged auditEventsRedacted userDeleted } }"""
M_EXPIRE = "mutation { expireFacts { expired dependentsFlagged } }"
M_CONFIGURE = "mutation($p: TenantPolicyInput) { configureTenant(policy: $p) { version } }"


def ep(c: C, user: str, session: str, **kw: Any) -> str:
    payload = {
        "userId": user,
        "sessionId": session,
        "startedAt": T0,
        "summary": f"{user} talked with the support agent about the account and plans.",
        "outcome": "SUCCESS",
        "source": "user",
        "confidence": 0.8,
        **kw,
    }
    r = c.execute(M_EP, {"e": [payload]})["recordEpisodes"][0]
    assert r["ok"], r
    return str(r["id"])


def fct(s: str, p: str, o: str, eps: list[Any], **kw: Any) -> dict[str, Any]:
    cites = [{"episodeId": e} if isinstance(e, str) else {"episodeId": e[0], "weight": e[1]}
             for e in eps]
    return {"subject": s, "predicate": p, "object": o, "episodes": cites, "source": "user", **kw}


def put(c: C, *facts: dict[str, Any], key: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = c.execute(M_ASSERT, {"f": list(facts), "k": key})[
        "assertFacts"]["results"]
    return out


def one(c: C, item: dict[str, Any]) -> str:
    r = put(c, item)[0]
    assert r["ok"], r
    return str(r["factId"])


def code(r: dict[str, Any]) -> str | None:
    return (r.get("error") or {}).get("code")


def served(c: C, scopes: list[str], as_of: datetime | None = None, **flt: Any) -> list[dict]:
    v = {"f": {"scopes": scopes, **flt}, "asOf": as_of.isoformat() if as_of else None}
    return [e["node"] for e in c.execute(Q_FACTS, v)["facts"]["edges"]]


def objs(c: C, scopes: list[str], as_of: datetime | None = None, **flt: Any) -> list[str]:
    return sorted(n["object"] for n in served(c, scopes, as_of, **flt))


def get(c: C, fid: str) -> dict[str, Any] | None:
    out: dict[str, Any] | None = c.execute(Q_FACT, {"id": fid})["fact"]
    return out


def hist(c: C, s: str, p: str, scopes: list[str], as_of: datetime | None = None) -> list[dict]:
    v = {"s": s, "p": p, "sc": scopes, "asOf": as_of.isoformat() if as_of else None}
    return list(c.execute(Q_HISTORY, v)["history"]["versions"])


def audit(c: C, **flt: Any) -> list[dict[str, Any]]:
    f = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in flt.items()}
    return list(c.execute(Q_AUDIT, {"f": f, "first": 500})["auditLog"]["nodes"])


def recall_ids(c: C, q: str, scopes: list[str], as_of: datetime | None = None, **kw: Any) -> set:
    v = {"q": q, "sc": scopes, "asOf": as_of.isoformat() if as_of else None, **kw}
    return {i["id"] for i in c.execute(Q_RECALL, v)["recall"]["items"] if i["kind"] == "FACT"}


def err_code(call: Any) -> str:
    with pytest.raises(GraphMemoryClientError) as e:
        call()
    return e.value.code


def now_utc() -> datetime:
    return datetime.now(UTC)


# -- tiers --------------------------------------------------------------------------------------
def test_admin_supersedes_a_user_fact_and_the_user_cannot_take_it_back(
    client: C, admin: C, analyst: C
) -> None:
    start = now_utc()
    e = ep(client, "alice", "s1")
    user_fact = one(client, fct("alice", "works_at", "ACME", [e]))
    ops = ep(admin, "alice", "hr-import", source="admin")
    r = put(admin, fct("alice", "works_at", "Globex", [ops], source="admin"))[0]
    assert (r["action"], r["supersedes"], r["status"]) == ("superseded", user_fact, "ACTIVE")
    admin_fact = r["factId"]

    e2 = ep(client, "alice", "s2")
    back = put(
        client,
        fct("alice", "works_at", "ACME", [e2]),
        fct("alice", "works_at", "Initech", [e2], source="conversation"),
        fct("alice", "works_at", "Globex", [e2]),  # agreeing with the admin is fine
    )
    assert [code(x) for x in back] == ["TIER_CONFLICT", "TIER_CONFLICT", None]
    assert back[2]["action"] == "corroborated" and back[2]["factId"] == admin_fact

    now = served(client, ["user:alice"], predicate="works_at")
    assert [(n["object"], n["tier"], n["status"]) for n in now] == [("Globex", "ADMIN", "ACTIVE")]
    assert {p["userId"] for p in now[0]["provenance"]} == {"alice"}
    assert now[0]["confidence"] <= 0.98  # capped by the admin tier, not above it
    versions = hist(client, "alice", "works_at", ["user:alice"])
    assert [(v["object"], v["tier"], v["status"]) for v in versions] == [
        ("ACME", "USER", "SUPERSEDED"),
        ("Globex", "ADMIN", "ACTIVE"),
    ]
    alerts = analyst.execute(Q_ALERTS, {"from": start.isoformat()})["alerts"]
    assert alerts["total"] == 2
    assert {(x["actor"], x["count"]) for x in alerts["counts"]} == {("agent:agent", 2)}
    assert {x["targetId"] for x in alerts["events"]} == {admin_fact}


@pytest.mark.xfail(
    strict=True,
    reason="BUG: a lower-tier retractFact of a higher-tier fact raises TIER_CONFLICT but its "
    "audit event is written in the same transaction the raise rolls back: no alert, no audit",
)
def test_a_user_retracting_an_admin_fact_is_refused_audited_and_alerted(
    client: C, admin: C, analyst: C
) -> None:
    ops = ep(admin, "alice", "hr-import", source="admin")
    admin_fact = one(admin, fct("alice", "works_at", "Globex", [ops], source="admin"))
    assert err_code(lambda: client.execute(M_RETRACT, {"id": admin_fact})) == "TIER_CONFLICT"
    assert err_code(lambda: analyst.execute(M_RETRACT, {"id": admin_fact})) == "TIER_CONFLICT"
    assert get(client, admin_fact)["status"] == "ACTIVE"  # type: ignore[index]
    alerts = analyst.execute(Q_ALERTS, {})["alerts"]
    assert {(x["actor"], x["count"]) for x in alerts["counts"]} == {
        ("agent:agent", 1), ("analyst:analyst", 1)}
    assert len(audit(analyst, target=admin_fact, action="tier_conflict")) == 2


def test_protected_namespace_is_closed_to_every_user_source_and_open_to_admins(
    client: C, admin: C, analyst: C
) -> None:
    e = ep(client, "mallory", "m1", scope="tenant")
    out = put(
        client,
        *(fct("ACME", "policy.discount", "90%", [e], source=s, kind="policy", cardinality="ONE")
          for s in ("user", "tool", "document", "conversation")),
        fct("ACME", "Policy.Refund_Limit", "1M EUR", [e], kind="policy", cardinality="ONE"),
        fct("ACME", "system.flags", "debug on", [e], cardinality="ONE"),
        fct("ACME", "policy.discount", "95%", [e], source="system", cardinality="ONE"),
        fct("ACME", "policy_notes", "mallory wrote these", [e], cardinality="MANY"),
    )
    assert [(x["ok"], code(x)) for x in out] == [(False, "TIER_CONFLICT")] * 6 + [
        (False, "FORBIDDEN"), (True, None)]
    assert all(x["error"]["message"] for x in out if not x["ok"])
    assert objs(client, ["tenant"], subject="ACME") == ["mallory wrote these"]
    assert analyst.execute(Q_ALERTS, {})["alerts"]["total"] == 6

    ops = ep(admin, "ops", "import", scope="tenant", source="system")
    r = put(
        admin,
        fct("ACME", "policy.discount", "10%", [ops], source="admin", kind="policy",
            cardinality="ONE"),
        fct("ACME", "policy.seats", "25 seats", [ops], source="system", kind="policy",
            cardinality="ONE", ttlDays=7),
    )
    assert [(x["ok"], x["status"]) for x in r] == [(True, "ACTIVE"), (True, "ACTIVE")]
    disc, seats = get(admin, r[0]["factId"]), get(admin, r[1]["factId"])
    assert disc and seats and (disc["tier"], seats["tier"]) == ("ADMIN", "SYSTEM")

    def kept(x: dict[str, Any]) -> timedelta:
        return datetime.fromisoformat(x["expiresAt"]) - datetime.fromisoformat(x["recordedAt"])

    assert (kept(disc), kept(seats)) == (timedelta(days=30), timedelta(days=7))
    # A policy is not served past its TTL, whatever the reader asks for by default.
    later = datetime.fromisoformat(disc["recordedAt"]) + timedelta(days=31)
    assert objs(client, ["tenant"], later, subject="ACME") == ["mallory wrote these"]
    assert "10%" in objs(client, ["tenant"], later, subject="ACME", includeExpired=True)


# -- promotion & review -------------------------------------------------------------------------
def test_promotion_counts_distinct_sessions_not_episodes_or_repeats(
    client: C, analyst: C
) -> None:
    sc = ["team:core"]

    def inferred(*eps: Any) -> dict[str, Any]:
        return fct("Core team", "uses", "Linear", list(eps), source="conversation",
                   scope="team:core", cardinality="MANY")

    s1a = ep(client, "alice", "s1", scope="team:core")
    s1b = ep(client, "alice", "s1", scope="team:core")  # same session, second episode
    fid = one(client, inferred((s1a, 0.4)))
    r = put(client, inferred((s1b, 0.6)), inferred((s1a, 0.4)))
    assert [(x["action"], x["factId"], x["status"]) for x in r] == [
        ("corroborated", fid, "CANDIDATE")] * 2
    queue = analyst.execute(Q_QUEUE, {"sc": sc})["reviewQueue"]
    assert [(q["fact"]["id"], q["sessions"], q["neededSessions"]) for q in queue] == [(fid, 1, 3)]
    assert sorted(x["episodeId"] for x in queue[0]["evidence"]) == sorted([s1a, s1b])
    assert queue[0]["fact"]["confidence"] == pytest.approx(0.6)  # best weight of the session

    s2 = ep(client, "bob", "s2", scope="team:core")
    assert put(client, inferred((s2, 0.4)))[0]["status"] == "CANDIDATE"
    assert get(client, fid)["confidence"] == pytest.approx(0.76)  # type: ignore[index]
    assert objs(client, sc) == []
    before_third = now_utc()
    s3 = ep(client, "carol", "s3", scope="team:core")
    r3 = put(client, inferred((s3, 0.4)))[0]
    assert (r3["status"], r3["confidence"]) == ("ACTIVE", pytest.approx(0.8))  # inferred cap
    assert objs(client, sc) == ["Linear"]
    assert analyst.execute(Q_QUEUE, {"sc": sc})["reviewQueue"] == []
    # Before the third session it was not believed as truth, only as a candidate.
    assert objs(client, sc, before_third) == []
    assert objs(client, sc, before_third, includeCandidates=True) == ["Linear"]
    promote = audit(analyst, target=fid, action="promote")
    assert len(promote) == 1 and "3 sessions" in promote[0]["reason"]


def test_a_user_confirming_an_inference_lifts_it_out_of_review(client: C, analyst: C) -> None:
    e1 = ep(client, "alice", "s1")
    cand = one(client, fct("alice", "likes", "opera", [e1], source="conversation"))
    e2 = ep(client, "alice", "s2")
    r = put(client, fct("alice", "likes", "opera", [e2]))[0]
    assert r["ok"] and r["status"] == "ACTIVE" and r["supersedes"] == cand
    now = served(client, ["user:alice"], predicate="likes")
    assert [(n["object"], n["tier"]) for n in now] == [("opera", "USER")]
    assert analyst.execute(Q_QUEUE, {"sc": ["user:alice"]})["reviewQueue"] == []
    assert err_code(lambda: analyst.execute(M_APPROVE, {"id": cand})) == "CONFLICT"


def test_reviewers_decide_and_a_rejected_claim_needs_fresh_evidence(
    client: C, analyst: C, admin: C
) -> None:
    sc = ["user:alice"]
    e1 = ep(client, "alice", "s1")
    jazz = one(client, fct("alice", "likes", "jazz", [e1], source="agent"))
    golf = one(client, fct("alice", "likes", "golf", [e1], source="extraction"))
    for who in (client,):
        assert err_code(lambda: who.execute(M_REJECT, {"id": golf})) == "FORBIDDEN"
    assert analyst.execute(M_APPROVE, {"id": jazz})["approveFact"]["status"] == "ACTIVE"
    assert err_code(lambda: analyst.execute(M_REJECT, {"id": jazz})) == "CONFLICT"
    rej = analyst.execute(M_REJECT, {"id": golf, "r": "alice hates golf"})["rejectFact"]
    assert rej["status"] == "REJECTED"
    assert objs(client, sc, includeCandidates=True) == ["jazz"]
    assert err_code(lambda: admin.execute(M_APPROVE, {"id": golf})) == "CONFLICT"
    # The agent infers golf again later: a new candidate version, not the rejected one revived.
    e2 = ep(client, "alice", "s2")
    again = put(client, fct("alice", "likes", "golf", [e2], source="conversation"))[0]
    assert again["factId"] != golf and again["status"] == "CANDIDATE"
    queue = analyst.execute(Q_QUEUE, {"sc": sc})["reviewQueue"]
    assert [(q["fact"]["id"], q["sessions"]) for q in queue] == [(again["factId"], 1)]
    assert [(v["status"]) for v in hist(client, "alice", "likes", sc)] == [
        "ACTIVE", "REJECTED", "CANDIDATE"]
    ev = audit(analyst, target=golf, action="reject")[0]
    assert (ev["actor"], ev["reason"]) == ("analyst:analyst", "alice hates golf")
