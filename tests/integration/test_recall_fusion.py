"""Recall over conversation turns: relevance before newness, the answer before its look-alike,
floors that keep a real answer, the reply that follows a matched question, and a breakdown
that explains each item. Asked both right after the talk and years later."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import episode, fact
from tests.integration.recall_helpers import SCOPES, ids, one

LAST = datetime(2025, 6, 1, tzinfo=UTC)  # the last session
MODES = {"live": LAST + timedelta(days=1), "years_later": LAST + timedelta(days=5 * 365)}
EPISODES_ONLY: dict[str, Any] = {"kinds": ["EPISODE"]}
# Small talk of the recent sessions: fresh, and about nothing asked below.
CHATTER = [
    "I fixed the leaking kitchen tap this morning.",
    "The weather turned cold again, I need a thicker coat.",
    "My neighbour's kids were loud all weekend.",
    "We ordered pizza and watched a football match.",
    "Traffic on the ring road was terrible today.",
    "I finally cleaned out the garage.",
]


def _record(client: GraphMemoryClient, turns: list[tuple[str, str, datetime]]) -> list[str]:
    """Record (session, text, at) turns in order; their ids."""
    payload = [
        episode("alice", session=s, summary=text, startedAt=at, endedAt=at, topics=[])
        for s, text, at in turns
    ]
    got = client.record_episodes(payload)
    assert all(r["ok"] for r in got), got
    return [str(r["id"]) for r in got]


def _chatter(client: GraphMemoryClient) -> list[str]:
    return _record(
        client,
        [("recent", t, LAST - timedelta(days=8 - i)) for i, t in enumerate(CHATTER)],
    )


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_old_relevant_episode_beats_fresh_irrelevant_ones(
    client: GraphMemoryClient, mode: str
) -> None:
    (old,) = _record(
        client,
        [
            (
                "old",
                "We adopted a greyhound called Biscuit from the shelter.",
                LAST - timedelta(days=400),
            )
        ],
    )
    _chatter(client)
    res = client.recall(
        "what is the name of the dog alice adopted", SCOPES, valid_at=MODES[mode], **EPISODES_ONLY
    )
    assert ids(res)[:1] == [old], res["items"]
    # Episodes are events: they do not age (services/recall/fusion.py, AGEING_KINDS).
    assert all(i["score"]["decay"] == 1.0 for i in res["items"])


@pytest.mark.parametrize("mode", sorted(MODES))
def test_an_old_relevant_fact_beats_fresh_irrelevant_ones(
    client: GraphMemoryClient, mode: str
) -> None:
    (ep,) = _record(client, [("s", "Alice talked about her pets and her house.", LAST)])
    old = one(client, fact("Alice", "adopted", "Biscuit", [ep], cardinality="MANY",
                           text="Alice adopted a greyhound called Biscuit from the shelter",
                           validFrom=LAST - timedelta(days=400)))  # fmt: skip
    for i, text in enumerate(CHATTER):
        fresh = LAST - timedelta(days=i)
        one(client, fact("Alice", "mentioned", f"chatter {i}", [ep], cardinality="MANY",
                         text=f"Alice said: {text}", validFrom=fresh))  # fmt: skip
    res = client.recall(
        "what is the name of the dog alice adopted", SCOPES, valid_at=MODES[mode], kinds=["FACT"]
    )
    assert ids(res)[:1] == [old], res["items"]
    top = res["items"][0]["score"]
    assert top["decay"] < 0.01  # old, measured from the scope's newest memory, and still first
    for other in res["items"][1:]:
        assert other["score"]["recency"] <= other["score"]["decay"]


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_keyword_strong_answer_beats_a_look_alike_question(
    client: GraphMemoryClient, mode: str
) -> None:
    # The look-alike is phrased like the question (the closer cosine); the answer holds its
    # rare words (the far stronger BM25). Other talk about book clubs makes "book" and "club"
    # common words here, as they would be in a long memory.
    background = [
        "The book club at the library picked a thriller this time.",
        "Is the book club still reading that long fantasy novel?",
        "My sister runs a book club for her colleagues.",
        "I left the club early, the book was boring.",
    ]
    made = _record(
        client,
        [("a", t, LAST - timedelta(days=300 + i)) for i, t in enumerate(background)]
        + [
            ("b", "Do you know when the book club meets these days?", LAST - timedelta(days=20)),
            ("c", "The Quillfeather club meets on the first Tuesday, I bring snacks.",
             LAST - timedelta(days=21)),
        ],
    )  # fmt: skip
    look_alike, answer = made[-2], made[-1]
    res = client.recall(
        "When does the Quillfeather book club meet?", SCOPES, valid_at=MODES[mode], **EPISODES_ONLY
    )
    got = ids(res)
    assert answer in got and look_alike in got
    assert got.index(answer) < got.index(look_alike), res["items"]


def test_floors_keep_a_real_answer_a_look_alike_outscores(client: GraphMemoryClient) -> None:
    _chatter(client)
    made = _record(
        client,
        [
            ("q", "Any ideas how to stay active while your knee heals?", LAST - timedelta(days=30)),
            ("r", "Honestly, watercolor painting keeps me busy while I heal.",
             LAST - timedelta(days=200)),
        ],
    )  # fmt: skip
    res = client.recall(
        "what does alice do to stay busy while her knee heals", SCOPES, **EPISODES_ONLY
    )
    assert made[1] in ids(res), res["items"]


def test_the_reply_after_a_matched_question_is_returned(client: GraphMemoryClient) -> None:
    _chatter(client)
    at = LAST - timedelta(days=100)
    question, reply, after = _record(
        client,
        [
            ("talk", "Sorry about your knee! What do you do to keep moving while it heals?", at),
            ("talk", "I do watercolor painting, and I swim twice a week.",
             at + timedelta(minutes=1)),
            ("talk", "Nice, see you on Friday then.", at + timedelta(minutes=2)),
        ],
    )  # fmt: skip
    res = client.recall(
        "how does alice keep moving while her knee heals", SCOPES, k=3, **EPISODES_ONLY
    )
    got = ids(res)
    # The exchange is served as its reply, which names the question it follows.
    assert got[:1] == [reply] and question not in got, res["items"]
    item = res["items"][0]
    assert item["via"] == question and item["score"]["context"] > 0
    assert item["viaText"].startswith("Sorry about your knee!")
    assert after not in got  # only the reply to the question is handed its score
    packed = client.context("how does alice keep moving while her knee heals", 300, SCOPES,
                            kinds=["EPISODE"])  # fmt: skip
    assert "I swim twice a week. (in reply to: Sorry about your knee!" in packed["text"]


def test_every_item_explains_its_score(client: GraphMemoryClient) -> None:
    _chatter(client)
    res = client.recall("cleaning out the garage", SCOPES, k=10, min_score=0.0, **EPISODES_ONLY)
    w = res["weights"]
    assert res["items"]
    for item in res["items"]:
        s = item["score"]
        assert all(0.0 <= s[p] <= 1.0 for p in (*w, "cosine", "decay")), s
        parts = sum(w[p] * s[p] for p in w) + s["tierBoost"] + s["context"]
        assert s["total"] == pytest.approx(parts, abs=1e-5)
        assert s["recency"] <= s["decay"] + 1e-9
    assert res["items"][0]["score"]["vector"] == 1.0  # the pool's best cosine


def test_floors_say_how_many_candidates_each_dropped(client: GraphMemoryClient) -> None:
    _chatter(client)
    q = "cleaning out the garage"
    res = client.recall(q, SCOPES, k=10, **EPISODES_ONLY)
    drops = res["floorDrops"]
    assert sum(drops.values()) == res["belowThreshold"] > 0
    # Unrelated small talk fails the absolute floor or the relative one, nothing else.
    assert drops["minRelevance"] + drops["relativeRelevance"] == res["belowThreshold"]
    strict = client.recall(q, SCOPES, k=10, min_score=0.99, **EPISODES_ONLY)
    assert strict["items"] == [] and strict["floorDrops"]["minScore"] == strict["considered"]
    packed = client.context(q, 200, SCOPES, kinds=["EPISODE"])
    assert sum(packed["floorDrops"].values()) > 0


def test_min_relevance_decides_whether_there_is_an_answer_not_how_long_it_is(
    client: GraphMemoryClient,
) -> None:
    """One turn reaches minRelevance; another answer is under it (cosine ~0.27, and "planted"
    covers one of the question's three words) but well within the relative cut: it is served
    with the first. A question about something never told stays empty."""
    _chatter(client)
    strong, weak = _record(
        client,
        [
            ("garden", "Spring planting went well: tomatoes, basil and peppers.",
             LAST - timedelta(days=60)),
            ("garden", "I planted tomatoes and basil in the raised beds.",
             LAST - timedelta(days=59)),
        ],
    )  # fmt: skip
    res = client.recall("What did Jules plant in the spring?", SCOPES, k=10, **EPISODES_ONLY)
    got = ids(res)
    assert got[:1] == [strong] and weak in got, res["items"]
    assert sum(res["floorDrops"].values()) == res["belowThreshold"] == res["considered"] - 2
    never = client.recall("Which opera did Jules see in Vienna?", SCOPES, k=10, **EPISODES_ONLY)
    assert never["items"] == [], never["items"]
    assert never["floorDrops"]["minRelevance"] > 0
    assert sum(never["floorDrops"].values()) == never["belowThreshold"] == never["considered"]
