"""Which links and endings a purge rewrites around excised versions (plan_relinks): links
follow the SUPERSEDES edges, endings follow superseded_by, as the in-flight view reads them."""

from __future__ import annotations

from typing import Any

from graph_memory.services.forget.purge import plan_relinks


def row(d: str, older: str | None, newer: str | None, closer: str | None) -> dict[str, Any]:
    return {"id": d, "older": older, "newer": newer, "closer": closer}


def test_the_version_between_goes_its_successor_ends_the_one_before() -> None:
    # A <- M (excised, ended A) <- N (ended M)
    plan = plan_relinks([row("M", "A", "N", "N")], {"M"})
    assert plan.links == [{"newer": "N", "older": "A"}]
    assert plan.closes == [{"older": "A", "via": "M", "closer": "N"}]


def test_a_candidate_that_goes_leaves_what_it_only_linked() -> None:
    # A <- C (excised candidate: it ended nothing, so A is not its to reopen)
    plan = plan_relinks([row("C", "A", None, None)], {"C"})
    assert plan.links == []
    assert plan.closes == [{"older": "A", "via": "C", "closer": None}]  # applied only if C ended A


def test_every_version_linking_to_the_one_that_goes_is_relinked() -> None:
    # A <- X (excised, ended A) <- C (a candidate, links X) and <- D (ended X)
    plan = plan_relinks([row("X", "A", "C", "D"), row("X", "A", "D", "D")], {"X"})
    assert plan.links == [{"newer": "C", "older": "A"}, {"newer": "D", "older": "A"}]
    assert plan.closes == [{"older": "A", "via": "X", "closer": "D"}]
    assert plan.survivors == {"A", "C", "D"}


def test_a_run_of_excised_versions_is_walked_past() -> None:
    # A <- X <- Y (both excised) <- N
    rows = [row("X", "A", "Y", "Y"), row("Y", "X", "N", "N")]
    plan = plan_relinks(rows, {"X", "Y"})
    assert plan.links == [{"newer": "N", "older": "A"}]
    assert plan.closes == [{"older": "A", "via": "X", "closer": "N"}]
    gone = plan_relinks([row("X", "A", None, None)], {"X"})
    assert gone.closes == [{"older": "A", "via": "X", "closer": None}]
