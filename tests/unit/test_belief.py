"""A version's lifecycle as it stood at a past moment (services/facts/belief.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph_memory.domain import Status
from graph_memory.services.facts.belief import as_believed_at, confidence_at, procedure_as_of
from graph_memory.versions import Evidence, FactVersion

T1 = datetime(2024, 1, 1, tzinfo=UTC)
T2 = datetime(2024, 2, 1, tzinfo=UTC)
T3 = datetime(2024, 3, 1, tzinfo=UTC)


def version(**kw: object) -> FactVersion:
    """A version row as the store returns it (times as ISO text), typed."""
    base: dict[str, object] = {
        "id": "f", "scope": "user:a", "subject": "a", "predicate": "p", "object": "o",
        "tier": "user", "status": "active", "recorded_at": T1.isoformat(),
        "activated_at": T1.isoformat(),
    }  # fmt: skip
    return FactVersion.from_row({**base, **kw})


def test_superseded_later_is_shown_current_before_it() -> None:
    v = version(status="superseded", superseded_at=T3.isoformat(), superseded_by="g")
    then = as_believed_at(v, T2)
    assert then.status is Status.ACTIVE
    assert then.superseded_at is None and then.superseded_by is None
    assert as_believed_at(v, T3).status is Status.SUPERSEDED  # from the moment it happened


def test_retracted_later_and_promoted_later() -> None:
    retracted = version(status="retracted", retracted_at=T3.isoformat(), retracted_by="a")
    assert as_believed_at(retracted, T2).status is Status.ACTIVE
    promoted = version(activated_at=T3.isoformat())
    assert as_believed_at(promoted, T2).status is Status.CANDIDATE
    rejected = version(status="rejected", activated_at=None, rejected_at=T3.isoformat())
    assert as_believed_at(rejected, T2).status is Status.CANDIDATE


def test_flags_follow_their_times() -> None:
    flagged = version(needs_verification=True, flagged_at=T3.isoformat(), verification_reason="x")
    assert as_believed_at(flagged, T2).needs_verification is False
    verified = version(needs_verification=False, flagged_at=T1.isoformat(), verified_at=T3)
    assert as_believed_at(verified, T2).needs_verification is True


def test_nothing_later_is_the_same_record() -> None:
    v = version(status="superseded", superseded_at=T1.isoformat())
    assert as_believed_at(v, T3) is v


def test_a_procedure_shows_the_status_it_had_then() -> None:
    t0, t1, t2 = (datetime(2026, 1, d, tzinfo=UTC) for d in (1, 2, 3))
    proc = {"status": "demoted", "status_log_at": [t0, t1, t2],
            "status_log": ["candidate", "active", "demoted"]}  # fmt: skip
    assert procedure_as_of(proc, t0)["status"] == "candidate"
    assert procedure_as_of(proc, t1 + timedelta(hours=1))["status"] == "active"
    assert procedure_as_of(proc, t2) is proc
    legacy = {"status": "active"}
    assert procedure_as_of(legacy, t0) is legacy


def test_the_flag_log_answers_for_every_flag_and_verification() -> None:
    t0, t1, t2, t3 = (datetime(2026, 2, d, tzinfo=UTC) for d in (1, 2, 3, 4))
    v = version(needs_verification=True, verification_reason="premise x retracted",
                flagged_at=t2.isoformat(), verified_at=t1.isoformat(),
                flag_log_at=[t0.isoformat(), t1.isoformat(), t2.isoformat()],
                flag_log=[True, False, True])  # fmt: skip
    first = as_believed_at(v, t0 + timedelta(hours=1))
    assert first.needs_verification is True and first.verification_reason is None
    between = as_believed_at(v, t1 + timedelta(hours=1))
    assert between.needs_verification is False and between.verification_reason is None
    assert as_believed_at(v, t3).needs_verification is True


def test_confidence_at_counts_the_evidence_linked_by_then() -> None:
    evidence = [
        Evidence.from_row({"episode_id": f"e{i}", "user_id": user, "session_id": "s1",
                           "weight": weight, "linked_at": at.isoformat()})
        for i, (user, weight, at) in enumerate([("a", 0.6, T1), ("a", 0.7, T2), ("b", 0.5, T3)])
    ]  # fmt: skip
    stored = 0.85  # 1 - 0.3 * 0.5
    assert confidence_at(evidence, T3, 0.95, stored) == stored  # nothing linked later
    assert confidence_at(evidence, T2, 0.95, stored) == 0.7  # one session: its strongest
    assert confidence_at(evidence, T1, 0.95, stored) == 0.6
    assert confidence_at(evidence, T2, 0.65, stored) == 0.65  # capped by the tier
