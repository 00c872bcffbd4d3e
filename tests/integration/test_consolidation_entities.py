"""Entity resolution in a consolidation run, with GDS (kNN over name vectors through the
graphdatascience client): near-identical names merged within a scope, alike ones proposed for
review, nothing across scopes or tenants, and the merge undone by a rollback."""

from __future__ import annotations

import json
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.domain import utcnow
from tests.integration.conftest import ClientFactory, episode, fact
from tests.integration.consolidation_helpers import M_ROLLBACK, answers

CORE, OPS = "team:core", "team:ops"
M_RUN = (
    "mutation($s: [String!]!) { runConsolidation(scopes: $s, steps: [ENTITIES]) {"
    " id status steps { step counts { name value } } changes { action targetId reason } } }"
)
Q_PROPOSALS = (
    "query($s: [String!]!) { entityMergeProposals(scopes: $s) {"
    " scope entityA nameA entityB nameB score runId } }"
)


def _facts(
    client: GraphMemoryClient, scope: str, rows: list[tuple[str, str, str, str]]
) -> list[str]:
    ep = client.record_episode(**episode("alice", scope=scope))
    out = client.assert_facts(
        [fact(s, p, o, [ep], scope=scope, cardinality=c) for s, p, o, c in rows]
    )
    assert out["accepted"] == len(rows), out
    return [r["factId"] for r in out["results"]]


def _build(client: GraphMemoryClient) -> dict[str, str]:
    core = _facts(
        client,
        CORE,
        [
            ("Acme Corp", "headquartered_in", "Berlin", "ONE"),
            ("Acme Corp", "ceo", "Ann Lee", "ONE"),
            ("Acme Corp.", "ceo", "Ann Lee", "ONE"),
            ("Acme Corp.", "customer_since", "2019", "ONE"),
            ("New York", "population", "8 million", "ONE"),
            ("New York City", "mayor", "someone", "ONE"),
            ("Alice Smith", "role", "engineer", "ONE"),
            ("Alice Jones", "role", "designer", "ONE"),
        ],
    )
    ops = _facts(client, OPS, [("Acme Corporation", "contract", "gold", "ONE")])
    return {"hq": core[0], "dot_ceo": core[2], "since": core[3], "ops": ops[0]}


def _run(admin: GraphMemoryClient, scopes: list[str]) -> Any:
    return admin.execute(M_RUN, {"s": scopes})["runConsolidation"]


def test_entity_resolution_merges_proposes_and_rolls_back(
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    make_client: ClientFactory,
) -> None:
    ids = _build(client)
    # Another tenant with a near-identical name: never compared with this one's.
    other = make_client(f"{tenant}-b")
    other_id = _facts(other, CORE, [("ACME corp", "ceo", "Bob", "ONE")])[0]
    before = answers_in(client)
    before_at = utcnow().isoformat()

    done = _run(admin, [CORE, OPS])
    counts = {c["name"]: c["value"] for c in done["steps"][0]["counts"]}
    assert counts["merged"] == 1 and counts["facts_moved"] == 2
    assert counts["proposed"] == 1
    # The version is carried over, not relabelled: it is retracted at the run, naming the
    # copy that goes on about the survivor.
    moved = client.fact(ids["since"])
    assert moved and moved["subject"] == "acme corp." and moved["status"] == "RETRACTED"
    assert "merged into 'acme corp'" in moved["retractReason"]
    copy_id = moved["retractReason"].rsplit("continued as ", 1)[1]
    copy = client.execute(
        "query($id: ID!) { fact(id: $id) { subject subjectName subjectMergedFrom status"
        " provenance { episodeId } } }",
        {"id": copy_id},
    )["fact"]
    assert copy["subject"] == "acme corp" and copy["subjectName"] == "Acme Corp"
    assert copy["subjectMergedFrom"] == "acme corp." and copy["status"] == "ACTIVE"
    assert copy["provenance"] == [{"episodeId": p["episodeId"]} for p in moved["provenance"]]
    assert any(
        c["action"] == "merge_entity" and "acme corp." in c["reason"] for c in done["changes"]
    )
    # Everything known about Acme Corp in team:core now answers under one subject.
    core = client.facts([CORE], subject="Acme Corp")["edges"]
    assert {e["node"]["predicate"] for e in core} == {"headquartered_in", "ceo", "customer_since"}
    assert client.facts([CORE], subject="Acme Corp.")["edges"] == []
    # The past never changes: asked as of before the run, each name answers what it did.
    assert answers_in(client, as_of=before_at) == before
    never = client.history("Acme Corp", "customer_since", [CORE], as_of=before_at)
    assert never["versions"] == []
    then = client.history("Acme Corp.", "customer_since", [CORE], as_of=before_at)
    assert [(v["id"], v["status"]) for v in then["versions"]] == [(ids["since"], "ACTIVE")]
    now = client.history("Acme Corp", "customer_since", [CORE])
    assert [v["id"] for v in now["versions"]] == [copy_id]
    # Never across scopes: "Acme Corporation" lives in team:ops only.
    ops = client.fact(ids["ops"])
    assert ops and ops["subject"] == "acme corporation"
    # Never across tenants.
    theirs = other.fact(other_id)
    assert theirs and theirs["subject"] == "acme corp"

    proposals = analyst.execute(Q_PROPOSALS, {"s": [CORE, OPS]})["entityMergeProposals"]
    assert [(p["entityA"], p["entityB"]) for p in proposals] == [("new york", "new york city")]
    assert 0.7 <= proposals[0]["score"] < 0.9 and proposals[0]["runId"] == done["id"]
    assert (
        make_client(f"{tenant}-b", "analyst").execute(Q_PROPOSALS, {"s": [CORE]})[
            "entityMergeProposals"
        ]
        == []
    )

    admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert answers_in(client) == before
    back = client.fact(ids["since"])
    assert back and back["subject"] == "acme corp." and back["subjectName"] == "Acme Corp."
    assert analyst.execute(Q_PROPOSALS, {"s": [CORE]})["entityMergeProposals"] == []


def answers_in(client: GraphMemoryClient, as_of: str | None = None) -> list[tuple[Any, ...]]:
    edges = client.facts([CORE, OPS], first=200, as_of=as_of)["edges"]
    return sorted(
        (n["id"], n["subject"], n["predicate"], n["object"], n["status"])
        for n in (e["node"] for e in edges)
    ) + answers(client, as_of=as_of)


def test_a_merge_rolls_back_after_other_writes_to_its_scope(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Someone wrote the scope since the run (the rollback is not quiet: no journal is
    trusted, the touched slots are recomputed): the copies still go, the versions reopen,
    and the later write stays."""
    ids = _build(client)
    before = answers_in(client)
    done = _run(admin, [CORE, OPS])
    later = _facts(client, CORE, [("Boreal Motors", "founded_in", "1990", "ONE")])[0]
    admin.execute(M_ROLLBACK, {"id": done["id"]})
    after = answers_in(client)
    assert [a for a in after if a[0] != later] == before
    back = client.fact(ids["since"])
    assert back and back["status"] == "ACTIVE" and back["subject"] == "acme corp."
    assert client.facts([CORE], subject="Acme Corp.")["edges"]
    kept = {e["node"]["predicate"] for e in client.facts([CORE], subject="Acme Corp")["edges"]}
    assert kept == {"headquartered_in", "ceo"}


def test_a_merged_copy_goes_with_its_contributor(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Forgetting the contributor of a carried-over version removes its copy too: the copy
    cites the same episodes."""
    ids = _build(client)
    _run(admin, [CORE, OPS])
    since = client.fact(ids["since"])
    assert since and since["retractReason"]
    copy_id = since["retractReason"].rsplit("continued as ", 1)[1]
    assert client.fact(copy_id)
    out = admin.forget_contributor("alice")
    assert out["state"] == "DONE" and out["factVersionsDeleted"] >= 8, out
    assert client.fact(copy_id) is None and client.fact(ids["since"]) is None
    assert client.facts([CORE], subject="Acme Corp")["edges"] == []
    assert client.facts([CORE], subject="Acme Corp.")["edges"] == []


def _told(client: GraphMemoryClient, user: str, rows: list[tuple[str, str, str]]) -> list[str]:
    ep = client.record_episode(**episode(user, scope=CORE))
    out = client.assert_facts(
        [fact(s, p, o, [ep], scope=CORE, cardinality="ONE") for s, p, o in rows]
    )
    assert out["accepted"] == len(rows), out
    return [r["factId"] for r in out["results"]]


def _copy_of(client: GraphMemoryClient, fact_id: str) -> str:
    found = client.execute("query($id: ID!) { fact(id: $id) { mergedInto } }", {"id": fact_id})
    copy: str = found["fact"]["mergedInto"]
    assert copy
    return copy


def test_a_chain_carried_over_stays_a_chain_and_an_absorbed_entity_is_not_merged_again(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    _told(
        client,
        "alice",
        [
            ("Zeta Labs", "headquartered_in", "Oslo"),
            ("Zeta Labs", "founded_in", "2001"),
            ("Zeta Labs", "industry", "robotics"),
        ],
    )
    (ann,) = _told(client, "alice", [("Zeta Labs.", "ceo", "Ann Lee")])
    (bob,) = _told(client, "carol", [("Zeta Labs.", "ceo", "Bob Stone")])
    done = _run(admin, [CORE])
    assert {c["name"]: c["value"] for c in done["steps"][0]["counts"]}["facts_moved"] == 2
    ann_copy, bob_copy = _copy_of(client, ann), _copy_of(client, bob)
    older = client.fact(ann_copy)
    assert older and older["supersededBy"] == bob_copy and older["subject"] == "zeta labs"
    history = client.history("Zeta Labs", "ceo", [CORE])["versions"]
    assert [v["id"] for v in history] == [ann_copy, bob_copy]
    # The absorbed name keeps only its retracted history: a second run finds nothing to merge.
    again = _run(admin, [CORE])
    assert {c["name"]: c["value"] for c in again["steps"][0]["counts"]}["merged"] == 0
    proposals = analyst.execute(Q_PROPOSALS, {"s": [CORE]})["entityMergeProposals"]
    assert all("zeta labs." not in (p["entityA"], p["entityB"]) for p in proposals)

    # Someone else tells the carried-over claim again; its first teller is forgotten: the copy
    # stays, and neither it nor its audit trail names the excised original any more.
    _told(client, "dave", [("Zeta Labs", "ceo", "Bob Stone")])
    out = admin.forget_contributor("carol")
    assert out["state"] == "DONE", out
    assert client.fact(bob) is None
    kept = client.execute(
        "query($id: ID!) { fact(id: $id) { status mergedFrom subjectMergedFrom } }",
        {"id": bob_copy},
    )["fact"]
    assert kept == {"status": "ACTIVE", "mergedFrom": None, "subjectMergedFrom": "zeta labs."}
    trail = analyst.audit_log(target=bob_copy, first=100)["edges"]
    assert trail and not any(bob in json.dumps(e["node"]) for e in trail)


def test_names_spelled_alike_are_compared_whatever_their_vectors_say(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    # The local embedder puts "ibm" / "i.b.m." 0.34 apart, below kNN's cutoff: the spelling
    # alone makes them candidates, one name spelled two ways merged; a lone word and that
    # word with a legal form (a city, a company) proposed for review.
    _facts(
        client,
        CORE,
        [
            ("IBM", "headquartered_in", "Armonk", "ONE"),
            ("IBM", "ceo", "Arvind Krishna", "ONE"),
            ("I.B.M.", "founded", "1911", "ONE"),
            ("Paris", "population", "2 million", "ONE"),
            ("Paris Inc", "industry", "perfume", "ONE"),
        ],
    )
    done = _run(admin, [CORE])
    counts = {c["name"]: c["value"] for c in done["steps"][0]["counts"]}
    assert (counts["merged"], counts["facts_moved"], counts["proposed"]) == (1, 1, 1), done
    founded = client.facts([CORE], subject="IBM", predicate="founded")["edges"]
    assert [e["node"]["object"] for e in founded] == ["1911"]
    (p,) = analyst.execute(Q_PROPOSALS, {"s": [CORE]})["entityMergeProposals"]
    assert {p["nameA"], p["nameB"]} == {"Paris", "Paris Inc"} and 0.7 <= p["score"] < 0.9


def test_a_merge_never_serves_a_carried_inference_over_a_higher_tier(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    # The tenant's system-tier "gold" for Acme Corp; the agent's inference "bronze", told in
    # three sessions about "ACME Corp." (no conflict at write time: another name). The merge
    # carries it into Acme Corp's slot as a candidate held back and flagged for a reviewer:
    # "gold" stays the answer, as the write rule would have kept it.
    ep = admin.record_episode(**episode("ops", "s0", scope=CORE, source="system"))
    ruled = admin.assert_facts(
        [
            fact(
                "Acme Corp",
                "support_tier",
                "gold",
                [ep],
                scope=CORE,
                source="system",
                cardinality="ONE",
            )
        ]
    )
    assert ruled["accepted"] == 1, ruled
    for user, session in (("u1", "s1"), ("u2", "s2"), ("u3", "s3")):
        e = client.record_episode(**episode(user, session, scope=CORE))
        out = client.assert_facts(
            [
                fact(
                    "ACME Corp.",
                    "support_tier",
                    "bronze",
                    [e],
                    scope=CORE,
                    source="conversation",
                    cardinality="ONE",
                )
            ]
        )
        assert out["accepted"] == 1, out
    done = _run(admin, [CORE])
    assert done["status"] == "APPLIED", done
    served = client.facts([CORE], subject="Acme Corp", predicate="support_tier")["edges"]
    assert [e["node"]["object"] for e in served] == ["gold"]
    queue = analyst.review_queue([CORE])
    (held,) = [q["fact"] for q in queue if q["fact"]["object"] == "bronze"]
    assert held["status"] == "CANDIDATE" and held["needsVerification"]
    # A reviewer's approval serves it; the rollback gives everything back.
    back = admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert back["rollbackConsolidation"]["status"] == "ROLLED_BACK"
    dotted = client.facts([CORE], subject="ACME Corp.", predicate="support_tier")["edges"]
    assert [(e["node"]["object"], e["node"]["status"]) for e in dotted] == [("bronze", "ACTIVE")]
