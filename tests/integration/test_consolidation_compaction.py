"""Episode compaction: episodes older than 30 days that GDS (kNN similarity graph, Leiden
communities) finds to be about one topic become a digest episode with DERIVED_FROM
provenance to each member; the digest replaces its members in recall; a rollback undoes it;
forgetting a contributor reaches through the digest."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact
from tests.integration.consolidation_helpers import M_ROLLBACK, M_RUN

SCOPE = "team:support"
OLD = datetime.now(UTC) - timedelta(days=45)
REFUNDS = [
    ("alice", "Customer asked for a refund of a damaged blender; refund approved to card."),
    ("alice", "Refund request for a broken blender that arrived damaged; refunded to card."),
    ("bob", "Customer wanted their money back for a damaged blender; card refund issued."),
]
PASSWORDS = [
    ("alice", "User could not log in and asked to reset the account password by email."),
    ("alice", "Password reset: the user was locked out of the account and got a reset email."),
]


def _episodes(client: GraphMemoryClient, rows: list[tuple[str, str]]) -> list[str]:
    return [
        client.record_episode(
            **episode(user, scope=SCOPE, summary=text, startedAt=OLD, endedAt=OLD)
        )
        for user, text in rows
    ]


def _graph(settings: Settings, query: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    async def go() -> list[dict[str, Any]]:
        db = Database.connect(settings.neo4j())
        try:
            return await db.run_raw(query, params)
        finally:
            await db.close()

    return asyncio.run(go())


def _digests(settings: Settings, tenant: str) -> dict[str, list[str]]:
    rows = _graph(
        settings,
        "MATCH (d:Episode {tenant: $t, digest: true})-[:DERIVED_FROM]->(m:Episode) "
        "RETURN d.id AS id, collect(m.id) AS members",
        {"t": tenant},
    )
    return {r["id"]: sorted(r["members"]) for r in rows}


def _recalled(client: GraphMemoryClient, query: str, as_of: datetime | None = None) -> list[str]:
    items = client.recall(query, [SCOPE], k=10, as_of=as_of)["items"]
    return [i["id"] for i in items if i["kind"] == "EPISODE"]


def _compact(admin: GraphMemoryClient) -> Any:
    return admin.execute(M_RUN, {"s": [SCOPE], "steps": ["COMPACTION"], "dry": False})[
        "runConsolidation"
    ]


def test_a_topic_is_compacted_with_provenance_and_a_rollback_undoes_it(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    refunds = _episodes(client, REFUNDS)
    passwords = _episodes(client, PASSWORDS)
    now = datetime.now(UTC)
    recent = client.record_episode(
        **episode("alice", scope=SCOPE, summary=REFUNDS[0][1], startedAt=now, endedAt=now)
    )
    before = datetime.now(UTC)
    time.sleep(0.05)
    done = _compact(admin)
    (step,) = done["steps"]
    counts = {c["name"]: c["value"] for c in step["counts"]}
    digests = _digests(settings, tenant)
    assert counts == {"digests": len(digests), "episodes_compacted": 5}, (counts, digests)
    assert sorted(digests.values()) == sorted([sorted(refunds), sorted(passwords)])
    assert {c["action"] for c in done["changes"]} == {"compact_episodes"}
    refund_digest = next(d for d, m in digests.items() if m == sorted(refunds))

    got = _recalled(client, "refund for a damaged blender")
    assert refund_digest in got
    # Coarse to fine: a member comes back only through its digest, as the evidence behind the
    # summary (one member, the best match; via names the digest; at no less than its own
    # score, so a member that matches better than the summary goes first).
    items = client.recall("refund for a damaged blender", [SCOPE], k=10)["items"]
    members = [i for i in items if i["id"] in refunds]
    assert [m["via"] for m in members] == [refund_digest], members
    assert members[0]["viaText"] and members[0]["score"]["context"] >= 0
    # The digest's provenance is its members, each with its contributor.
    (summary,) = [i for i in items if i["id"] == refund_digest]
    told = [(e["episodeId"], e["userId"]) for e in summary["provenance"]["episodes"]]
    assert sorted(told) == sorted(zip(refunds, [u for u, _ in REFUNDS], strict=True))
    assert recent in got  # younger than 30 days: not compacted
    # Asked as of before the run, recall answers with the members (no digest existed yet).
    earlier = _recalled(client, "refund for a damaged blender", as_of=before)
    assert set(refunds) <= set(earlier) and refund_digest not in earlier

    back = admin.execute(M_ROLLBACK, {"id": done["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK"
    assert _digests(settings, tenant) == {}
    # The members served again are what the rollback restored.
    (run,) = admin.execute("{ consolidationRuns { restored } }", {})["consolidationRuns"]
    assert run["restored"] == sum(len(m) for m in digests.values())
    assert set(refunds) <= set(_recalled(client, "refund for a damaged blender"))

    # Compacted again, and a fact written on the digest: a rollback would delete its source,
    # so it is refused.
    again = _compact(admin)
    digest = next(d for d, m in _digests(settings, tenant).items() if m == sorted(refunds))
    cited = client.assert_facts(
        [fact("blender refunds", "paid_to", "card", [digest], scope=SCOPE, cardinality="ONE")]
    )["results"][0]
    assert cited["ok"], cited
    with pytest.raises(GraphMemoryClientError) as refused:
        admin.execute(M_ROLLBACK, {"id": again["id"]})
    assert refused.value.code == "CONFLICT" and digest in str(refused.value)
    assert digest in _digests(settings, tenant)


def test_forgetting_a_contributor_reaches_through_the_digest(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    refunds = _episodes(client, REFUNDS)
    _compact(admin)
    digests = _digests(settings, tenant)
    assert sorted(refunds) in digests.values()
    digest = next(d for d, m in digests.items() if m == sorted(refunds))
    # A fact resting on the digest rests on its members' words: alice's stay behind it.
    cited = client.assert_facts(
        [fact("blender refunds", "paid_to", "card", [digest], scope=SCOPE, cardinality="ONE")]
    )["results"][0]
    assert cited["ok"], cited
    before = client.fact(cited["factId"])
    admin.forget_contributor("bob")
    kept = client.fact(cited["factId"])
    assert kept and before and kept["status"] == "ACTIVE"
    # One piece of evidence stays one: a member alice told (the latest; these started
    # together), at the digest's weight (its two members as two sessions would have raised
    # the fact's confidence).
    (member,) = [p["episodeId"] for p in kept["provenance"]]
    assert member in refunds[:2]
    assert kept["confidence"] == before["confidence"]
    left = _digests(settings, tenant)
    assert all(refunds[2] not in m for m in left.values())
    assert not any(set(refunds[:2]) <= set(m) for m in left.values())  # its digest is gone
    assert set(refunds[:2]) <= set(_recalled(client, "refund for a damaged blender"))
    text = _graph(
        settings,
        "MATCH (d:Episode {tenant: $t, digest: true}) RETURN d.summary AS s",
        {"t": tenant},
    )
    assert not any("money back" in r["s"] for r in text)
    # The audit trail of the digest keeps who/when/which action, not its members' ids (bob's
    # episode among them: an id of something forgotten).
    trail = _graph(
        settings,
        "MATCH (a:AuditEvent {tenant: $t, target_id: $d}) RETURN a.after AS after",
        {"t": tenant, "d": digest},
    )
    assert trail and all(r["after"] is None for r in trail), trail


def test_a_scope_whose_episodes_are_alike_to_none_has_no_communities(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # Two old episodes about unrelated things: kNN links neither to the other, so the
    # similarity graph has no relationship, and Leiden (which fails on such a graph) must not
    # be asked.
    _episodes(
        client,
        [
            ("a0", "User a0 said she moved from Paris to Berlin and likes jazz music number 0."),
            ("a0", "A perfectly fine summary of something that happened today."),
        ],
    )
    for dry in (True, False):
        done = admin.execute(M_RUN, {"s": [SCOPE], "steps": ["COMPACTION"], "dry": dry})[
            "runConsolidation"
        ]
        assert done["status"] == ("DRY_RUN" if dry else "APPLIED"), done
        (step,) = done["steps"]
        assert {c["name"]: c["value"] for c in step["counts"]}.get("digests", 0) == 0, step
    assert _digests(settings, tenant) == {}


def test_a_procedure_verdict_told_in_a_digest_keeps_its_run_from_rolling_back(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """A rollback deletes its run's digests; a procedure's verdict told in one since would go
    with it (its counts silently changed), so the rollback is refused, as for a fact citing
    the digest."""
    refunds = _episodes(client, REFUNDS)
    _episodes(client, PASSWORDS)
    done = _compact(admin)
    digest = next(d for d, m in _digests(settings, tenant).items() if m == sorted(refunds))
    steps = ["Check the order", "Refund it to the card"]
    proc = admin.upsert_procedure("refund", "support_agent", steps, SCOPE)["procedure"]
    admin.record_procedure_outcome(proc["id"], True, digest)
    with pytest.raises(GraphMemoryClientError) as refused:
        admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert refused.value.code == "CONFLICT" and digest in str(refused.value)
    assert digest in _digests(settings, tenant)
