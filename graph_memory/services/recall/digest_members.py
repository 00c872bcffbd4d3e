"""Coarse to fine over consolidation's digests. Pure, no I/O.

Compaction (services/consolidation/compaction.py) makes a digest episode stand for the old
episodes of one topic: recall searches the digest, not its members, so a store of years of
sessions stays small to search. But the digest is a summary: the words that answer a question
(the turn, the date, the amount) are in one of its members. So a digest among the best k hands
its score on to its best-matching member, which is served right after it, at ``REPLY_SHARE``
of the digest's total (or its own score, if better), with ``via`` naming the digest and the
lift reported as the breakdown's ``context`` part. The digest stays in the list: it answers
"what happened about X" as a whole, the member carries the evidence. Members are scored by
the same rule as every candidate and must pass the same floors (the caller filters them).
"""

from __future__ import annotations

from dataclasses import replace

from graph_memory.services.recall.neighbours import REPLY_SHARE
from graph_memory.services.recall.ranking import Scored

__all__ = ["lift_members"]


def lift_members(ranked: list[Scored], members: dict[str, list[Scored]]) -> list[Scored]:
    """``ranked`` with, after each digest that has members (by digest id), its best member
    lifted to ``REPLY_SHARE`` of the digest's total; best first again. A member already in the
    list (an earlier asOf, before it was compacted) is not added twice."""
    present = {s.id for s in ranked}
    out = list(ranked)
    for digest in ranked:
        candidates = [m for m in members.get(digest.id, []) if m.id not in present]
        if not candidates:
            continue
        best = max(candidates, key=lambda m: (m.total, m.relevance, m.id))
        base = best.total - best.context
        # The member's own salience applies: one reported harmful is not lifted back.
        lifted = max(best.total, round(REPLY_SHARE * digest.total * best.salience, 6))
        out.append(
            replace(
                best,
                total=lifted,
                context=round(lifted - base, 6),
                via=digest.id,
                via_text=str(digest.record.get("text") or ""),
            )
        )
        present.add(best.id)
    return sorted(out, key=lambda s: (-s.total, -s.tier_rank, s.id))
