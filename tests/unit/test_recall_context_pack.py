"""Packing recall into a token budget: never over, sections in order, drops reported."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.services.recall.context_pack import ContextService, TokenCounter, render
from graph_memory.services.recall.ranking import Scored

T = datetime(2026, 1, 1, tzinfo=UTC)
COUNTER = TokenCounter()


def _item(kind: str, ident: str, total: float, **rec: Any) -> Scored:
    return Scored(
        kind=kind,
        id=ident,
        record={"id": ident, **rec},
        similarity=0.5,
        keyword=0.0,
        recency=1.0,
        confidence=0.9,
        tier_boost=0.0,
        total=total,
        fresh_at=T,
    )


ITEMS = [
    _item(
        "procedure",
        "p1",
        0.9,
        intent="book_travel",
        role="agent",
        version=2,
        status="active",
        steps=["Check preferences", "Book the flight", "Confirm"],
    ),
    _item(
        "fact",
        "f1",
        0.8,
        text="Alice prefers window seats",
        tier="user",
        confidence=0.9,
        valid_from=T,
    ),
    _item(
        "episode",
        "e1",
        0.7,
        started_at=T,
        outcome="success",
        summary="Alice booked a flight to Lisbon and asked for a window seat.",
    ),
    _item(
        "fact",
        "f2",
        0.6,
        text="Alice is vegetarian and avoids airline meals with meat",
        tier="system",
        confidence=1.0,
    ),
]


def _pack(budget: int) -> Any:
    return ContextService(recall=None, counter=COUNTER).pack(ITEMS, budget)  # type: ignore[arg-type]


@pytest.mark.parametrize("budget", range(0, 140, 3))
def test_never_over_budget_and_every_item_accounted_for(budget: int) -> None:
    pack = _pack(budget)
    assert COUNTER.count(pack.text) == pack.tokens <= budget
    seen = [p.id for p in pack.included] + [p.id for p in pack.dropped]
    assert sorted(seen) == ["e1", "f1", "f2", "p1"]
    assert all(p.reason == "over_budget" for p in pack.dropped)
    for p in pack.included:  # items are kept whole, never cut
        assert render(next(i for i in ITEMS if i.id == p.id)) in pack.text


def test_sections_come_facts_then_episodes_then_procedures() -> None:
    pack = _pack(10_000)
    assert pack.dropped == []
    assert [p.id for p in pack.included] == ["f1", "f2", "e1", "p1"]
    text = pack.text
    assert text.index("## Facts") < text.index("## Episodes") < text.index("## Procedures")
    assert "  2. Book the flight" in text


def test_a_budget_for_one_fact_keeps_the_best_fact() -> None:
    need = COUNTER.count("## Facts\n") + COUNTER.count(render(ITEMS[1]) + "\n")
    pack = _pack(need)
    assert [p.id for p in pack.included] == ["f1"]
    assert [p.id for p in pack.dropped] == ["f2", "e1", "p1"]


def test_counts_are_conservative_for_text_wordpiece_folds() -> None:
    assert COUNTER.count("") == 0
    # Fourteen CJK characters are 42 UTF-8 bytes: at least 11 tokens whatever WordPiece says.
    assert COUNTER.count("記憶は重要です記憶は重要です") >= 11


def test_the_block_is_counted_as_a_whole_without_recounting_it_per_item() -> None:
    """The running count (pieces and bytes of the parts) is the block's exact count: every
    budget packs a block counted at most the budget, each dropped item would not have fit,
    and nothing is dropped that fits (odd words, accents, punctuation, long lines)."""
    import random

    rng = random.Random(5)
    words = ["Alice", "naïve", "café", "x" * 40, "C++", "e.g.", "🙂", "window-seat", "1,024"]
    items = [
        _item(
            "fact",
            f"f{i}",
            1.0 - i / 100,
            text=" ".join(rng.choice(words) for _ in range(rng.randint(1, 30))),
            tier="user",
            confidence=0.9,
            valid_from=T,
        )
        for i in range(60)
    ] + [
        _item("episode", f"e{i}", 0.5, started_at=T, outcome="success", summary="Lisbon " * i)
        for i in range(1, 20)
    ]
    service = ContextService(recall=None, counter=COUNTER)  # type: ignore[arg-type]
    for budget in [1, 7, 40, 150, 400, 1_000, 5_000]:
        pack = service.pack(items, budget)
        assert pack.tokens == COUNTER.count(pack.text) <= budget, budget
        kept = {p.id for p in pack.included}
        for d in pack.dropped:
            with_it = [i for i in items if i.id in kept or i.id == d.id]
            assert COUNTER.count(service.pack(with_it, 10**9).text) > budget, (budget, d.id)
