"""A recall's keyword scores are the tenant's own: another tenant's words never move them, and
asked as of a moment they stay what they were after later writes (services/recall/keywords.py
scores them with the candidates' statistics, not the shared full-text index's)."""

from __future__ import annotations

import time
import uuid
from datetime import UTC, datetime
from typing import Any

from tests.integration.conftest import episode, fact


def test_keyword_scores_ignore_other_tenants_and_later_writes(
    make_client: Any, tenant: str
) -> None:
    mine, other = make_client(tenant), make_client(f"{tenant}-other")
    rare, common = f"kay{uuid.uuid4().hex[:6]}", f"sno{uuid.uuid4().hex[:6]}"
    e = mine.record_episode(**episode("hal", summary="Hal listed his hobbies during onboarding."))
    mine.assert_facts(
        [
            fact("hal", "hobby", rare, [e], cardinality="MANY"),
            fact("hal", "hobby", common, [e], cardinality="MANY"),
        ]
    )
    time.sleep(0.05)
    at = datetime.now(UTC).isoformat()
    time.sleep(0.05)

    def ask() -> list[tuple[str, dict[str, Any]]]:
        res = mine.recall(
            f"{rare} {common}",
            ["user:hal"],
            kinds=["FACT"],
            as_of=at,
            min_score=0.0,
            min_relevance=0.0,
            relative_relevance=0.0,
        )
        return [(i["id"], i["score"]) for i in res["items"]]

    before = ask()
    assert len(before) == 2 and all(s["keyword"] > 0 for _, s in before)
    # Another tenant writes one of the words forty times ...
    eo = other.record_episode(**episode("zed", summary="Zed kept notes about a club."))
    other.assert_facts(
        [fact("zed", "note", f"{rare} meeting {i}", [eo], cardinality="MANY") for i in range(40)]
    )
    # ... and this tenant writes it again, after the moment asked about.
    e2 = mine.record_episode(**episode("hal", "s2", summary="Hal joined a club."))
    mine.assert_facts(
        [fact("hal", "club", f"{rare} club {i}", [e2], cardinality="MANY") for i in range(10)]
    )
    assert ask() == before
