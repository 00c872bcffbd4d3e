"""The keyword signal, scored with the candidate pool's own statistics (recall/keywords.py)."""

from __future__ import annotations

import math

from graph_memory.services.recall.keywords import term_stats, with_keywords


def rows(*texts: str) -> list[dict[str, object]]:
    return [{"id": f"m{i}", "text": t, "keyword": 3.0} for i, t in enumerate(texts)]


def test_a_rare_word_of_the_pool_weighs_more_than_a_common_one() -> None:
    pool = rows(
        "Alice kayaks on weekends",
        "Alice swims on weekends",
        "Alice runs on weekends",
    )
    stats = term_stats(pool, "kayaks weekends")
    scored = with_keywords(pool, "kayaks weekends", stats)
    kayak, swim = scored[0]["keyword"], scored[1]["keyword"]
    assert isinstance(kayak, float) and isinstance(swim, float)
    assert kayak > swim > 0
    # Lucene's idf on the pool: "weekend" in all 3, "kayak" in 1.
    assert stats.docs == 3 and stats.holding == {"kayak": 1, "weekend": 3}
    assert math.isclose(stats.idf("kayak"), math.log(1 + (3 - 1 + 0.5) / 1.5))


def test_no_query_word_no_keyword_and_stop_words_and_possessives_are_no_terms() -> None:
    pool = rows("Bob's dog is called Rex", "the weather was nice")
    scored = with_keywords(pool, "what is bob's dog called", term_stats(pool, "bob's dog"))
    assert scored[0]["keyword"] is not None and scored[0]["keyword"] > 0
    assert scored[1]["keyword"] is None  # the Lucene score the row came with is replaced
    assert with_keywords(pool, "the is", term_stats(pool, "the is"))[0]["keyword"] is None


def test_a_score_depends_only_on_the_pool_not_on_memories_outside_it() -> None:
    pool = rows("Hal's hobby is kayaking", "Hal's hobby is snorkeling")
    alone = with_keywords(pool, "kayaking", term_stats(pool, "kayaking"))
    # The same candidates scored again give the same figures, whatever else exists anywhere.
    again = with_keywords(pool, "kayaking", term_stats(list(pool), "kayaking"))
    assert alone == again
    # A longer text holding the word once scores lower (length norm on the pool's mean).
    longer = rows("kayaking", "kayaking with friends near the old harbour every summer")
    scored = with_keywords(longer, "kayaking", term_stats(longer, "kayaking"))
    assert scored[0]["keyword"] > scored[1]["keyword"]
