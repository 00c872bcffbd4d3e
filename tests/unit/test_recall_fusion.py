"""Recall's fusion, pure: pool normalisation, recency against the scope's activity, its bound,
the reply that follows a matched question, and the member a matched digest hands on to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.services.recall.digest_members import lift_members
from graph_memory.services.recall.fusion import Pool, pool_of
from graph_memory.services.recall.neighbours import REPLY_SHARE, asks, lift_replies
from graph_memory.services.recall.ranking import Weights, score_rows

LIVE = datetime(2024, 3, 1, tzinfo=UTC)  # the last session
FAR = datetime(2031, 1, 1, tzinfo=UTC)  # asked years later


def _row(ident: str, *, sim: float, kw: float | None = None, at: datetime) -> dict[str, Any]:
    return {
        "id": ident,
        "text": f"text of {ident}",
        "confidence": 0.8,
        "fresh_ms": int(at.timestamp() * 1000),
        "similarity": (1 + sim) / 2,
        "keyword": kw,
    }


def _score(
    rows: list[dict[str, Any]],
    valid_at: datetime,
    weights: Weights | None = None,
    kind: str = "fact",
    query: str = "question words",
    pool: Pool | None = None,
) -> Any:
    return {
        s.id: s
        for s in score_rows(
            kind,
            rows,
            query=query,
            weights=(weights or Weights()).normalised(),
            half_life_days=30,
            valid_at=valid_at,
            pool=pool,
        )
    }


def test_recency_is_measured_from_the_pools_newest_memory_not_the_clock() -> None:
    rows = [
        _row("old", sim=0.6, at=LIVE - timedelta(days=300)),
        _row("new", sim=0.3, at=LIVE - timedelta(days=8)),
    ]
    live, far = _score(rows, LIVE), _score(rows, FAR)
    assert pool_of(rows, FAR).reference == LIVE - timedelta(days=8)
    # The same answer whether asked the day after or years after the data.
    assert {k: v.total for k, v in live.items()} == {k: v.total for k, v in far.items()}
    assert far["new"].decay == 1.0 and far["old"].decay < 0.01


def test_an_old_relevant_memory_beats_a_fresh_irrelevant_one() -> None:
    s = _score(
        [
            _row("answer", sim=0.5, kw=3.0, at=LIVE - timedelta(days=400)),
            _row("chatter", sim=0.2, at=LIVE),
        ],
        LIVE,
    )
    assert s["answer"].total > s["chatter"].total
    # Newness counts only as far as the memory matches (no keyword: 0.5 / 0.7 of its vector).
    assert s["chatter"].recency == pytest.approx(s["chatter"].similarity * 0.5 / 0.7, abs=1e-5)


def test_recency_only_reorders_similar_matches() -> None:
    s = _score(
        [
            _row("close-old", sim=0.60, at=LIVE - timedelta(days=365)),
            _row("close-new", sim=0.57, at=LIVE),
        ],
        LIVE,
    )
    assert s["close-new"].total > s["close-old"].total


@pytest.mark.parametrize("rel_a", [0.05, 0.3, 0.6, 1.0])
@pytest.mark.parametrize("ratio", [0.0, 0.3, 0.6, 0.77])
@pytest.mark.parametrize(("age_a", "age_b"), [(0, 0), (5000, 0), (365, 1), (0, 5000)])
def test_newness_never_lifts_a_clearly_weaker_match(
    rel_a: float, ratio: float, age_a: float, age_b: float
) -> None:
    # 1 + w.recency / (w.vector + w.keyword) = 1.2857: below 1 / 1.2857 = 0.777 of a
    # match's relevance, no amount of newness (or age of the better one) makes up the gap.
    s = _score(
        [
            _row("a", sim=rel_a, at=LIVE - timedelta(days=age_a)),
            _row("b", sim=rel_a * ratio, at=LIVE - timedelta(days=age_b)),
        ],
        LIVE,
        Weights(0.5, 0.2, 0.2, 0.0),
    )
    assert s["a"].total >= s["b"].total


@pytest.mark.parametrize(
    ("kind", "query"),
    [
        ("episode", "what did nora cook"),  # an event is as true a year later
        ("fact", "what did nora cook in march 2024"),
        ("fact", "what did nora cook two years ago"),
        ("fact", "where did nora go last summer"),
    ],
)
def test_events_and_questions_naming_a_time_do_not_age(kind: str, query: str) -> None:
    rows = [
        _row("old", sim=0.60, at=LIVE - timedelta(days=365)),
        _row("new", sim=0.57, at=LIVE),
    ]
    s = _score(rows, LIVE, kind=kind, query=query)
    assert s["old"].decay == s["new"].decay == 1.0
    assert s["old"].total > s["new"].total


def test_without_relevance_weights_recency_is_not_gated() -> None:
    s = _score(
        [_row("a", sim=0.6, at=LIVE - timedelta(days=90)), _row("b", sim=0.0, at=LIVE)],
        LIVE,
        Weights(0, 0, 1, 0),
    )
    assert s["b"].recency == 1.0 and s["b"].total > s["a"].total


def test_a_question_hands_its_score_to_the_reply_that_follows_it() -> None:
    s = _score(
        [
            _row("question", sim=0.7, kw=2.0, at=LIVE),
            _row("other", sim=0.3, at=LIVE),
            _row("reply", sim=0.1, at=LIVE),
        ],
        LIVE,
    )
    ranked = sorted(s.values(), key=lambda x: -x.total)
    assert [x.id for x in ranked] == ["question", "other", "reply"]
    lifted = lift_replies(ranked[:2], {"reply": s["reply"]}, {"reply": "question"})
    # The exchange is served as its reply, in the question's place.
    assert [x.id for x in lifted] == ["reply", "other"]
    reply = lifted[0]
    assert reply.via == "question"
    assert reply.total == pytest.approx(REPLY_SHARE * s["question"].total)
    assert reply.total == pytest.approx(s["reply"].total + reply.context)


def test_a_reply_or_member_reported_harmful_is_not_lifted_back() -> None:
    """Salience multiplies every memory's score: a reply (or a digest member) reported harmful
    is lifted to REPLY_SHARE of its question's (or digest's) total times its own salience."""
    s = _score(
        [_row("question", sim=0.7, kw=2.0, at=LIVE), _row("digest", sim=0.7, kw=2.0, at=LIVE)],
        LIVE,
    )
    harmful = {"harmful": 2, "helpful": 0}
    reply = _score([{**_row("reply", sim=0.1, at=LIVE), **harmful}], LIVE)["reply"]
    member = _score([{**_row("m", sim=0.1, at=LIVE), **harmful}], LIVE)["m"]
    assert reply.salience == member.salience == 0.25
    (lifted,) = lift_replies([s["question"]], {"reply": reply}, {"reply": "question"})
    assert lifted.total == pytest.approx(REPLY_SHARE * s["question"].total * 0.25, abs=1e-6)
    out = lift_members([s["digest"]], {"digest": [member]})
    assert out[1].total == pytest.approx(REPLY_SHARE * s["digest"].total * 0.25, abs=1e-6)


def test_a_later_pass_is_normalised_against_the_recalls_best_keyword_of_its_kind() -> None:
    """A digest's members are scored in a pass of their own: a weak keyword hit among them is
    a share of the best episode hit of the recall, not 1.0 for being the best of a few."""
    rows = [_row("episode", sim=0.5, kw=10.0, at=LIVE)]
    pool = pool_of(rows, LIVE, {"episode": rows})
    assert pool.best_keyword == {"episode": 10.0}
    (member,) = score_rows(
        "episode",
        [_row("member", sim=0.5, kw=2.0, at=LIVE)],
        query="question words",
        weights=Weights().normalised(),
        half_life_days=30,
        valid_at=LIVE,
        pool=pool,
    )
    assert member.keyword == pytest.approx(0.2)  # 2.0 of the best 10.0, not 1.0


def test_a_reply_already_better_than_its_question_keeps_its_own_score() -> None:
    s = _score([_row("q", sim=0.3, at=LIVE), _row("r", sim=0.7, at=LIVE)], LIVE)
    out = {x.id: x for x in lift_replies(list(s.values()), {}, {"r": "q"})}
    assert out["r"].context == 0.0 and out["r"].via is None and "q" in out


def test_a_digest_hands_its_score_to_its_best_member_and_stays() -> None:
    s = _score(
        [
            _row("digest", sim=0.7, kw=2.0, at=LIVE),
            _row("other", sim=0.3, at=LIVE),
            _row("m1", sim=0.1, at=LIVE),
            _row("m2", sim=0.2, at=LIVE),
        ],
        LIVE,
    )
    ranked = [s["digest"], s["other"]]
    out = lift_members(ranked, {"digest": [s["m1"], s["m2"]]})
    # The summary stays; its best member follows it as the evidence, at REPLY_SHARE of it.
    assert [x.id for x in out] == ["digest", "m2", "other"]
    member = out[1]
    assert member.via == "digest" and member.via_text == "text of digest"
    assert member.total == pytest.approx(REPLY_SHARE * s["digest"].total)
    assert member.total == pytest.approx(s["m2"].total + member.context)
    # A member already listed (asked as of before the compaction) is not added twice.
    again = lift_members([s["digest"], s["m2"]], {"digest": [s["m2"]]})
    assert [x.id for x in again] == ["digest", "m2"] and again[1].via is None


@pytest.mark.parametrize(
    ("text", "asking"),
    [
        ("any tips to stay active while you heal?", True),
        ("Sorry about your knee! Any tips to stay active?  ", True),
        ("\u00bfQu\u00e9 haces para relajarte?", True),
        ("What do you do to relax? I have been trying yoga.", False),
        ("\u4f60\u505a\u4ec0\u4e48\u6765\u653e\u677e\uff1f", True),
        ("I paint watercolours to relax.", False),
    ],
)
def test_asks_knows_a_turn_ending_in_a_question_in_any_script(text: str, asking: bool) -> None:
    assert asks(text) is asking


def test_a_question_naming_a_speaker_scores_the_vector_part_without_the_names() -> None:
    """A labelled turn's cosine to the whole question is mostly the shared label: on a pool
    scored without the names, the turn that matches the rest of the question is the best."""
    label_only = {**_row("label", sim=0.6, at=LIVE), "content": (1 + 0.1) / 2}
    answer = {**_row("answer", sim=0.5, at=LIVE), "content": (1 + 0.4) / 2}
    rows = [label_only, answer]
    whole = _score(rows, LIVE, kind="episode")
    assert whole["label"].similarity == 1.0 > whole["answer"].similarity
    pool = pool_of(rows, LIVE, on_content=True)
    assert pool.best_cosine == pytest.approx(0.4)
    on_rest = _score(rows, LIVE, kind="episode", pool=pool)
    label, best = on_rest["label"], on_rest["answer"]
    assert best.similarity == 1.0 and label.similarity == pytest.approx(0.25)
    assert label.cosine == pytest.approx(0.6)  # the reported cosine is to the whole query


def test_scored_without_the_names_a_memory_the_whole_question_is_close_to_stays_relevant() -> None:
    """The relative cut (relevance on the pool's scale) still sees the whole question: the
    answer whose words were the name's keeps the relevance its whole cosine gives it, while
    its score is on the rest of the question."""
    named = {**_row("named", sim=0.55, at=LIVE), "content": (1 + 0.1) / 2}
    other = {**_row("other", sim=0.3, at=LIVE), "content": (1 + 0.4) / 2}
    rows = [named, other]
    by_id = _score(
        rows,
        LIVE,
        kind="episode",
        query="what pet did Amara adopt",
        pool=pool_of(rows, LIVE, on_content=True),
    )
    assert by_id["named"].similarity == pytest.approx(0.25)  # scored on the rest
    assert by_id["named"].relevance == pytest.approx(1.0)  # relevant by the whole question
    assert by_id["other"].total > by_id["named"].total
