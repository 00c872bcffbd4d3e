"""The keyword signal, scored with the candidate pool's own statistics (recall/keywords.py)."""

from __future__ import annotations

import math
import time
from typing import Any

from graph_memory.services.recall.keywords import MAX_SCORED_CHARS, scored_pool, with_keywords


def rows(*texts: str) -> list[dict[str, Any]]:
    return [{"id": f"m{i}", "text": t, "keyword": 3.0} for i, t in enumerate(texts)]


def test_a_rare_word_of_the_pool_weighs_more_than_a_common_one() -> None:
    pool = rows("Alice kayaks on weekends", "Alice swims on weekends", "Alice runs on weekends")
    [scored], stats = scored_pool([pool], "kayaks weekends")
    kayak, swim = scored[0]["keyword"], scored[1]["keyword"]
    assert kayak > swim > 0
    # Lucene's idf on the pool: "weekend" in all 3, "kayak" in 1.
    assert stats.docs == 3 and stats.holding == {"kayak": 1, "weekend": 3}
    assert math.isclose(stats.idf("kayak"), math.log(1 + (3 - 1 + 0.5) / 1.5))
    assert scored[0]["found"] == {"kayak", "weekend"} and scored[1]["found"] == {"weekend"}


def test_no_query_word_no_keyword_and_stop_words_and_possessives_are_no_terms() -> None:
    pool = rows("Bob's dog is called Rex", "the weather was nice", "The U.S. policy")
    [scored], _ = scored_pool([pool], "what is bob's dog called")
    assert scored[0]["keyword"] > 0
    assert scored[0]["found"] == {"bob", "dog", "call"}  # no "" for the possessive's "s"
    assert scored[1]["keyword"] is None  # the Lucene score the row came with is replaced
    assert scored[2]["keyword"] is None
    assert scored_pool([pool], "the is")[0][0][0]["keyword"] is None


def test_words_stemming_alike_match_whatever_their_endings() -> None:
    pool = rows("She was happy there", "Happiness matters to her", "The dog died", "Nothing")
    [scored], _ = scored_pool([pool], "happiness dies")
    assert [r["found"] for r in scored] == [{"happi"}, {"happi"}, {"di"}, set()]


def test_a_score_depends_only_on_the_pool_and_later_passes_use_its_statistics() -> None:
    pool = rows("Hal's hobby is kayaking", "Hal's hobby is snorkeling")
    [alone], stats = scored_pool([pool], "kayaking")
    [again], _ = scored_pool([list(pool)], "kayaking")
    assert alone == again
    later = with_keywords(rows("kayaking with friends"), "kayaking", stats)
    assert later[0]["keyword"] > 0
    # A longer text holding the word once scores lower (length norm on the pool's mean).
    longer = rows("kayaking", "kayaking with friends near the old harbour every summer")
    [scored], _ = scored_pool([longer], "kayaking")
    assert scored[0]["keyword"] > scored[1]["keyword"]


def test_withheld_rows_have_no_keyword_part_and_count_in_no_statistic() -> None:
    pool = rows("Alice kayaks", "Alice kayaks daily")
    pool[1]["withheld"] = True
    [scored], stats = scored_pool([pool], "kayaks")
    assert stats.docs == 1 and scored[1]["keyword"] is None and scored[1]["found"] == set()


def test_a_large_pool_of_long_texts_is_scored_in_bounded_time() -> None:
    words = [f"w{i}x{j}" for i in range(400) for j in range(5)]
    text = " ".join(words)
    pool = rows(*[text + f" kayak{i}" for i in range(2_000)])
    began = time.perf_counter()
    [scored], _ = scored_pool([pool], "kayak harbour")
    took = time.perf_counter() - began
    assert len(scored) == 2_000
    # Only the first MAX_SCORED_CHARS of each text are read; before, every word was stemmed.
    assert len(text) > MAX_SCORED_CHARS
    assert took < 3.0, took
