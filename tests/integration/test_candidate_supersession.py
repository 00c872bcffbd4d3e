"""A candidate (an inference one session made) links to the fact it would replace but ends it
only when promoted: by corroboration, a reviewer's approval or consolidation's PROMOTION.
Until then the fact stays ACTIVE in every read and its conclusions stay unflagged; a
rejection leaves it as it was; a rollback of the promotion or a forget of the one who wrote
the version between them gives it back."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.settings import Settings
from tests.integration.conftest import episode, fact
from tests.integration.consolidation_helpers import M_ROLLBACK, M_RUN
from tests.integration.forget_helpers import finish, held

TEAM = ["team:core"]


def _lead(client: GraphMemoryClient, obj: str, *sessions: tuple[str, str], **kw: Any) -> str:
    """A single-valued fact about the team, one episode per session; inferred unless told."""
    kw.setdefault("source", "conversation")
    subject = kw.pop("subject", "Core team")
    eps = [
        client.record_episode(**episode(user, session, scope="team:core", source=kw["source"]))
        for user, session in sessions
    ]
    out = client.assert_facts(
        [fact(subject, "led_by", obj, eps, cardinality="ONE", scope="team:core", **kw)]
    )
    assert out["accepted"] == 1, out
    return str(out["results"][0]["factId"])


def _leads(client: GraphMemoryClient, **kw: Any) -> list[str]:
    return [e["node"]["object"] for e in client.facts(TEAM, predicate="led_by", **kw)["edges"]]


def _status(client: GraphMemoryClient, fid: str) -> tuple[str, Any, Any]:
    f = client.fact(fid)
    assert f is not None
    return (f["status"], f["supersededAt"], f["needsVerification"])


def _supersedes(client: GraphMemoryClient, fid: str) -> str | None:
    """The version ``fid`` supersedes, or (a candidate) would supersede once promoted."""
    q = "query($id: ID!) { fact(id: $id) { supersedes { id } } }"
    linked = client.execute(q, {"id": fid})["fact"]["supersedes"]
    return None if linked is None else str(linked["id"])


def _held_back(client: GraphMemoryClient, **declared: Any) -> tuple[str, str]:
    """Dana (inferred, three sessions), Erik inferred once, the user's Gus over Dana, then
    Erik told in two more sessions: Erik reaches the threshold while Gus holds the slot.
    Returns (Erik, Gus)."""
    _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    rival = _lead(client, "Erik", ("alice", "s4"))
    gus = _lead(client, "Gus", ("dave", "s7"), source="user", **declared)
    assert _lead(client, "Erik", ("bob", "s5")) == rival
    assert _lead(client, "Erik", ("carol", "s6")) == rival
    assert _status(client, rival)[0] == "CANDIDATE"
    return rival, gus


def _forgotten(settings: Settings, tenant: str, user: str, check: Callable[[], None]) -> None:
    """Forget ``user``: ``check`` while the purge is in flight (reads show the slots as it will
    leave them) and again once it is done."""
    job = held(settings, tenant, user)
    check()
    finish(settings, tenant, job, batch=100)
    check()


def _conclusion(client: GraphMemoryClient, premise: str) -> str:
    ep = client.record_episode(**episode("alice", "c1", scope="team:core"))
    out = client.assert_facts(
        [
            fact(
                "Core team",
                "escalates_to",
                "the lead",
                [ep],
                cardinality="ONE",
                scope="team:core",
                dependsOn=[premise],
            )
        ]
    )
    return str(out["results"][0]["factId"])


def test_a_rejected_candidate_leaves_the_fact_it_would_replace_as_it_was(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    first = _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    derived = _conclusion(client, first)
    out = client.assert_facts(
        [
            fact(
                "Core team",
                "led_by",
                "Erik",
                [client.record_episode(**episode("alice", "s4", scope="team:core"))],
                cardinality="ONE",
                scope="team:core",
                source="conversation",
            )
        ]
    )["results"][0]
    # Reported as a new candidate that would supersede the fact, not as a supersession.
    assert (out["status"], out["action"], out["supersedes"]) == ("CANDIDATE", "created", first)
    assert _leads(client) == ["Dana"]
    assert _status(client, first) == ("ACTIVE", None, False)
    assert _status(client, derived)[2] is False  # its premise still holds
    assert [q["fact"]["id"] for q in analyst.review_queue(TEAM)] == [out["factId"]]
    admin.reject_fact(out["factId"], "Erik only stood in for a week")
    assert _leads(client) == ["Dana"]
    assert _status(client, first) == ("ACTIVE", None, False)
    hist = client.history("Core team", "led_by", TEAM)["versions"]
    assert [(v["object"], v["status"]) for v in hist] == [("Dana", "ACTIVE"), ("Erik", "REJECTED")]


def test_approval_supersedes_from_then_and_flags_the_conclusions(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    first = _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    derived = _conclusion(client, first)
    rival = _lead(client, "Frida", ("bob", "s5"))
    pending_at = client.fact(rival)["recordedAt"]  # type: ignore[index]
    approved = analyst.approve_fact(rival)
    assert approved["status"] == "ACTIVE"
    assert _leads(client) == ["Frida"]
    status, ended_at, _ = _status(client, first)
    assert status == "SUPERSEDED" and ended_at > pending_at
    # While the candidate waited, the fact was active and current, as a read then saw it.
    then = client.history("Core team", "led_by", TEAM, as_of=pending_at)["versions"]
    assert [(v["object"], v["status"], v["supersededAt"]) for v in then] == [
        ("Dana", "ACTIVE", None),
        ("Frida", "CANDIDATE", None),
    ]
    assert _leads(client, as_of=pending_at) == ["Dana"]
    conclusion = client.fact(derived)
    assert conclusion and conclusion["needsVerification"]
    assert f"premise {first} superseded by {rival}" in conclusion["verificationReason"]
    ev = analyst.audit_log(target=rival, action="approve")["edges"][0]["node"]
    assert f'"supersedes": "{first}"' in ev["after"]


def test_corroboration_promotes_and_supersedes_then(client: GraphMemoryClient) -> None:
    first = _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    rival = _lead(client, "Erik", ("alice", "s4"), ("bob", "s5"))
    assert _leads(client) == ["Dana"]
    assert _status(client, first)[0] == "ACTIVE"
    assert _lead(client, "Erik", ("carol", "s6")) == rival  # the third session
    assert _status(client, rival)[0] == "ACTIVE"
    assert _leads(client) == ["Erik"]
    assert _status(client, first)[0] == "SUPERSEDED"
    assert client.fact(first)["supersededBy"] == rival  # type: ignore[index]


def test_a_declared_fact_supersedes_the_active_one_while_a_candidate_waits(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    first = _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    rival = _lead(client, "Erik", ("alice", "s4"))
    declared = _lead(client, "Gus", ("dave", "s7"), source="user")
    assert _leads(client) == ["Gus"]
    assert _status(client, first)[0] == "SUPERSEDED"
    assert client.fact(first)["supersededBy"] == declared  # type: ignore[index]
    # The candidate still waits for a reviewer, who decides on it alone.
    assert [q["fact"]["id"] for q in analyst.review_queue(TEAM)] == [rival]


def test_a_rolled_back_promotion_gives_the_fact_back(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    first = _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    derived = _conclusion(client, first)
    rival = _lead(client, "Erik", ("alice", "s4"), ("bob", "s5"))
    # The threshold drops after the evidence arrived: only consolidation promotes it now.
    admin.execute("mutation { configureTenant(policy: {promoteSessions: 2}) { version } }")
    done = admin.execute(M_RUN, {"s": TEAM, "steps": ["PROMOTION"], "dry": False})
    run = done["runConsolidation"]
    assert _leads(client) == ["Erik"]
    assert _status(client, first)[0] == "SUPERSEDED"
    assert _status(client, derived)[2] is True
    actions = {(c["action"], c["targetId"]) for c in run["changes"]}
    assert {("promote", rival), ("supersede", first), ("flag_needs_verification", derived)} <= (
        actions
    )
    admin.execute(M_ROLLBACK, {"id": run["id"]})
    assert _leads(client) == ["Dana"]
    assert _status(client, first) == ("ACTIVE", None, False)
    assert _status(client, rival)[0] == "CANDIDATE"
    assert _status(client, derived)[2] is False


def test_forgetting_the_version_between_leaves_a_candidate_only_linked(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    """Dana (bob) <- Hana (alice) <- Erik (a candidate), all inferred: alice forgotten, Dana
    is current again, during the purge and after it, and Erik still only waits."""
    first = _lead(client, "Dana", ("bob", "s1"), ("bob", "s2"), ("bob", "s3"))
    middle = _lead(client, "Hana", ("alice", "s4"), ("alice", "s5"), ("alice", "s6"))
    rival = _lead(client, "Erik", ("carol", "s7"))
    assert _status(client, first)[0] == "SUPERSEDED"
    assert _supersedes(client, rival) == middle

    def check() -> None:
        assert _leads(client) == ["Dana"]
        assert _status(client, first) == ("ACTIVE", None, False)

    _forgotten(settings, tenant, "alice", check)
    assert _status(client, rival)[0] == "CANDIDATE"
    assert _supersedes(client, rival) == first


def test_forgetting_a_candidate_leaves_the_fact_another_version_ended_as_it_is(
    settings: Settings, tenant: str, client: GraphMemoryClient
) -> None:
    """Dana (bob) is linked by Erik (carol's candidate) and ended by Gus (dave, declared):
    carol forgotten, Dana stays superseded by Gus, during the purge and after it."""
    first = _lead(client, "Dana", ("bob", "s1"), ("bob", "s2"), ("bob", "s3"))
    _lead(client, "Erik", ("carol", "s4"))
    declared = _lead(client, "Gus", ("dave", "s5"), source="user")
    assert client.fact(first)["supersededBy"] == declared  # type: ignore[index]

    def check() -> None:
        assert _leads(client) == ["Gus"]
        assert _status(client, first)[0] == "SUPERSEDED"

    _forgotten(settings, tenant, "carol", check)
    ended = client.fact(first)
    assert ended and ended["status"] == "SUPERSEDED" and ended["supersededBy"] == declared


def test_a_promotion_a_forget_withdraws_gives_back_what_it_ended(
    settings: Settings, tenant: str, client: GraphMemoryClient
) -> None:
    """Erik, promoted by alice's, carol's and dave's sessions, ended Dana; dave forgotten,
    Erik is a candidate again and Dana current, during the purge and after it."""
    first = _lead(client, "Dana", ("bob", "s1"), ("bob", "s2"), ("bob", "s3"))
    rival = _lead(client, "Erik", ("alice", "s4"), ("carol", "s5"), ("dave", "s6"))
    assert _status(client, first)[0] == "SUPERSEDED" and _leads(client) == ["Erik"]

    def check() -> None:
        assert _leads(client) == ["Dana"]
        assert _status(client, first) == ("ACTIVE", None, False)

    _forgotten(settings, tenant, "dave", check)
    assert _status(client, rival)[0] == "CANDIDATE"


def test_a_withdrawn_promotion_hands_its_ending_to_the_version_that_ended_it(
    settings: Settings, tenant: str, client: GraphMemoryClient
) -> None:
    """Dana <- Erik (promoted by alice's, carol's and dave's sessions) <- Gus (declared):
    dave forgotten, Erik never ended Dana, so Gus did, from when Gus was written."""
    first = _lead(client, "Dana", ("bob", "s1"), ("bob", "s2"), ("bob", "s3"))
    rival = _lead(client, "Erik", ("alice", "s4"), ("carol", "s5"), ("dave", "s6"))
    declared = _lead(client, "Gus", ("frank", "s7"), source="user")
    gus_at = client.fact(declared)["recordedAt"]  # type: ignore[index]

    def check() -> None:
        ended = client.fact(first)
        assert ended and (ended["status"], ended["supersededBy"]) == ("SUPERSEDED", declared)
        assert ended["supersededAt"] == gus_at

    _forgotten(settings, tenant, "dave", check)
    assert _status(client, rival)[0] == "SUPERSEDED"  # a candidate, ended by Gus
    assert _leads(client) == ["Gus"]


def test_corroboration_never_lifts_a_candidate_over_a_higher_tier(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # Dana (inferred, approved by three sessions); Erik inferred once, a candidate; then the
    # user says Gus. Erik told twice more waits for a reviewer: three sessions of inference
    # do not outrank what the user said.
    rival, declared = _held_back(client)
    assert _status(client, declared)[0] == "ACTIVE"
    assert _leads(client) == ["Gus"]
    assert rival in [q["fact"]["id"] for q in analyst.review_queue(TEAM)]
    # Nor does consolidation's PROMOTION, which does not even plan it: the run changes
    # nothing, and rolls back after someone writes the scope again.
    done = admin.execute(M_RUN, {"s": TEAM, "steps": ["PROMOTION"], "dry": False})
    assert done["runConsolidation"]["changes"] == []
    assert _leads(client) == ["Gus"] and _status(client, rival)[0] == "CANDIDATE"
    _lead(client, "Hal", ("erin", "s9"), source="user", subject="Ops team")
    back = admin.execute(M_ROLLBACK, {"id": done["runConsolidation"]["id"]})
    assert back["rollbackConsolidation"]["status"] == "ROLLED_BACK"


def test_a_candidate_a_higher_tier_held_back_is_promoted_when_that_fact_is_retracted(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # Erik, inferred in three sessions, waits while the user's Gus holds the slot. The user's
    # Gus retracted: nothing holds Erik back, so he is served from the retraction on (as his
    # next corroboration or a PROMOTION run would have made him), audited as a promotion.
    rival, declared = _held_back(client)
    gone = admin.retract_fact(declared, reason="said by mistake")
    assert gone["status"] == "RETRACTED"
    at = gone["retractedAt"]
    assert _status(client, rival)[0] == "ACTIVE"
    assert _leads(client) == ["Erik"]
    assert rival not in [q["fact"]["id"] for q in analyst.review_queue(TEAM)]
    # Before the retraction the slot answered as it did then.
    before = (datetime.fromisoformat(at) - timedelta(milliseconds=1)).isoformat()
    assert _leads(client, as_of=before) == ["Gus"]
    assert _leads(client, as_of=at) == ["Erik"]
    promoted = [e["node"] for e in analyst.audit_log(target=rival, action="promote")["edges"]]
    assert len(promoted) == 1 and declared in promoted[0]["reason"]
    assert promoted[0]["at"] == at


def test_a_retraction_releases_only_candidates_of_another_value_at_the_threshold(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # Erik told in two sessions is below the threshold: the retraction leaves him waiting, and
    # the slot answers what it answered before Gus (Dana) until a third session promotes him.
    _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("carol", "s3"))
    rival = _lead(client, "Erik", ("alice", "s4"))
    _lead(client, "Erik", ("bob", "s5"))
    declared = _lead(client, "Gus", ("dave", "s7"), source="user")
    admin.retract_fact(declared)
    assert _status(client, rival)[0] == "CANDIDATE"
    assert _leads(client) == ["Dana"]
    # The third session promotes him, as any corroboration would.
    _lead(client, "Erik", ("carol", "s6"))
    assert _status(client, rival)[0] == "ACTIVE"
    assert _leads(client) == ["Erik"]


def test_a_rejected_higher_tier_fact_releases_what_it_held_back(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # The user's Gus rests on a premise later retracted: flagged, then rejected in review.
    # Erik, inferred in three sessions and held back by Gus, is served from the rejection on.
    ep = client.record_episode(**episode("dave", "s8", scope="team:core", source="user"))
    premise = client.assert_facts(
        [fact("Gus", "works_in", "Core team", [ep], cardinality="ONE", scope="team:core")]
    )["results"][0]["factId"]
    rival, declared = _held_back(client, dependsOn=[premise])
    admin.retract_fact(premise)
    assert _status(client, declared) == ("ACTIVE", None, True)
    assert _status(client, rival)[0] == "CANDIDATE"
    assert admin.reject_fact(declared, reason="premise gone")["status"] == "REJECTED"
    assert _status(client, rival)[0] == "ACTIVE"
    assert _leads(client) == ["Erik"]


def test_a_retraction_releases_nothing_another_higher_tier_still_holds(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # The user's Gus, then the admin's Ivy over it: Erik (three sessions) waits. Retracting
    # Gus, no longer served, releases nothing: Ivy still holds the slot. Retracting Ivy does.
    rival, declared = _held_back(client)
    ruled = _lead(admin, "Ivy", ("erin", "s8"), source="admin")
    assert _leads(client) == ["Ivy"]
    admin.retract_fact(declared)
    assert _status(client, rival)[0] == "CANDIDATE"
    assert _leads(client) == ["Ivy"]
    admin.retract_fact(ruled)
    assert _status(client, rival)[0] == "ACTIVE"
    assert _leads(client) == ["Erik"]


def test_the_tenants_shared_truth_holds_back_an_inference_of_a_users_scope(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    # Max's own UTC-5 holds back the agent's UTC+2 (three sessions) in his scope; the tenant's
    # system-tier UTC is written after it. Retracting Max's UTC-5 leaves UTC+2 waiting: the
    # shared truth holds it too, as it refuses such an inference at write time.
    scope = "user:max"

    def said(obj: str, session: str, **kw: Any) -> str:
        e = client.record_episode(
            **episode("max", session, scope=scope, source=kw.get("source", "user"))
        )
        out = client.assert_facts(
            [fact("helpdesk", "timezone", obj, [e], cardinality="ONE", scope=scope, **kw)]
        )
        assert out["accepted"] == 1, out
        return str(out["results"][0]["factId"])

    for session in ("a1", "a2", "a3"):  # an inference served first
        said("UTC+1", session, source="conversation")
    rival = said("UTC+2", "s1", source="conversation")
    said("UTC+2", "s2", source="conversation")
    own = said("UTC-5", "s0", source="user")
    said("UTC+2", "s3", source="conversation")
    assert _status(client, rival)[0] == "CANDIDATE"
    ops = admin.record_episode(**episode("ops", "o1", scope="tenant", source="system"))
    shared = admin.assert_facts(
        [
            fact(
                "helpdesk",
                "timezone",
                "UTC",
                [ops],
                cardinality="ONE",
                scope="tenant",
                source="system",
            )
        ]
    )
    assert shared["accepted"] == 1, shared
    admin.retract_fact(own)
    assert _status(client, rival)[0] == "CANDIDATE"
    both = client.facts([scope, "tenant"], subject="helpdesk", predicate="timezone")["edges"]
    assert "UTC+2" not in [e["node"]["object"] for e in both]


def test_a_purge_judges_promotions_by_the_threshold_its_forget_began_with(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    # Promoted by three sessions, one of them dave's. Dave is forgotten, then the tenant lowers
    # its threshold to two: the purge leaves what the forget showed from its commit on (a
    # candidate: two sessions under the threshold it began with), not a promotion the new
    # policy would allow.
    promoted = _lead(client, "Dana", ("alice", "s1"), ("bob", "s2"), ("dave", "s3"))
    assert _status(client, promoted)[0] == "ACTIVE"

    def check() -> None:
        assert _status(client, promoted)[0] == "CANDIDATE"

    job = held(settings, tenant, "dave")
    check()
    admin.execute("mutation { configureTenant(policy: {promoteSessions: 2}) { version } }")
    check()
    finish(settings, tenant, job, batch=100)
    check()
