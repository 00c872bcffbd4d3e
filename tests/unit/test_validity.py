"""Where a new version sits in its slot's valid time (services/facts/validity.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from graph_memory.domain import Cardinality
from graph_memory.services.facts.validity import from_micros, micros, place

ONE, MANY = Cardinality.ONE, Cardinality.MANY
NOW = datetime(2026, 11, 30, tzinfo=UTC)  # when the new version is heard, unless a test says


def at(year: int, month: int = 1) -> datetime:
    return datetime(year, month, 1, tzinfo=UTC)


def version(
    vid: str, obj: str, start: int, end: int | None = None, number: int = 1, stated: bool = True
) -> dict[str, Any]:
    return {
        "id": vid,
        "object_key": obj,
        "version": number,
        "valid_from_stated": stated,
        "valid_from_us": micros(at(start)),
        "valid_to_us": micros(at(end)) if end else None,
    }


def test_micros_round_trips_exactly() -> None:
    t = datetime(2024, 2, 29, 23, 59, 59, 999_999, tzinfo=UTC)
    assert from_micros(micros(t) or 0) == t
    early = datetime(1960, 5, 1, 0, 0, 0, 1, tzinfo=UTC)
    assert from_micros(micros(early) or 0) == early


def test_a_later_start_supersedes_the_current_version() -> None:
    paris = version("paris", "paris", 2018)
    spot = place([paris], "berlin", ONE, at(2023), None, told=NOW, stated=True, explicit=True)
    assert spot.prior is paris and spot.same is None


def test_a_backfill_supersedes_nothing_that_starts_later() -> None:
    berlin = version("berlin", "berlin", 2023, number=1)
    spot = place([berlin], "paris", ONE, at(2018), None, told=NOW, stated=True, explicit=True)
    assert spot.prior is None and spot.same is None


def test_a_backfill_between_two_versions_supersedes_the_earlier_one_only() -> None:
    paris = version("paris", "paris", 2018, 2023, number=2)
    berlin = version("berlin", "berlin", 2023, number=1)
    spot = place(
        [berlin, paris], "london", ONE, at(2020), None, told=NOW, stated=True, explicit=True
    )
    assert spot.prior is paris


def test_the_same_start_is_a_correction_of_that_version() -> None:
    paris = version("paris", "paris", 2018)
    spot = place([paris], "lyon", ONE, at(2018), None, told=NOW, stated=True, explicit=True)
    assert spot.prior is paris


def test_same_object_valid_at_the_start_is_corroborated() -> None:
    acme = version("acme", "acme", 2018)
    spot = place([acme], "acme", ONE, at(2019), None, told=NOW, stated=True, explicit=True)
    assert spot.same is acme


def test_returning_to_a_closed_stint_is_a_new_version() -> None:
    acme = version("acme", "acme", 2018, 2020)
    spot = place([acme], "acme", ONE, at(2023), None, told=NOW, stated=True, explicit=True)
    assert spot.same is None
    assert spot.prior is acme  # it stays in force for 2018-2020 (nothing later is valid then)


def test_a_new_end_date_is_not_a_corroboration() -> None:
    acme = version("acme", "acme", 2018)
    assert (
        place([acme], "acme", ONE, at(2019), at(2021), told=NOW, stated=True, explicit=True).same
        is None
    )
    closed = version("acme", "acme", 2018, 2021)
    assert (
        place([closed], "acme", ONE, at(2019), at(2021), told=NOW, stated=True, explicit=True).same
        is closed
    )


def test_older_evidence_without_dates_agrees_with_an_open_version() -> None:
    tea = version("tea", "tea", 2024)
    assert (
        place([tea], "tea", MANY, at(2023), None, told=NOW, stated=False, explicit=False).same
        is tea
    )
    # Said with explicit dates, the same claim is a different interval.
    assert (
        place([tea], "tea", MANY, at(2023), None, told=NOW, stated=True, explicit=True).same is None
    )


def test_many_valued_predicates_only_place_against_the_same_object() -> None:
    tea = version("tea", "tea", 2024)
    spot = place([tea], "coffee", MANY, at(2020), None, told=NOW, stated=True, explicit=True)
    assert spot.prior is None and spot.same is None


def test_the_newest_of_equal_starts_is_the_prior() -> None:
    a = version("a", "x", 2020, number=1)
    b = version("b", "y", 2020, number=2)
    assert place([a, b], "z", ONE, at(2021), None, told=NOW, stated=True, explicit=True).prior is b


def test_a_start_nobody_stated_is_superseded_by_an_earlier_stated_start() -> None:
    """'Lives in Paris' said today (start defaulted), then 'in Berlin since 2024': Berlin."""
    paris = version("paris", "paris", 2026, stated=False)
    spot = place([paris], "berlin", ONE, at(2024), None, told=NOW, stated=True, explicit=True)
    assert spot.prior is paris


def test_old_evidence_recorded_late_is_back_filled_before_a_stated_start() -> None:
    """Berlin stated from 2023; an imported 2018 session says Paris (start defaulted)."""
    berlin = version("berlin", "berlin", 2023)
    spot = place(
        [berlin], "paris", ONE, at(2018), None, told=at(2018), stated=False, explicit=False
    )
    assert spot.prior is None and spot.same is None


def test_a_session_replayed_out_of_order_does_not_replace_a_later_one() -> None:
    """September's session said Berlin, March's (recorded after it) said Paris; no dates."""
    berlin = version("berlin", "berlin", 2025, stated=False)
    berlin["valid_from_us"] = micros(at(2025, 9))
    spot = place(
        [berlin], "paris", ONE, at(2025, 3), None, told=at(2025, 3), stated=False, explicit=False
    )
    assert spot.prior is None and spot.same is None


def test_a_stated_start_told_before_an_undated_version_does_not_replace_it() -> None:
    """September: 'lives in Paris' (undated). A March session recorded later: 'Berlin since
    2024'. In September she was in Paris, so Berlin does not supersede it."""
    paris = version("paris", "paris", 2025, stated=False)
    paris["valid_from_us"] = micros(at(2025, 9))
    spot = place(
        [paris], "berlin", ONE, at(2024), None, told=at(2025, 3), stated=True, explicit=True
    )
    assert spot.prior is None


def test_an_undated_version_is_replaced_by_one_heard_in_the_same_session() -> None:
    paris = version("paris", "paris", 2025, stated=False)
    spot = place([paris], "berlin", ONE, at(2024), None, told=at(2025), stated=True, explicit=True)
    assert spot.prior is paris


def test_an_undated_claim_replayed_late_does_not_replace_a_dated_one_said_after_it() -> None:
    """February: 'Berlin since 2024'. A January session recorded after it: 'Paris' (undated)."""
    berlin = version("berlin", "berlin", 2024)
    berlin["told_us"] = micros(at(2025, 2))
    spot = place([berlin], "paris", ONE, at(2025, 1), None, told=at(2025, 1), stated=False,
                 explicit=False)  # fmt: skip
    assert spot.prior is None


def test_an_undated_claim_said_again_later_is_judged_by_its_latest_telling() -> None:
    """'Berlin' said in January and again in September; 'Paris' said in March comes after."""
    berlin = version("berlin", "berlin", 2025, stated=False)
    berlin["told_us"] = micros(at(2025, 9))
    spot = place([berlin], "paris", ONE, at(2025, 3), None, told=at(2025, 3), stated=False,
                 explicit=False)  # fmt: skip
    assert spot.prior is None


def test_a_bounded_stay_interrupts_another_object_instead_of_ending_it() -> None:
    paris = version("paris", "paris", 2018)
    stay = place([paris], "berlin", ONE, at(2024), at(2025), told=NOW, stated=True, explicit=True)
    assert stay.prior is None  # Paris holds again after 2025
    longer = version("rome", "rome", 2018, 2026)
    move = place([longer], "berlin", ONE, at(2024), at(2027), told=NOW, stated=True, explicit=True)
    assert move.prior is longer  # Berlin outlasts Rome: Rome ended there


def test_an_end_of_the_same_object_supersedes_the_open_version() -> None:
    rex = version("rex", "rex", 2025, stated=False)
    rex["told_us"] = micros(at(2025, 6))
    ended = place([rex], "rex", ONE, at(2025), at(2026, 3), told=at(2026, 3), stated=True,
                  explicit=True)  # fmt: skip
    assert ended.prior is rex


def test_a_past_told_later_does_not_override_an_undated_present() -> None:
    berlin = version("berlin", "berlin", 2025, stated=False)
    berlin["told_us"] = micros(at(2025, 3))
    past = place([berlin], "paris", ONE, at(2018), at(2020), told=at(2026, 5), stated=True,
                 explicit=True)  # fmt: skip
    assert past.prior is None  # Paris ended before Berlin was said: earlier history
    since = place([berlin], "paris", ONE, at(2018), None, told=at(2026, 5), stated=True,
                  explicit=True)  # fmt: skip
    assert since.prior is berlin  # "in Paris since 2018", said later, corrects it


def test_a_version_supersedes_the_newest_served_one_it_ends_and_a_candidate_only_links() -> None:
    """Paris (active, 2018) and Lyon (a candidate, 2020) both end where Berlin (2023) starts:
    Berlin supersedes Paris whether it is served at once or a candidate (which ends it only
    when promoted); a waiting candidate is superseded only by a served version, and only
    when no served version is ended."""
    paris = {**version("paris", "paris", 2018, number=1), "status": "active"}
    lyon = {**version("lyon", "lyon", 2020, number=2), "status": "candidate"}
    spot = place([paris, lyon], "berlin", ONE, at(2023), None, told=NOW, stated=True, explicit=True)
    assert spot.prior is lyon  # the newest it ends, whatever its status
    assert spot.supersedes(active=True) is paris
    assert spot.supersedes(active=False) is paris
    alone = place([lyon], "berlin", ONE, at(2023), None, told=NOW, stated=True, explicit=True)
    assert alone.supersedes(active=True) is lyon
    assert alone.supersedes(active=False) is None
