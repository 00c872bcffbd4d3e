"""A version's lifecycle as it stood at a past moment (services/facts/belief.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph_memory.domain import Status
from graph_memory.services.facts.belief import as_believed_at, confidence_at, procedure_as_of
from graph_memory.versions import Evidence, FactVersion

T1 = datetime(2024, 1, 1, tzinfo=UTC)
T2 = datetime(2024, 2, 1, tzinfo=UTC)
T3 = datetime(2024, 3, 1, tzinfo=UTC)


Log = tuple[tuple[datetime, str], ...]


def version(log: Log = ((T1, "activated"),), **kw: object) -> FactVersion:
    """A version row as the store returns it (times as ISO text), typed; ``log`` is its change
    log (the single timestamps in ``kw`` are the state now)."""
    base: dict[str, object] = {
        "id": "f", "scope": "user:a", "subject": "a", "predicate": "p", "object": "o",
        "tier": "user", "status": "active", "recorded_at": T1.isoformat(),
        "activated_at": T1.isoformat(),
        "changes_at": [at.isoformat() for at, _ in log], "changes": [c for _, c in log],
    }  # fmt: skip
    return FactVersion.from_row({**base, **kw})


def test_superseded_later_is_shown_current_before_it() -> None:
    v = version(((T1, "activated"), (T3, "superseded")), status="superseded",
                superseded_at=T3.isoformat(), superseded_by="g")  # fmt: skip
    then = as_believed_at(v, T2)
    assert then.status is Status.ACTIVE
    assert then.superseded_at is None and then.superseded_by is None
    assert as_believed_at(v, T3).status is Status.SUPERSEDED  # from the moment it happened


def test_retracted_later_and_promoted_later() -> None:
    retracted = version(((T1, "activated"), (T3, "retracted")), status="retracted",
                        retracted_at=T3.isoformat(), retracted_by="a")  # fmt: skip
    assert as_believed_at(retracted, T2).status is Status.ACTIVE
    promoted = version(((T3, "activated"),), activated_at=T3.isoformat())
    then = as_believed_at(promoted, T2)
    assert then.status is Status.CANDIDATE and then.activated_at is None
    rejected = version(((T3, "rejected"),), status="rejected", activated_at=None,
                       rejected_at=T3.isoformat())  # fmt: skip
    assert as_believed_at(rejected, T2).status is Status.CANDIDATE


def test_flags_follow_their_times() -> None:
    flagged = version(((T1, "activated"), (T3, "flagged")), needs_verification=True,
                      flagged_at=T3.isoformat(), verification_reason="x")  # fmt: skip
    then = as_believed_at(flagged, T2)
    assert then.needs_verification is False and then.verification_reason is None
    assert then.flagged_at is None
    verified = version(((T1, "activated"), (T1, "flagged"), (T3, "verified")),
                       needs_verification=False, flagged_at=T1.isoformat(),
                       verified_at=T3.isoformat())  # fmt: skip
    then = as_believed_at(verified, T2)
    assert then.needs_verification is True and then.verified_at is None


def test_nothing_later_is_the_same_record() -> None:
    v = version(((T1, "activated"), (T1, "superseded")), status="superseded",
                superseded_at=T1.isoformat())  # fmt: skip
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


def test_the_change_log_answers_for_every_flag_and_verification() -> None:
    t0, t1, t2, t3 = (datetime(2026, 2, d, tzinfo=UTC) for d in (1, 2, 3, 4))
    v = version(((T1, "activated"), (t0, "flagged"), (t1, "verified"), (t2, "flagged")),
                needs_verification=True, verification_reason="premise x retracted",
                flagged_at=t2.isoformat(), verified_at=t1.isoformat())  # fmt: skip
    first = as_believed_at(v, t0 + timedelta(hours=1))
    assert first.needs_verification is True and first.verification_reason is None
    assert first.flagged_at == t0 and first.verified_at is None
    between = as_believed_at(v, t1 + timedelta(hours=1))
    assert between.needs_verification is False and between.verification_reason is None
    assert as_believed_at(v, t3) is v


def test_an_expired_candidate_stays_a_candidate_and_expiry_shows_from_its_moment() -> None:
    v = version(((T1, "activated"), (T3, "expired"), (T3, "flagged")), status="expired",
                expired_at=T3.isoformat(), needs_verification=True, flagged_at=T3.isoformat(),
                verification_reason="TTL elapsed")  # fmt: skip
    then = as_believed_at(v, T2)
    assert then.status is Status.ACTIVE and then.expired_at is None
    assert then.needs_verification is False
    never = version(((T3, "expired"),), status="expired", activated_at=None,
                    expired_at=T3.isoformat())  # fmt: skip
    assert as_believed_at(never, T3).status is Status.EXPIRED  # now: as stored
    assert as_believed_at(never, T2).status is Status.CANDIDATE


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
