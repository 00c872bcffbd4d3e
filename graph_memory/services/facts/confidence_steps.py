"""Each item's own share of a batch's confidence change, for the audit log.

A batch can touch one fact several times (created, then corroborated by later items). The
recount after the batch gives only the fact's final confidence; the audit wants what each item
changed, so that a fact's deltas add up to its confidence and a promotion is logged once, by
the item that reached the threshold. Pure: the evidence before the batch comes in as data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graph_memory.domain import noisy_or

__all__ = ["Step", "Touch", "steps"]


@dataclass(frozen=True)
class Touch:
    """One accepted item's effect on a fact: its index, the fact, the episodes it cites."""

    index: int
    fact_id: str
    citations: list[dict[str, Any]]  # {"episode_id", "weight"}
    created: bool


@dataclass(frozen=True)
class Step:
    delta: float
    promoted: bool


@dataclass
class _State:
    confidence: float
    status: str
    cap: float
    links: dict[str, tuple[str, float]] = field(default_factory=dict)  # episode -> session, w

    def link(self, citations: list[dict[str, Any]], session_of: dict[str, str]) -> None:
        # An episode already linked keeps its first weight (fact.add_evidence: ON CREATE).
        for c in citations:
            self.links.setdefault(c["episode_id"], (session_of[c["episode_id"]], c["weight"]))

    def recount(self) -> tuple[float, int]:
        by_session: dict[str, list[float]] = {}
        for session, weight in self.links.values():
            by_session.setdefault(session, []).append(float(weight))
        return noisy_or(by_session, self.cap), len(by_session)


def steps(
    touches: list[Touch],
    before: dict[str, dict[str, Any]],
    created: dict[str, dict[str, Any]],
    after: dict[str, float],
    session_of: dict[str, str],
    promote_sessions: int,
) -> dict[int, Step]:
    """``before``: existing facts as they were before the batch (confidence, status, tier_cap,
    evidence [{episode_id, session, weight}]); ``created``: this batch's new versions' props;
    ``after``: the recount's final confidence per fact. Replays the touches in batch order.
    The last touch of a fact takes whatever rounding is left, so its deltas sum exactly to
    the change the fact saw."""
    states: dict[str, _State] = {}
    out: dict[int, Step] = {}
    last: dict[str, int] = {t.fact_id: t.index for t in touches}
    for t in sorted(touches, key=lambda t: t.index):
        state = states.get(t.fact_id)
        if state is None:
            if t.created:
                props = created[t.fact_id]
                state = _State(0.0, str(props["status"]), float(props["tier_cap"]))
            else:
                prior = before[t.fact_id]
                state = _State(
                    float(prior["confidence"] or 0.0),
                    str(prior["status"]),
                    float(prior["tier_cap"]),
                )
                for e in prior["evidence"]:
                    state.links.setdefault(e["episode_id"], (e["session"], e["weight"]))
            states[t.fact_id] = state
        state.link(t.citations, session_of)
        confidence, sessions = state.recount()
        if last[t.fact_id] == t.index and t.fact_id in after:
            confidence = after[t.fact_id]
        promoted = state.status == "candidate" and sessions >= promote_sessions and not t.created
        if promoted:
            state.status = "active"
        out[t.index] = Step(round(confidence - state.confidence, 6), promoted)
        state.confidence = confidence
    return out
