"""Each version's lifecycle is one append-only change log: re-flagging, re-verifying,
superseding, approving, rejecting, retracting and re-telling a fact any number of times
never changes an answer given about an earlier moment, and a store written before the log
existed (migration 070) answers every past moment as it did."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.cypher import cypher_root
from graph_memory.migrations import _split
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode, fact

SCOPES = ["user:alice"]
SUBJECT_HISTORY = """query($p: String!, $asOf: DateTime) {
  history(subject: "alice", predicate: $p, scopes: ["user:alice"], asOf: $asOf) {
    versions { id object status needsVerification verificationReason supersededAt
               supersededBy retractedAt retractReason confidence }
  }
}"""
PREDICATES = ("works_at", "office_city", "team", "desk")


def _answers(client: GraphMemoryClient, as_of: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in PREDICATES:
        out[p] = client.execute(SUBJECT_HISTORY, {"p": p, "asOf": as_of})["history"]["versions"]
    flagged = client.facts(SCOPES, as_of=as_of, needsVerification=True, includeCandidates=True)
    out["flagged"] = sorted(e["node"]["id"] for e in flagged["edges"])
    return out


def _story(client: GraphMemoryClient, review: Any) -> list[str]:
    """A conclusion flagged and verified twice, its premise superseded twice, a candidate
    approved, one rejected, one retracted; returns the moments noted between the steps."""
    moments: list[str] = []

    def note() -> None:
        time.sleep(0.003)
        moments.append(datetime.now(UTC).isoformat())
        time.sleep(0.003)

    e = [client.record_episode(**episode("alice", f"s{i}")) for i in range(6)]
    first = client.assert_facts([fact("alice", "works_at", "ACME", [e[0]])])["results"][0]
    pid = first["factId"]
    cid = client.assert_facts(
        [fact("alice", "office_city", "Berlin", [e[1]], cardinality="ONE", dependsOn=[pid])]
    )["results"][0]["factId"]
    note()
    pid = client.assert_facts([fact("alice", "works_at", "Initech", [e[2]])])["results"][0][
        "factId"
    ]  # flags the conclusion
    note()
    client.assert_facts(
        [fact("alice", "office_city", "Berlin", [e[3]], cardinality="ONE", dependsOn=[pid])]
    )  # verified by fresh evidence
    note()
    client.retract_fact(first["factId"], reason="never worked there")  # flagged again
    note()
    client.assert_facts(
        [fact("alice", "office_city", "Berlin", [e[5]], cardinality="ONE")]
    )  # verified again
    note()
    said = client.record_episode(**episode("alice", "s6", source="conversation"))
    team = client.assert_facts(
        [fact("alice", "team", "infra", [said], source="conversation", cardinality="ONE"),
         fact("alice", "desk", "3rd floor", [said], source="conversation", cardinality="ONE")]
    )["results"]  # fmt: skip
    assert all(r["factId"] for r in team), [r.get("error") for r in team]
    note()
    review(team[0]["factId"], team[1]["factId"])
    note()
    client.retract_fact(cid, reason="moved")
    note()
    assert cid
    return moments


def test_no_later_change_alters_an_earlier_answer_and_the_migration_keeps_them(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    def approve(keep: str, drop: str) -> None:
        admin.execute("mutation($id: ID!) { approveFact(id: $id) { id } }", {"id": keep})
        admin.execute(
            'mutation($id: ID!) { rejectFact(id: $id, reason: "not so") { id } }', {"id": drop}
        )

    moments = _story(client, approve)
    # Every moment answered right after the whole story...
    recorded = [_answers(client, m) for m in moments]
    flags = [a["flagged"] for a in recorded]
    assert flags[1] and not flags[2] and flags[3] and not flags[4], flags
    statuses = [{v["object"]: v["status"] for v in a["team"] + a["desk"]} for a in recorded]
    assert statuses[4] == {}
    assert statuses[5] == {"infra": "CANDIDATE", "3rd floor": "CANDIDATE"}
    assert statuses[6] == {"infra": "ACTIVE", "3rd floor": "REJECTED"}
    city = [[v["status"] for v in a["office_city"]] for a in recorded]
    assert city[6] == ["ACTIVE"] and city[7] == ["RETRACTED"], city

    # ... and again after more changes to the same versions: the past does not move.
    e = client.record_episode(**episode("alice", "s9"))
    client.assert_facts([fact("alice", "works_at", "Hooli", [e])])
    said = client.record_episode(**episode("alice", "s10", source="conversation"))
    client.assert_facts([fact("alice", "team", "infra", [said], source="conversation")])
    assert [_answers(client, m) for m in moments] == recorded

    # A store written before the change log: the log removed, the flag log of that time
    # rebuilt from it, then migration 070 run again.
    bolt(
        settings,
        "MATCH (f:Fact {tenant: $t}) WITH f, "
        "[i IN range(0, size(f.changes) - 1) WHERE f.changes[i] IN ['flagged', 'verified']] AS ix "
        "SET f.flag_log_at = CASE WHEN size(ix) = 0 THEN null "
        "                         ELSE [i IN ix | f.changes_at[i]] END, "
        "    f.flag_log = CASE WHEN size(ix) = 0 THEN null "
        "                      ELSE [i IN ix | f.changes[i] = 'flagged'] END "
        "REMOVE f.changes, f.changes_at",
        {"t": tenant},
    )
    migration = Path(cypher_root(), "schema", "070_change_log.cypher").read_text()
    for stmt in _split(migration):
        bolt(settings, stmt)
    assert [_answers(client, m) for m in moments] == recorded
    left = bolt(
        settings,
        "MATCH (f:Fact {tenant: $t}) WHERE f.flag_log IS NOT NULL OR f.changes IS NULL "
        "RETURN count(f) AS n",
        {"t": tenant},
    )
    assert left[0]["n"] == 0
