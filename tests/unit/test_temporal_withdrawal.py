"""A version's life once a forgotten contributor's evidence is withdrawn
(graph_memory/temporal/withdrawal.py): what reads resolve a slot with while a purge is on its
way there, and what the purge then stores (temporal/withdrawal.rest_on)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph_memory.domain import Tier
from graph_memory.temporal import (
    Link,
    Said,
    Telling,
    VersionLife,
    kept_telling,
    repromote,
    withdraw,
)

T = datetime(2026, 3, 1, tzinfo=UTC)
H = timedelta(hours=1)


def life(**kw: object) -> VersionLife:
    base: dict[str, object] = {
        "id": "f1",
        "version": 1,
        "object_key": "paris",
        "valid_from": T - 48 * H,
        "valid_to": None,
        "stated": False,
        "recorded_at": T,
        "activated_at": T,
        "ended_at": None,
        "tellings": (Telling(T, T - 48 * H),),
    }
    base.update(kw)
    return VersionLife(**base)  # type: ignore[arg-type]


def test_a_version_without_withdrawn_evidence_is_unchanged() -> None:
    v = life()
    assert withdraw(v, [Link(None, T - 48 * H, False)], []) is v


def test_a_version_only_forgotten_evidence_supports_goes() -> None:
    assert withdraw(life(), [Link(None, T - 48 * H, True)], []) is None


def test_a_version_they_said_first_is_believed_said_and_valid_from_the_others() -> None:
    links = [Link(None, T - 48 * H, True), Link(T + 5 * H, T - 24 * H, False)]
    out = withdraw(life(), links, [])
    assert out is not None
    assert out.recorded_at == T + 5 * H and out.activated_at == T + 5 * H
    # Its start nobody stated: it holds from the others' session, not from theirs.
    assert out.valid_from == T - 24 * H
    assert out.tellings == (Telling(T + 5 * H, T - 24 * H),)


def test_a_stated_start_and_a_version_that_ended_first_keep_their_times() -> None:
    links = [Link(None, T - 48 * H, True), Link(T + 5 * H, T - 24 * H, False)]
    stated = withdraw(life(stated=True), links, [])
    assert stated is not None and stated.valid_from == T - 48 * H
    # Superseded before the others said it: moving its belief would invert its interval.
    ended = withdraw(life(), links, [T + 2 * H])
    assert ended is not None and ended.recorded_at == T


def test_their_later_telling_no_longer_moves_when_it_was_said() -> None:
    links = [Link(None, T - 48 * H, False), Link(T + 5 * H, T + 4 * H, True)]
    out = withdraw(
        life(tellings=(Telling(T, T - 48 * H), Telling(T + 5 * H, T + 4 * H))), links, []
    )
    assert out is not None and out.tellings == (Telling(T, T - 48 * H),)
    assert out.recorded_at == T


def test_the_telling_kept_is_the_strongest_tier_left_and_the_first_told_of_those() -> None:
    def said(tier: Tier, source: str) -> Said:
        return Said(T - 48 * H, None, False, tier, source)

    kept = [
        Link(T + 2 * H, T, False, said(Tier.USER, "user")),
        Link(T + H, T, False, said(Tier.INFERRED, "conversation")),
        Link(None, T - H, False, said(Tier.USER, "chat")),
    ]
    told = kept_telling(kept)
    # The version's own first link (at None: when it was recorded) was told first.
    assert told is not None and (told.tier, told.source) == (Tier.USER, "chat")
    assert kept_telling(kept[1:2]) == said(Tier.INFERRED, "conversation")
    # A link written before links kept their claim: no telling to rebuild from.
    assert kept_telling([*kept, Link(None, T, False)]) is None
    assert kept_telling([]) is None


def _said(at: datetime | None, session: str) -> Link:
    return Link(at, T - 48 * H, False, None, session)


def test_an_inference_is_promoted_when_the_sessions_left_reach_the_threshold() -> None:
    # Promoted at T + 3h by the third session; the one at T + 1h is withdrawn: the sessions
    # left reach three only with the one at T + 5h.
    promoted = life(activated_at=T + 3 * H)
    kept = [_said(None, "a"), _said(T + 3 * H, "c"), _said(T + 5 * H, "d")]
    assert repromote(promoted, kept, [], 3).activated_at == T + 5 * H
    # A session told twice counts once; the order is when each link was made.
    twice = [_said(T + 5 * H, "d"), _said(None, "a"), _said(T + 4 * H, "a"), _said(T + 3 * H, "c")]
    assert repromote(promoted, twice, [], 3).activated_at == T + 5 * H


def test_a_promotion_the_sessions_left_still_earned_then_or_cannot_earn_is_unchanged() -> None:
    promoted = life(activated_at=T + 3 * H)
    earned = [_said(None, "a"), _said(T + 2 * H, "b"), _said(T + 3 * H, "c")]
    assert repromote(promoted, earned, [], 3) is promoted
    # Fewer than the threshold: withdrawing the promotion is forget/recandidate's.
    assert repromote(promoted, earned[:2], [], 3) is promoted
    # Never promoted: nothing to move.
    candidate = life(activated_at=None)
    assert repromote(candidate, [*earned, _said(T + 9 * H, "d")], [], 3) is candidate


def test_a_promotion_the_sessions_left_reach_only_after_it_ended_is_unchanged() -> None:
    # Superseded at T + 4h; the third session left was linked at T + 5h (a merge's copy can
    # link evidence after an end): its times stay, as rest_on keeps them.
    promoted = life(activated_at=T + 3 * H)
    kept = [_said(None, "a"), _said(T + 3 * H, "c"), _said(T + 5 * H, "d")]
    assert repromote(promoted, kept, [T + 4 * H], 3) is promoted
    assert repromote(promoted, kept, [T + 6 * H], 3).activated_at == T + 5 * H
