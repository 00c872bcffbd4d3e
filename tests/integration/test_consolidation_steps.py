"""What each consolidation step does to the answers agents get: an elapsed TTL demoted, a
corroborated candidate promoted, case/whitespace duplicates merged with nothing lost, and a
contradiction across scopes flagged with its reason; scopes outside the run are untouched."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.domain import utcnow
from graph_memory.settings import Settings
from tests.integration.conftest import elapse_ttl, episode, fact
from tests.integration.consolidation_helpers import (
    CORE,
    OPS,
    SCOPES,
    answers,
    build_store,
    run,
)


def _served(client: GraphMemoryClient, predicate: str) -> list[str]:
    edges = client.facts(SCOPES, predicate=predicate)["edges"]
    return sorted(e["node"]["object"] for e in edges)


def test_expiry_and_promotion_steps(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    # Outside the run's scopes: due too, but left for a run (or sweep) that covers it.
    other_ep = client.record_episode(**episode("erin", "s9", scope="team:other"))
    out = client.assert_facts(
        [fact("Other team", "sprint_goal", "x", [other_ep], scope="team:other", ttlDays=1)]
    )
    other = out["results"][0]["factId"]
    elapse_ttl(settings, tenant, other)
    assert "Linear" not in _served(client, "uses")  # a candidate is not served

    done = run(admin, steps=["EXPIRY", "PROMOTION"])
    assert [st["step"] for st in done["steps"]] == ["EXPIRY", "PROMOTION"]
    expired = client.fact(s.expiring)
    assert expired and expired["status"] == "EXPIRED" and expired["needsVerification"]
    assert "TTL of 1 days elapsed" in expired["verificationReason"]
    conclusion = client.fact(s.conclusion)
    assert conclusion and conclusion["needsVerification"]
    assert s.expiring in conclusion["verificationReason"]
    promoted = client.fact(s.candidate)
    assert promoted and promoted["status"] == "ACTIVE"
    assert "Linear" in _served(client, "uses")
    untouched = client.fact(other)
    assert untouched and untouched["status"] == "ACTIVE"  # team:other was not in the run
    # The duplicate and the contradiction are still there: their steps did not run.
    assert _served(client, "uses").count("Jira") + _served(client, "uses").count("  JIRA ") == 2


def test_dedupe_merges_case_and_whitespace_duplicates_keeping_all_evidence(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    assert sorted(_served(client, "uses")) == ["  JIRA ", "Jira"]  # the candidate waits
    evidence_before = {
        p["episodeId"]
        for i in (s.jira, s.jira_dup)
        for p in (client.fact(i) or {}).get("provenance", [])
    }
    own_before = {p["episodeId"] for p in (client.fact(s.jira) or {})["provenance"]}
    then = utcnow().isoformat()
    past = answers(client, as_of=then)
    done = run(admin, steps=["DEDUPE"])
    counts = {c["name"]: c["value"] for c in done["steps"][0]["counts"]}
    assert counts == {"groups": 1, "merged": 1}
    # Evidence moved onto the kept version was linked at the run: as of before it, the
    # kept version's confidence and provenance are what they were.
    assert answers(client, as_of=then) == past
    at_then = client.facts(SCOPES, as_of=then, first=200)["edges"]
    kept_then = next(e["node"] for e in at_then if e["node"]["id"] == s.jira)
    assert {p["episodeId"] for p in kept_then["provenance"]} == own_before
    assert _served(client, "uses") == ["Jira"]  # the better supported one stays
    kept = client.fact(s.jira)
    assert kept and kept["status"] == "ACTIVE"
    assert {p["episodeId"] for p in kept["provenance"]} == evidence_before  # nothing lost
    assert len({p["sessionId"] for p in kept["provenance"]}) == 3  # three sessions now
    merged = client.fact(s.jira_dup)
    assert merged and merged["status"] == "RETRACTED"
    assert s.jira in merged["retractReason"] and merged["retractedBy"] == "consolidation"
    assert merged["provenance"]  # the merged version still cites its own evidence


def test_dedupe_merges_only_one_claim_told_twice_and_keeps_the_higher_tier(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Finn as CEO in 2015-2020 and again from 2023 are two claims: not merged, the current
    one still answers. Of one claim told at two tiers the system-tier version survives, so
    an agent still cannot override it."""
    e0 = client.record_episode(**episode("uma", "s-0", scope=CORE))
    e1 = client.record_episode(**episode("uma", "s-1", scope=CORE))
    told = client.assert_facts(
        [
            fact(
                "Erin Co",
                "ceo_x",
                "Finn",
                [e0],
                scope=CORE,
                cardinality="ONE",
                validFrom="2015-01-01T00:00:00Z",
                validTo="2020-01-01T00:00:00Z",
            ),
            fact("Erin Co", "ceo_x", "finn", [e1], scope=CORE, validFrom="2023-01-01T00:00:00Z"),
        ]
    )
    assert told["accepted"] == 2, told  # fmt: skip
    sys_ep = admin.record_episode(**episode("ops", "s-sys", scope=CORE, source="system"))
    admin.assert_facts(
        [fact("Stark Industries", "hq_x", "New York", [sys_ep], scope=CORE, source="system",
              cardinality="ONE")]
    )["results"][0]["factId"]  # fmt: skip
    users = [client.record_episode(**episode(u, f"s-{u}", scope=CORE)) for u in ("vic", "wes")]
    user = client.assert_facts(
        [fact("STARK INDUSTRIES.", "hq_x", " new  york ", users, scope=CORE)]
    )
    assert user["accepted"] == 1, user
    # Told of two spellings of one name: the entity merge carries both into one slot.
    admin.execute(
        'mutation { runConsolidation(scopes: ["team:core"], steps: [ENTITIES, DEDUPE]) { id } }'
    )
    now = client.facts([CORE], predicate="ceo_x")["edges"]
    assert [e["node"]["object"] for e in now] == ["finn"]
    served = client.facts([CORE], predicate="hq_x")["edges"]
    assert [e["node"]["tier"] for e in served] == ["SYSTEM"], [
        (e["node"]["subject"], e["node"]["status"], e["node"]["validFrom"], e["node"]["object"])
        for e in served
    ]
    # Told apart by a sentence's full stop, or naming two spellings of one entity: one claim.
    e3 = client.record_episode(**episode("yul", "s-y", scope=CORE))
    e4 = client.record_episode(**episode("yul", "s-z", scope=CORE))
    apart = client.assert_facts(
        [
            fact("Bob", "likes", "jazz", [e3], scope=CORE, cardinality="MANY"),
            fact("Bob", "likes", "Jazz.", [e4], scope=CORE),
            fact(
                "Bob",
                "works_for",
                "Acme Corp",
                [e3],
                scope=CORE,
                cardinality="MANY",
                objectIsEntity=True,
            ),
            fact("Bob", "works_for", "Acme Corporation", [e4], scope=CORE, objectIsEntity=True),
            fact("Acme Corp", "industry", "anvils", [e3], scope=CORE, cardinality="ONE"),
            fact("Acme Corporation", "industry", "anvils", [e4], scope=CORE),
        ]
    )
    assert apart["accepted"] == 6, apart  # fmt: skip
    admin.execute(
        'mutation { runConsolidation(scopes: ["team:core"], steps: [ENTITIES, DEDUPE]) { id } }'
    )
    likes = client.facts([CORE], subject="Bob", predicate="likes")["edges"]
    assert len(likes) == 1 and len(likes[0]["node"]["provenance"]) == 2, likes
    works = client.facts([CORE], subject="Bob", predicate="works_for")["edges"]
    assert len(works) == 1 and len(works[0]["node"]["provenance"]) == 2, works
    e2 = client.record_episode(**episode("xan", "s-x", scope=CORE))
    over = client.assert_facts([fact("Stark Industries", "hq_x", "Boston", [e2], scope=CORE)])[
        "results"
    ]
    assert over[0]["error"]["code"] == "TIER_CONFLICT", over


def test_a_disagreement_an_entity_merge_settled_waits_for_a_reviewer(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    """Two spellings of one company told two CEOs: after the merge one answers, and the
    other claim, which answers nothing now though nobody superseded it, is in the review
    queue with the reason; the answer that won stays served."""
    e0 = client.record_episode(**episode("uma", "s-0", scope=CORE))
    e1 = client.record_episode(**episode("uma", "s-1", scope=CORE))
    told = client.assert_facts(
        [
            fact("Acme Corp", "ceo", "Jane Roe", [e0], scope=CORE, cardinality="ONE"),
            fact("Acme Corp", "founded", "1990", [e0], scope=CORE, cardinality="ONE"),
            fact("ACME Corp.", "ceo", "John Doe", [e1], scope=CORE),
        ]
    )
    assert told["accepted"] == 3, told
    admin.execute(
        'mutation { runConsolidation(scopes: ["team:core"], steps: [ENTITIES, CONTRADICTIONS])'
        " { id } }"
    )
    # One answer: the two claims were said, recorded and numbered alike (one batch, each
    # version 1 of its own name's slot); the rule breaks the tie, it does not serve both.
    (answer,) = client.facts([CORE], predicate="ceo")["edges"]
    assert not answer["node"]["needsVerification"]
    queued = [i["fact"] for i in analyst.review_queue([CORE])]
    lost = [f for f in queued if f["predicate"] == "ceo"]
    assert len(lost) == 1 and lost[0]["object"] != answer["node"]["object"], queued


def test_a_merge_disagreement_of_claims_told_without_a_start_in_turn_is_flagged(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    """Alice told as Acme Corp's CEO, Bob as ACME Corp.'s a session later, neither with a
    start: after the merge Bob answers and Alice, who answers only before Bob was said, is in
    the review queue (a claim with a start given that still answers its years was succeeded,
    not contradicted: test_contradictions_are_answers_that_disagree_not_words_that_differ)."""
    e0 = client.record_episode(
        **episode(
            "uma",
            "s-0",
            scope=CORE,
            startedAt="2026-01-01T00:00:00+00:00",
            endedAt="2026-01-01T01:00:00+00:00",
        )
    )
    e1 = client.record_episode(
        **episode(
            "uma",
            "s-1",
            scope=CORE,
            startedAt="2026-02-01T00:00:00+00:00",
            endedAt="2026-02-01T01:00:00+00:00",
        )
    )
    one = client.assert_facts(
        [fact("Acme Corp", "ceo", "Alice Smith", [e0], scope=CORE, cardinality="ONE")]
    )
    two = client.assert_facts([fact("ACME Corp.", "ceo", "Bob Jones", [e1], scope=CORE)])
    assert one["accepted"] == two["accepted"] == 1
    admin.execute(
        'mutation { runConsolidation(scopes: ["team:core"], steps: [ENTITIES, CONTRADICTIONS])'
        " { id } }"
    )
    (answer,) = client.facts([CORE], predicate="ceo")["edges"]
    assert answer["node"]["object"] == "Bob Jones" and not answer["node"]["needsVerification"]
    lost = [i["fact"] for i in analyst.review_queue([CORE]) if i["fact"]["predicate"] == "ceo"]
    assert [f["object"] for f in lost] == ["Alice Smith"], lost


def _merged_ceo_disagreement(client: GraphMemoryClient, admin: GraphMemoryClient) -> str:
    """Acme Corp told Alice as CEO in January, ACME Corp. Bob in February, then a run merged
    the names: Bob answers, Alice waits for a reviewer. Returns the run's id."""
    e0, e1 = (
        client.record_episode(
            **episode(
                "uma",
                f"s-{m}",
                scope=CORE,
                startedAt=f"2026-0{m}-01T00:00:00+00:00",
                endedAt=f"2026-0{m}-01T01:00:00+00:00",
            )
        )
        for m in (1, 2)
    )
    client.assert_facts(
        [fact("Acme Corp", "ceo", "Alice Smith", [e0], scope=CORE, cardinality="ONE")]
    )
    client.assert_facts([fact("ACME Corp.", "ceo", "Bob Jones", [e1], scope=CORE)])
    done = admin.execute(
        'mutation { runConsolidation(scopes: ["team:core"], steps: [ENTITIES, CONTRADICTIONS])'
        " { id } }"
    )
    return str(done["runConsolidation"]["id"])


def _ceo(client: GraphMemoryClient, **at: Any) -> list[tuple[str, str]]:
    edges = client.facts([CORE], predicate="ceo", **at)["edges"]
    return [(e["node"]["object"], e["node"]["status"]) for e in edges]


def test_approving_the_claim_a_merge_silenced_makes_it_the_answer(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    """The reviewer keeps Alice (README: a reviewer keeps one side with approveFact): from the
    approval on she answers and Bob's claim is turned down by the same decision; a read as of
    before the approval still answers Bob, the audit trail names what the approval turned
    down, and the run can no longer be rolled back over the decision."""
    run_id = _merged_ceo_disagreement(client, admin)
    (alice,) = [i["fact"] for i in analyst.review_queue([CORE]) if i["fact"]["predicate"] == "ceo"]
    (bob,) = client.facts([CORE], predicate="ceo")["edges"]
    bob_id = bob["node"]["id"]
    before = utcnow()
    approved = analyst.approve_fact(alice["id"])
    assert approved["status"] == "ACTIVE" and not approved["needsVerification"], approved
    assert _ceo(client) == [("Alice Smith", "ACTIVE")]
    assert _ceo(client, as_of=before) == [("Bob Jones", "ACTIVE")]
    ended = client.fact(bob_id)
    assert ended and ended["status"] == "REJECTED", ended
    assert not [i for i in analyst.review_queue([CORE]) if i["fact"]["predicate"] == "ceo"]
    (event,) = admin.audit_log(target=alice["id"], action="approve")["edges"]
    assert bob_id in (event["node"]["after"] or ""), event
    (down,) = admin.audit_log(target=bob_id, action="reject")["edges"]
    assert down["node"]["actor"] == event["node"]["actor"], down
    assert alice["id"] in (down["node"]["reason"] or ""), down
    with pytest.raises(GraphMemoryClientError) as refused:
        admin.execute(f'mutation {{ rollbackConsolidation(runId: "{run_id}") {{ id }} }}')
    assert refused.value.code == "CONFLICT", refused.value


def test_rejecting_the_claim_a_merge_silenced_keeps_the_answer(
    client: GraphMemoryClient, admin: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    """Turned down, the silenced claim is rejected and the answer that won stays served."""
    _merged_ceo_disagreement(client, admin)
    (alice,) = [i["fact"] for i in analyst.review_queue([CORE]) if i["fact"]["predicate"] == "ceo"]
    rejected = analyst.reject_fact(alice["id"], "Bob took over in February")
    assert rejected["status"] == "REJECTED"
    assert _ceo(client) == [("Bob Jones", "ACTIVE")]


def test_contradictions_across_scopes_are_flagged_with_the_reason(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    s = build_store(settings, tenant, client, admin)
    done = run(admin, steps=["CONTRADICTIONS"])
    assert done["steps"][0]["counts"] == [{"name": "flagged", "value": 2}]
    core, ops = client.fact(s.core_day), client.fact(s.ops_day)
    assert core and ops and core["needsVerification"] and ops["needsVerification"]
    assert "contradiction" in core["verificationReason"]
    # Each names its own claim and the other side by id only (the other's words and scope
    # would outlive a forget of its contributor on this fact).
    assert s.ops_day in core["verificationReason"] and CORE in core["verificationReason"]
    assert s.core_day in ops["verificationReason"] and OPS in ops["verificationReason"]
    assert OPS not in core["verificationReason"] and "Thursday" not in core["verificationReason"]
    flagged = client.facts(SCOPES, needsVerification=True)["edges"]
    assert {s.core_day, s.ops_day} <= {e["node"]["id"] for e in flagged}
    # Flagged once: a second run does not flag the same disagreement again.
    assert run(admin, steps=["CONTRADICTIONS"])["changes"] == []
    # A run over one scope sees no disagreement (the other side is outside it).
    one = admin.execute(
        'mutation { runConsolidation(scopes: ["team:ops"], steps: [CONTRADICTIONS])'
        " { changes { targetId } } }"
    )["runConsolidation"]
    assert one["changes"] == []


def test_contradictions_are_answers_that_disagree_not_words_that_differ(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    """Periods that do not overlap disagree on nothing; a person's own preference beside the
    tenant's system-tier default or a team's is theirs to make; against a higher tier only the
    lower side is flagged, so the tenant's fact stays served to everyone; a fact waiting for
    review is not flagged again."""
    team = client.record_episode(**episode("ann", "s-team", scope=OPS))
    assert client.assert_facts(
        [
            fact("Support rota", "lead_x", "Ann", [team], scope=OPS, cardinality="ONE",
                 validTo="2027-01-01T00:00:00Z"),
        ]
    )["accepted"] == 1  # fmt: skip
    ben = client.record_episode(**episode("ben", "s-ben", scope="user:ben"))
    assert client.assert_facts(
        [
            fact("Support rota", "lead_x", "Ben", [ben], scope="user:ben",
                 validFrom="2027-01-01T00:00:00Z"),
        ]
    )["accepted"] == 1  # fmt: skip
    house = admin.record_episode(**episode("ops", "s-sys", scope="tenant", source="system"))
    default = admin.assert_facts(
        [fact("refunds", "processing_days", "14", [house], scope="tenant", source="system",
              cardinality="ONE")]
    )["results"][0]["factId"]  # fmt: skip
    own = client.record_episode(**episode("cy", "s-cy", scope="user:cy"))
    pref = client.assert_facts([fact("refunds", "processing_days", "30", [own], scope="user:cy")])[
        "results"
    ][0]["factId"]
    # (An inference would have been refused at its write: it may not contradict the tenant.)
    told = client.record_episode(**episode("dee", "s-dee", scope=CORE))
    team_says = client.assert_facts([fact("refunds", "processing_days", "7", [told], scope=CORE)])[
        "results"
    ][0]["factId"]
    done = admin.execute(
        "mutation { runConsolidation(scopes: "
        '["team:ops", "user:ben", "tenant", "user:cy", "team:core"], steps: [CONTRADICTIONS])'
        " { changes { targetId } } }"
    )["runConsolidation"]
    # Only the team's answer against the system-tier default is a disagreement to review:
    # Cy's own answer beside the team's flags neither side.
    assert [c["targetId"] for c in done["changes"]] == [team_says]
    for fid in (default, pref):
        kept = client.fact(fid)
        assert kept and not kept["needsVerification"], kept
    reason = client.fact(team_says)["verificationReason"]  # type: ignore[index]
    # Another team disagrees later: its side is flagged; the team already waiting for review
    # is not flagged again (nor its reason replaced) by the second run.
    ops = client.record_episode(**episode("eve", "s-eve", scope=OPS))
    ops_says = client.assert_facts([fact("refunds", "processing_days", "10", [ops], scope=OPS)])[
        "results"
    ][0]["factId"]
    again = admin.execute(
        'mutation { runConsolidation(scopes: ["team:ops", "tenant", "user:cy", "team:core"],'
        " steps: [CONTRADICTIONS]) { changes { targetId } } }"
    )["runConsolidation"]
    assert [c["targetId"] for c in again["changes"]] == [ops_says]
    assert client.fact(team_says)["verificationReason"] == reason  # type: ignore[index]
    served = client.recall("refund processing days", ["tenant", "user:zed"], kinds=["FACT"])
    assert default in [i["id"] for i in served["items"]]


def test_contradictions_wait_in_the_review_queue_until_a_reviewer_decides(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    s = build_store(settings, tenant, client, admin)
    before = {i["fact"]["id"] for i in admin.review_queue(SCOPES)}
    assert not {s.core_day, s.ops_day} & before  # nothing flagged yet: only candidates
    run(admin, steps=["CONTRADICTIONS"])
    queue = admin.review_queue(SCOPES)
    # Flagged facts come first, each with why, ahead of candidates awaiting corroboration.
    flagged = [i for i in queue if i["reason"] is not None]
    assert {i["fact"]["id"] for i in flagged} == {s.core_day, s.ops_day}
    assert queue[: len(flagged)] == flagged
    by_id = {i["fact"]["id"]: i for i in flagged}
    assert "contradiction" in by_id[s.core_day]["reason"]
    assert s.ops_day in by_id[s.core_day]["reason"]
    assert by_id[s.ops_day]["fact"]["status"] == "ACTIVE" and by_id[s.ops_day]["evidence"]
    then = utcnow().isoformat()
    # The reviewer keeps core's answer (verified: the flag clears, it stays active) and turns
    # ops' down (no longer served, kept in history with why).
    kept = admin.approve_fact(s.core_day)
    assert kept["status"] == "ACTIVE" and not kept["needsVerification"]
    dropped = admin.reject_fact(s.ops_day, "ops moved the meeting; core is right")
    assert dropped["status"] == "REJECTED" and not dropped["needsVerification"]
    assert not {s.core_day, s.ops_day} & {i["fact"]["id"] for i in admin.review_queue(SCOPES)}
    assert s.ops_day not in {e["node"]["id"] for e in client.facts(SCOPES)["edges"]}
    # As of before the decisions, both were flagged and served, as they stood then.
    past = {e["node"]["id"]: e["node"] for e in client.facts(SCOPES, as_of=then)["edges"]}
    assert past[s.core_day]["needsVerification"] and past[s.ops_day]["status"] == "ACTIVE"
    # Each decision is audited with the flag it settled.
    events = admin.execute(
        "query($t: String) { auditLog(filter: {target: $t}) "
        "{ edges { node { action before after } } } }",
        {"t": s.core_day},
    )["auditLog"]["edges"]
    approve = next(e["node"] for e in events if e["node"]["action"] == "approve")
    assert "contradiction" in approve["before"] and "needs_verification" in approve["after"]
    # Neither can be decided twice: an active fact without a flag is not awaiting review.
    with pytest.raises(GraphMemoryClientError) as twice:
        admin.approve_fact(s.core_day)
    assert twice.value.code == "CONFLICT" and "not awaiting review" in str(twice.value)
    with pytest.raises(GraphMemoryClientError) as again:
        admin.reject_fact(s.ops_day)
    assert again.value.code == "CONFLICT" and "not awaiting review" in str(again.value)
    # A settled disagreement is not raised again by the next run.
    assert run(admin, steps=["CONTRADICTIONS"])["changes"] == []


def test_a_reviewer_cannot_reject_a_flagged_fact_above_their_tier(
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
) -> None:
    """Rejecting a fact served as truth ends it, as a retraction does: the same tier rule."""
    ep = client.record_episode(**episode("erin", "s-admin", scope=OPS))
    written = admin.assert_facts(
        [fact("Core team", "on_call", "Erin", [ep], scope=OPS, source="admin", cardinality="ONE")]
    )["results"][0]
    policy = written["factId"]
    assert policy, written["error"]
    # Another admin's answer in another scope: equal tiers, so both sides are flagged.
    ep1 = client.record_episode(**episode("gus", "s-admin2", scope=CORE))
    rival = admin.assert_facts(
        [fact("Core team", "on_call", "Gus", [ep1], scope=CORE, source="admin", cardinality="ONE")]
    )["results"][0]
    assert rival["ok"], rival
    # A user's answer in a third scope: only this lower-tier side is flagged against them.
    ep2 = client.record_episode(**episode("finn", "s-user", scope="team:dev"))
    mine = client.assert_facts([fact("Core team", "on_call", "Finn", [ep2], scope="team:dev")])[
        "results"
    ][0]["factId"]
    admin.execute(
        "mutation { runConsolidation("
        'scopes: ["team:core", "team:ops", "team:dev"], steps: [CONTRADICTIONS]) { id } }'
    )
    queued = {i["fact"]["id"]: i for i in analyst.review_queue([CORE, OPS, "team:dev"])}
    assert {policy, rival["factId"], mine} <= set(queued)
    with pytest.raises(GraphMemoryClientError) as refused:
        analyst.reject_fact(policy, "wrong")
    assert refused.value.code == "TIER_CONFLICT"
    kept = client.fact(policy)
    assert kept and kept["status"] == "ACTIVE" and kept["needsVerification"]
    # The refusal is on record; the analyst may still end the user-tier side.
    conflicts = analyst.audit_log(target=policy, action="tier_conflict")["edges"]
    assert conflicts and "cannot reject" in conflicts[0]["node"]["reason"]
    assert analyst.reject_fact(mine, "Erin is on call")["status"] == "REJECTED"


def test_dedupe_leaves_no_moment_of_the_world_without_its_answer(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Told without a start, each version holds from its own telling: the survivor is the one
    that holds from the earliest, with the later ones' evidence, so what held on a day
    before the later tellings still answers."""

    def told(user: str, day: int) -> str:
        at = datetime(2026, 11, day, 10, tzinfo=UTC)
        return client.record_episode(
            **episode(user, f"s-{user}-{day}", scope=CORE, startedAt=at,
                      endedAt=at + timedelta(minutes=5))
        )  # fmt: skip

    early = told("ann", 1)
    later = [told("bo", 20), told("cy", 21)]
    first = client.assert_facts(
        [fact("Ann", "likes_x", "jazz", [early], scope=CORE, cardinality="MANY")]
    )["results"][0]["factId"]
    second = client.assert_facts([fact("Ann", "likes_x", "Jazz.", later, scope=CORE)])
    assert second["results"][0]["factId"] != first  # two versions of one claim

    def liked(day: int) -> list[str]:
        at = datetime(2026, 11, day, 12, tzinfo=UTC).isoformat()
        page = client.facts([CORE], subject="Ann", predicate="likes_x", valid_at=at)
        return [e["node"]["object"] for e in page["edges"]]

    assert liked(10) == ["jazz"]
    done = run(admin, steps=["DEDUPE"])
    counts = {c["name"]: c["value"] for c in done["steps"][0]["counts"]}
    assert counts["merged"] == 1, done
    assert liked(10) == ["jazz"] and liked(25) == ["jazz"]
    kept = client.fact(first)
    assert kept and kept["status"] == "ACTIVE"
    assert {p["episodeId"] for p in kept["provenance"]} == {early, *later}
