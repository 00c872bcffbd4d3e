"""What a survivor's record says after an excision (services/forget/trail.py), pure."""

from __future__ import annotations

import json

from graph_memory.services.forget.trail import REMOVED, mentions, rewrite, stand_ins

P, L, M, R = (f"fact_{c * 32}" for c in "abcd")  # Paris -> Lisbon -> Madrid -> Rome


def test_stand_ins_skip_every_excised_link_of_the_chain() -> None:
    links = [
        {"id": L, "older": P, "newer": M},
        {"id": M, "older": L, "newer": R},
    ]
    older, newer = stand_ins(links, {L, M})
    assert older == {L: P, M: P}
    assert newer == {L: R, M: R}
    # The first version of a chain excised: nothing stands before it.
    assert stand_ins([{"id": P, "older": None, "newer": R}], {P})[0] == {P: None}


def test_rewrite_points_at_the_stand_ins_and_marks_free_text() -> None:
    subs: tuple[dict[str, str | None], dict[str, str | None]] = ({L: P}, {L: R})
    event = {"id": L, "supersedes": L, "superseded_by": L, "note": f"replaced {L} at noon"}
    assert rewrite(event, {L}, subs) == {
        "id": P,
        "supersedes": P,
        "superseded_by": R,
        "note": f"replaced {REMOVED} at noon",
    }
    assert rewrite(["x", 1, None], {L}, subs) == ["x", 1, None]


def test_mentions_finds_excised_ids_in_any_text() -> None:
    assert mentions([json.dumps({"id": L}), None], {L})
    assert not mentions([f"premise {P} retracted"], {L})
