"""Scoring an episode with its neighbour: the reply that follows a question. Pure, no I/O.

Recorded turn by turn, a conversation keeps its answers one step away from the words that
match the question: asked "what does Melanie do to relax?", the turn phrased most like it is
often the other speaker asking the same thing ("what do you do to unwind?"), and the answer
is the turn after it ("I paint, mostly watercolours"), which shares no word with the question.
Episodes of a session are linked by NEXT (cypher/episode/link_sessions.cypher), so a matched
episode that asks something hands its score on to the episode that follows it, the reply, and
the exchange is served as its reply: the reply takes the question's place in the ranking, at
``REPLY_SHARE`` of the question's total (or its own score, if better), and ``via`` names the
question. The share is below 1 because the reply is one step removed from the match (the
question may have gone unanswered): a direct match of nearly the same score goes first. The
reply's own salience still applies (services/recall/salience.py): one reported harmful is
not lifted back to its question's score. The lift is reported as the breakdown's ``context``
part.

The question itself leaves the list: what it asks is what the caller asked, so it adds nothing
the reply does not carry (and ``via`` still names it), while keeping both would spend two of
the k places on one exchange. Only questions hand on their score, and only episodes that end
asking (a turn, not a summary that quotes a question): a statement's neighbour is as likely to
be small talk as an answer.
"""

from __future__ import annotations

from dataclasses import replace

from graph_memory.services.recall.ranking import Scored

__all__ = ["QUESTION_MARKS", "REPLY_SHARE", "asks", "lift_replies"]

REPLY_SHARE = 0.95
# The question marks of the scripts people write in: Latin, full-width (CJK), Spanish
# opening, Arabic.
QUESTION_MARKS = frozenset("?\uff1f\u00bf\u061f")


def asks(text: str) -> bool:
    """Whether an episode ends asking something (its last character is a question mark)."""
    stripped = text.rstrip()
    return bool(stripped) and stripped[-1] in QUESTION_MARKS


def lift_replies(
    ranked: list[Scored], replies: dict[str, Scored], follows: dict[str, str]
) -> list[Scored]:
    """``ranked`` with each reply lifted to ``REPLY_SHARE`` of its question's total in place of
    the question (added when it was not there); best first again.

    ``replies``: the reply episodes scored on their own, by id; ``follows``: reply id ->
    the question id it follows. A reply following several matched questions takes the best.
    """
    by_id = {s.id: s for s in ranked}
    out = {s.id: s for s in ranked}
    answered: set[str] = set()
    for reply_id, question_id in follows.items():
        question = by_id.get(question_id)
        own = out.get(reply_id) or replies.get(reply_id)
        if question is None or own is None:
            continue
        base = own.total - own.context
        lifted = round(REPLY_SHARE * question.total * own.salience, 6)
        if lifted > own.total:
            out[reply_id] = replace(
                own,
                total=lifted,
                context=round(lifted - base, 6),
                via=question.id,
                via_text=str(question.record.get("text") or ""),
            )
            answered.add(question_id)
    kept = [s for s in out.values() if s.id not in answered]
    return sorted(kept, key=lambda s: (-s.total, -s.tier_rank, s.id))
