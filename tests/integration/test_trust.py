"""Trust over HTTP: tiers hold against lower-tier overrides (audited, alerted), the gate refuses
noise per item, tenants configure what is kept, and a full user loses its least valuable
memories, audited."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import episode, fact

TENANT_SCOPE = ["tenant"]
Q_POLICY = """query { tenantPolicy { longTermKinds shortTermKinds shortTermTtlDays userCapacity
  promoteSessions protectedPrefixes version updatedBy sources { source tier } } }"""
M_CONFIGURE = """mutation($p: TenantPolicyInput, $reset: Boolean! = false) {
  configureTenant(policy: $p, reset: $reset) { longTermKinds shortTermKinds shortTermTtlDays
    userCapacity version updatedBy protectedPrefixes sources { source tier } } }"""


def _objects(conn: dict[str, Any]) -> list[str]:
    return sorted(e["node"]["object"] for e in conn["edges"])


def _code(r: dict[str, Any]) -> str | None:
    return (r["error"] or {}).get("code")


def _system_policy(admin: GraphMemoryClient) -> str:
    ep = admin.record_episode(**episode("ops", "policy-import", source="system", scope="tenant"))
    out = admin.assert_facts(
        [
            fact(
                "ACME",
                "policy.refund_limit",
                "100 EUR",
                [ep],
                source="system",
                kind="policy",
                scope="tenant",
                cardinality="ONE",
            ),
            fact(
                "ACME",
                "refund_window",
                "14 days",
                [ep],
                source="system",
                kind="policy",
                scope="tenant",
                cardinality="ONE",
            ),
        ]
    )
    assert out["accepted"] == 2, out
    return str(out["results"][1]["factId"])


def test_a_user_cannot_override_a_system_policy(
    admin: GraphMemoryClient, client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    window_id = _system_policy(admin)
    ep = client.record_episode(**episode("mallory", scope="tenant"))
    out = client.assert_facts(
        [
            fact("ACME", "policy.refund_limit", "10000 EUR", [ep], scope="tenant", kind="policy"),
            fact("ACME", "refund_window", "365 days", [ep], scope="tenant", kind="policy"),
            fact("mallory", "likes", "refunds", [ep], scope="tenant", cardinality="MANY"),
        ]
    )
    assert [_code(r) for r in out["results"]] == ["TIER_CONFLICT", "TIER_CONFLICT", None]
    # The system values are still what the memory serves.
    served = client.facts(TENANT_SCOPE, subject="ACME")
    assert _objects(served) == ["100 EUR", "14 days"]
    assert {e["node"]["tier"] for e in served["edges"]} == {"SYSTEM"}
    # Both refusals are audited and raised as alerts, counted per actor.
    alerts = analyst.alerts()
    assert alerts["total"] == 2
    assert alerts["counts"] == [
        {**alerts["counts"][0], "action": "tier_conflict", "actor": "agent:agent", "count": 2}
    ]
    targets = {e["targetId"] for e in alerts["events"]}
    assert window_id in targets  # the fact the write tried to override
    assert all("tier" in (e["reason"] or "") for e in alerts["events"])
    log = analyst.audit_log(action="tier_conflict")
    assert len(log["edges"]) == 2


def test_a_lower_tier_version_in_between_does_not_let_a_user_end_an_admin_fact(
    admin: GraphMemoryClient, client: GraphMemoryClient
) -> None:
    ep = admin.record_episode(**episode("alice"))

    def write(who: GraphMemoryClient, obj: str, **kw: Any) -> dict[str, Any]:
        out = who.assert_facts([fact("alice", "lives_in", obj, [ep], cardinality="ONE", **kw)])
        result: dict[str, Any] = out["results"][0]
        return result

    assert write(admin, "Paris", source="admin", validFrom="2018-01-01T00:00:00Z")["ok"]
    # A user's stay inside the admin's Paris only interrupts it (Paris stays current)...
    berlin = write(
        client, "Berlin", validFrom="2024-01-01T00:00:00Z", validTo="2025-01-01T00:00:00Z"
    )
    assert (berlin["ok"], berlin["supersedes"]) == (True, None), berlin
    # ...and the next open-ended claim would end Paris too, not only Berlin (the newest): it
    # is refused, as it is without Berlin in between.
    kyiv = write(client, "Kyiv")
    assert _code(kyiv) == "TIER_CONFLICT", kyiv
    assert _objects(client.facts(["user:alice"], subject="alice", predicate="lives_in")) == [
        "Paris"
    ]
    history = client.history("alice", "lives_in", ["user:alice"])["versions"]
    assert {v["object"]: v["status"] for v in history} == {"Paris": "ACTIVE", "Berlin": "ACTIVE"}


def test_alerts_are_for_analysts_and_respect_the_time_range(
    admin: GraphMemoryClient, client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    _system_policy(admin)
    ep = client.record_episode(**episode("mallory", scope="tenant"))
    client.assert_facts([fact("ACME", "refund_window", "99 days", [ep], scope="tenant")])
    at = datetime.fromisoformat(analyst.alerts()["events"][0]["at"])
    assert analyst.alerts(start=at)["total"] == 1  # from is inclusive
    assert analyst.alerts(end=at)["total"] == 0  # to is exclusive
    assert analyst.alerts(start=at + timedelta(seconds=1))["total"] == 0
    with pytest.raises(GraphMemoryClientError) as err:
        client.alerts()
    assert err.value.code == "FORBIDDEN"
    with pytest.raises(GraphMemoryClientError) as err:
        analyst.alerts(start=at, end=at)
    assert err.value.code == "VALIDATION"


def test_gate_refuses_noise_per_item_while_siblings_land(client: GraphMemoryClient) -> None:
    ep = client.record_episode(**episode("alice"))
    out = client.assert_facts(
        [
            fact("alice", "likes", "green tea", [ep], cardinality="MANY", kind="preference"),
            fact("alice", "likes", "thanks", [ep], kind="preference"),  # service phrase
            fact("alice", "likes", "jazz", [ep], text="ok"),  # too short / service phrase
            fact("alice", "likes", "ssn 123-45-6789", [ep], sensitivity="high"),
            fact("alice", "likes", "rumours", [ep], source="gossip"),  # unknown source
            fact("alice", "likes", "chess", [ep], ttlDays=0),
            fact("alice", "likes", "go", [ep], ttlDays=400),
            fact("alice", "likes", "poetry", [ep], kind="musing"),  # unknown kind
            fact("alice", "likes", "hiking", [ep], kind="preference", ttlDays=365),
        ]
    )
    fields = [(r["ok"], _code(r), (r["error"] or {}).get("field")) for r in out["results"]]
    assert fields == [
        (True, None, None),
        (False, "VALIDATION", "object"),
        (False, "VALIDATION", "text"),
        (False, "VALIDATION", "sensitivity"),
        (False, "VALIDATION", "source"),
        (False, "VALIDATION", "ttlDays"),
        (False, "VALIDATION", "ttlDays"),
        (False, "VALIDATION", "kind"),
        (True, None, None),
    ]
    assert all(r["error"]["message"] for r in out["results"] if not r["ok"])
    assert _objects(client.facts(["user:alice"], predicate="likes")) == ["green tea", "hiking"]


def test_tenant_configures_which_kinds_are_kept(
    admin: GraphMemoryClient, client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    default = client.execute(Q_POLICY)["tenantPolicy"]
    assert "preference" in default["longTermKinds"] and default["version"] == 0
    with pytest.raises(GraphMemoryClientError) as err:
        client.execute(M_CONFIGURE, {"p": {"userCapacity": 5}})
    assert err.value.code == "FORBIDDEN"
    with pytest.raises(GraphMemoryClientError) as err:  # kinds must not overlap
        admin.execute(M_CONFIGURE, {"p": {"longTermKinds": ["event"]}})
    assert err.value.code == "VALIDATION"

    cfg = admin.execute(
        M_CONFIGURE,
        {
            "p": {
                "longTermKinds": ["profile", "allergy"],
                "shortTermKinds": ["preference"],
                "shortTermTtlDays": 7,
                "sources": [{"source": "crm", "tier": "USER"}],
                "protectedPrefixes": ["billing."],
            }
        },
    )["configureTenant"]
    assert cfg["longTermKinds"] == ["allergy", "profile"] and cfg["version"] == 1
    assert cfg["protectedPrefixes"] == ["policy.", "system.", "billing."]
    assert cfg["updatedBy"] == "admin:admin"

    ep = client.record_episode(**episode("alice"))
    out = client.assert_facts(
        [
            fact("alice", "allergic_to", "peanuts", [ep], kind="allergy"),
            fact("alice", "likes", "tea", [ep], kind="preference", cardinality="MANY"),
            fact("alice", "has_goal", "run a marathon", [ep], kind="goal"),  # no longer kept
            fact("alice", "likes", "crm import", [ep], kind="preference", source="crm"),
            fact("alice", "billing.plan", "free forever", [ep], kind="profile", cardinality="ONE"),
        ]
    )
    assert [_code(r) for r in out["results"]] == [None, None, "VALIDATION", None, "TIER_CONFLICT"]
    allergy, tea = (client.fact(out["results"][i]["factId"]) for i in (0, 1))
    assert allergy and tea and allergy["expiresAt"] is None
    kept_for = datetime.fromisoformat(tea["expiresAt"]) - datetime.fromisoformat(tea["recordedAt"])
    assert kept_for == timedelta(days=7)  # short-term kinds get the tenant's TTL

    change = analyst.audit_log(action="configure_tenant")["edges"][0]["node"]
    assert change["actor"] == "admin:admin" and change["actorType"] == "admin"
    assert json.loads(change["after"])["short_term_ttl_days"] == 7

    reset = admin.execute(M_CONFIGURE, {"reset": True})["configureTenant"]
    assert reset["longTermKinds"] == default["longTermKinds"] and reset["version"] == 2


def test_capacity_evicts_the_lowest_value_memories_audited(
    admin: GraphMemoryClient, client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    admin.execute(M_CONFIGURE, {"p": {"userCapacity": 3}})
    ops = admin.record_episode(**episode("alice", "kyc", source="system"))
    admin.assert_facts([fact("alice", "email", "alice@example.com", [ops], source="system")])
    ep = client.record_episode(**episode("alice", "s1"))

    def like(obj: str, weight: float) -> dict[str, Any]:
        item = fact("alice", "likes", obj, [ep], cardinality="MANY")
        item["episodes"][0]["weight"] = weight
        return item

    first = client.assert_facts([like("tea", 0.9), like("jazz", 0.3)])
    assert first["accepted"] == 2
    assert not analyst.audit_log(action="evict")["edges"]  # at capacity, not over
    client.assert_facts([like("chess", 0.6)])

    served = _objects(client.facts(["user:alice"]))
    assert served == ["alice@example.com", "chess", "tea"]  # jazz, the weakest, went
    evicted = analyst.audit_log(action="evict")["edges"]
    assert len(evicted) == 1
    ev = evicted[0]["node"]
    jazz = first["results"][1]["factId"]
    assert ev["targetId"] == jazz and ev["actorType"] == "system"
    assert "capacity 3" in ev["reason"] and ev["confidenceDelta"] == pytest.approx(-0.3)
    gone = client.fact(jazz)
    assert gone and gone["status"] == "RETRACTED" and "evicted" in gone["retractReason"]

    # A batch never evicts its own new facts (poker is the weakest but was just written) and
    # system-tier memories are never evicted: the user's older memories go instead.
    client.assert_facts([like("go", 0.5), like("poker", 0.2)])
    assert _objects(client.facts(["user:alice"])) == ["alice@example.com", "go", "poker"]
    assert len(analyst.audit_log(action="evict")["edges"]) == 3
