"""Held-out-style trust scenarios, driven only through GraphQL text as an outside caller would:
tier ladders, the protected namespace, promotion by distinct sessions, review, TTL read at
future asOf, cascades through chains, capacity evictions that cascade, forgetting a
contributor across tiers and chains, the gate per item, and the audit log's filters.

The one exception to "API only" is moving a fact's ``expires_at`` into the past (the passage of
time, as in test_expiry.py): no API can make a day go by."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from graph_memory.settings import Settings
from tests.integration.conftest import elapse_ttl
from tests.integration.scenario_trust_helpers import (
    M_APPROVE,
    M_CONFIGURE,
    M_EXPIRE,
    M_REJECT,
    M_RETRACT,
    Q_ALERTS,
    Q_QUEUE,
    C,
    audit,
    code,
    ep,
    err_code,
    fct,
    get,
    hist,
    now_utc,
    objs,
    one,
    put,
    recall_ids,
    served,
)


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


def test_a_user_retracting_an_admin_fact_is_refused_audited_and_alerted(
    client: C, admin: C, analyst: C
) -> None:
    ops = ep(admin, "alice", "hr-import", source="admin")
    admin_fact = one(admin, fct("alice", "works_at", "Globex", [ops], source="admin"))
    assert err_code(lambda: client.execute(M_RETRACT, {"id": admin_fact})) == "TIER_CONFLICT"
    # Analysts read and review; a retraction is a write, refused by role (and audited).
    assert err_code(lambda: analyst.execute(M_RETRACT, {"id": admin_fact})) == "FORBIDDEN"
    assert get(client, admin_fact)["status"] == "ACTIVE"  # type: ignore[index]
    alerts = analyst.execute(Q_ALERTS, {})["alerts"]
    assert {(x["actor"], x["count"]) for x in alerts["counts"]} == {("agent:agent", 1)}
    assert len(audit(analyst, target=admin_fact, action="tier_conflict")) == 1
    assert len(audit(analyst, target="retractFact", action="access_denied")) == 1


def test_protected_namespace_is_closed_to_every_user_source_and_open_to_admins(
    client: C, admin: C, analyst: C
) -> None:
    e = ep(client, "mallory", "m1", scope="tenant")
    out = put(
        client,
        *(
            fct("ACME", "policy.discount", "90%", [e], source=s, kind="policy", cardinality="ONE")
            for s in ("user", "tool", "document", "conversation")
        ),
        fct("ACME", "Policy.Refund_Limit", "1M EUR", [e], kind="policy", cardinality="ONE"),
        fct("ACME", "system.flags", "debug on", [e], cardinality="ONE"),
        fct("ACME", "policy.discount", "95%", [e], source="system", cardinality="ONE"),
        fct("ACME", "policy_notes", "mallory wrote these", [e], cardinality="MANY"),
    )
    assert [(x["ok"], code(x)) for x in out] == [(False, "TIER_CONFLICT")] * 6 + [
        (False, "FORBIDDEN"),
        (True, None),
    ]
    assert all(x["error"]["message"] for x in out if not x["ok"])
    assert objs(client, ["tenant"], subject="ACME") == ["mallory wrote these"]
    assert analyst.execute(Q_ALERTS, {})["alerts"]["total"] == 6

    ops = ep(admin, "ops", "import", scope="tenant", source="system")
    r = put(
        admin,
        fct(
            "ACME",
            "policy.discount",
            "10%",
            [ops],
            source="admin",
            kind="policy",
            cardinality="ONE",
        ),
        fct(
            "ACME",
            "policy.seats",
            "25 seats",
            [ops],
            source="system",
            kind="policy",
            cardinality="ONE",
            ttlDays=7,
        ),
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
def test_promotion_counts_distinct_sessions_not_episodes_or_repeats(client: C, analyst: C) -> None:
    sc = ["team:core"]

    def inferred(*eps: Any) -> dict[str, Any]:
        return fct(
            "Core team",
            "uses",
            "Linear",
            list(eps),
            source="conversation",
            scope="team:core",
            cardinality="MANY",
        )

    s1a = ep(client, "alice", "s1", scope="team:core")
    s1b = ep(client, "alice", "s1", scope="team:core")  # same session, second episode
    fid = one(client, inferred((s1a, 0.4)))
    r = put(client, inferred((s1b, 0.6)), inferred((s1a, 0.4)))
    assert [(x["action"], x["factId"], x["status"]) for x in r] == [
        ("corroborated", fid, "CANDIDATE")
    ] * 2
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
    assert err_code(lambda: client.execute(M_REJECT, {"id": golf})) == "FORBIDDEN"
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
        "ACTIVE",
        "REJECTED",
        "CANDIDATE",
    ]
    ev = audit(analyst, target=golf, action="reject")[0]
    assert (ev["actor"], ev["reason"]) == ("analyst:analyst", "alice hates golf")


# -- TTL ----------------------------------------------------------------------------------------
def test_ttl_hides_a_fact_at_later_asof_and_reasserting_after_expiry_starts_afresh(
    client: C, admin: C, analyst: C, settings: Settings, tenant: str
) -> None:
    sc = ["user:alice"]
    e = ep(client, "alice", "s1")
    sushi = one(
        client, fct("alice", "likes", "sushi", [e], ttlDays=1, text="Alice likes sushi for lunch")
    )
    keep = one(client, fct("alice", "likes", "ramen", [e], text="Alice likes ramen for lunch"))
    rec = get(client, sushi)
    assert rec and datetime.fromisoformat(rec["expiresAt"]) - datetime.fromisoformat(
        rec["recordedAt"]
    ) == timedelta(days=1)
    later = now_utc() + timedelta(days=2)
    assert objs(client, sc) == ["ramen", "sushi"]
    assert objs(client, sc, later) == ["ramen"]
    assert objs(client, sc, later, includeExpired=True) == ["ramen", "sushi"]
    assert recall_ids(client, "what does alice like for lunch", sc, later) == {keep}
    assert sushi in recall_ids(client, "what does alice like for lunch", sc, later, exp=True)
    assert admin.execute(M_EXPIRE)["expireFacts"]["expired"] == 0  # nothing due yet

    elapse_ttl(settings, tenant, sushi)
    assert admin.execute(M_EXPIRE)["expireFacts"] == {"expired": 1, "dependentsFlagged": 0}
    gone = get(client, sushi)
    assert gone and (gone["status"], gone["needsVerification"]) == ("EXPIRED", True)
    assert objs(client, sc) == ["ramen"]
    # Alice says it again: a fresh version with its own TTL, served; the expired one is history.
    e2 = ep(client, "alice", "s2")
    r = put(client, fct("alice", "likes", "sushi", [e2], ttlDays=5))[0]
    assert (r["action"], r["supersedes"], r["status"]) == ("superseded", sushi, "ACTIVE")
    assert objs(client, sc) == ["ramen", "sushi"]
    fresh = get(client, r["factId"])
    assert fresh and not fresh["needsVerification"] and fresh["version"] == 3  # slot-wide
    assert [p["episodeId"] for p in fresh["provenance"]] == [e2]
    assert [v["status"] for v in hist(client, "alice", "likes", sc) if v["object"] == "sushi"] == [
        "SUPERSEDED",
        "ACTIVE",
    ]
    assert [x["targetId"] for x in audit(analyst, action="expire")] == [sushi]


# -- cascade ------------------------------------------------------------------------------------
def test_cascade_down_a_chain_one_premise_at_a_time(client: C, analyst: C) -> None:
    sc = ["user:alice"]
    e = ep(client, "alice", "s1")
    a = one(client, fct("alice", "works_at", "ACME", [e]))
    b = one(client, fct("alice", "office_city", "Berlin", [e], cardinality="ONE", dependsOn=[a]))
    c = one(client, fct("alice", "commute", "U-Bahn line 2", [e], cardinality="ONE", dependsOn=[b]))
    d = one(
        client, fct("alice", "lunch_spot", "ACME canteen", [e], cardinality="ONE", dependsOn=[a, c])
    )
    e2 = ep(client, "alice", "s2")
    a2 = put(client, fct("alice", "works_at", "Globex", [e2]))[0]["factId"]

    flagged = {n["id"]: n for n in served(client, sc, needsVerification=True)}
    # Doubt follows the chain: C, built on B, lost its grounds with A too.
    assert sorted(flagged) == sorted([b, c, d])
    assert a in flagged[b]["verificationReason"] and a2 in flagged[b]["verificationReason"]
    assert "superseded" in flagged[b]["verificationReason"]
    assert "(through 1 intermediate conclusion(s))" in flagged[c]["verificationReason"]
    # Recall does not serve a conclusion whose premise changed unless asked to.
    q = "where is alice's office"
    assert b not in recall_ids(client, q, sc) and b in recall_ids(client, q, sc, unv=True)

    # B is corrected by a new version: C (built on B) is flagged now, and B's new version isn't.
    b2 = put(client, fct("alice", "office_city", "Munich", [e2]))[0]["factId"]
    assert get(client, c)["needsVerification"] is True  # type: ignore[index]
    assert b in get(client, c)["verificationReason"]  # type: ignore[index]
    assert get(client, b2)["needsVerification"] is False  # type: ignore[index]
    # Retracting C flags D again, now saying C was retracted.
    client.execute(M_RETRACT, {"id": c, "r": "alice cycles"})
    dd = get(client, d)
    assert dd and c in dd["verificationReason"] and "retracted" in dd["verificationReason"]
    assert {x["id"]: x["status"] for x in dd["dependsOn"]} == {a: "SUPERSEDED", c: "RETRACTED"}
    flags = audit(analyst, action="flag_needs_verification")
    # A's supersession doubts B, C and D; B's doubts C and D again; C's retraction doubts D.
    assert sorted(x["targetId"] for x in flags) == sorted([b, c, d, c, d, d])


def test_reconfirming_a_flagged_conclusion_verifies_it(client: C) -> None:
    sc = ["user:alice"]
    e = ep(client, "alice", "s1")
    a = one(client, fct("alice", "works_at", "ACME", [e]))
    b = one(client, fct("alice", "office_city", "Berlin", [e], cardinality="ONE", dependsOn=[a]))
    e2 = ep(client, "alice", "s2")
    put(client, fct("alice", "works_at", "Globex", [e2]))
    assert get(client, b)["needsVerification"] is True  # type: ignore[index]
    e3 = ep(client, "alice", "s3", summary="Alice confirmed she still works in the Berlin office.")
    r = put(client, fct("alice", "office_city", "Berlin", [e3]))[0]
    assert r["ok"]
    now = served(client, sc, predicate="office_city")
    assert [(n["object"], n["needsVerification"]) for n in now] == [("Berlin", False)]


def test_capacity_eviction_is_audited_and_cascades_to_dependents(
    client: C, admin: C, analyst: C
) -> None:
    admin.execute(M_CONFIGURE, {"p": {"userCapacity": 2}})
    e = ep(client, "alice", "s1")
    weak = one(client, fct("alice", "likes", "bingo", [(e, 0.2)]))
    one(client, fct("alice", "likes", "chess", [(e, 0.9)]))
    team = ep(client, "alice", "t1", scope="team:core")
    concl = one(
        client,
        fct(
            "Core team",
            "game_night",
            "bingo on fridays",
            [team],
            scope="team:core",
            cardinality="ONE",
            dependsOn=[weak],
        ),
    )
    r = put(client, fct("alice", "likes", "go", [(e, 0.5)]))[0]
    assert r["ok"]
    assert objs(client, ["user:alice"]) == ["chess", "go"]
    ev = audit(analyst, action="evict")
    assert [(x["targetId"], x["actor"], x["actorType"]) for x in ev] == [
        (weak, "system:capacity", "system")
    ]
    assert ev[0]["confidenceDelta"] == pytest.approx(-0.2) and "capacity 2" in ev[0]["reason"]
    flagged = get(client, concl)
    assert flagged and flagged["needsVerification"] and weak in flagged["verificationReason"]
    assert "evicted" in flagged["verificationReason"]
    assert [x["targetId"] for x in audit(analyst, action="flag_needs_verification")] == [concl]
