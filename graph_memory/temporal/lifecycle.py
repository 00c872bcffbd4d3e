"""A version's lifecycle: one append-only change log, and what it says at any moment.

A version's content never changes; what happens to it does: it is activated (declared,
promoted or approved), flagged for verification and verified again (any number of times),
superseded, retracted, rejected, expired. Every write that changes one of these appends
``(moment, change)`` to the version's log (``changes_at`` / ``changes`` on the node), in the
same transaction. The state at a past moment is the log folded up to it (``life_at``), so a
later change can never alter an earlier answer; only excision (a forgotten contributor's
influence, a rolled-back consolidation run) rewrites the log, as if those writes had never
happened.

``services/facts/belief.py`` applies the state to a stored version; the one Cypher reader of
the log, ``cypher/fact/_flagged_at``, filters a page by the same fold of the flag changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from graph_memory.domain import Status

__all__ = ["Change", "LifeState", "life_at"]


class Change(StrEnum):
    ACTIVATED = "activated"  # served as truth from then on: declared, promoted or approved
    FLAGGED = "flagged"  # awaiting verification (a premise in doubt, a TTL elapsed)
    VERIFIED = "verified"  # a flag cleared by fresh evidence
    SUPERSEDED = "superseded"
    RETRACTED = "retracted"  # by its writer, evicted by capacity or collected by decay
    REJECTED = "rejected"  # a candidate a reviewer turned down
    EXPIRED = "expired"  # its TTL elapsed


@dataclass(frozen=True, slots=True)
class LifeState:
    """The lifecycle at one moment: when each change in force then happened (None: not yet)."""

    activated_at: datetime | None = None  # the first activation
    flagged: bool = False
    flagged_at: datetime | None = None  # the last flag
    verified_at: datetime | None = None  # the last verification
    superseded_at: datetime | None = None
    retracted_at: datetime | None = None
    rejected_at: datetime | None = None
    expired_at: datetime | None = None

    @property
    def status(self) -> Status:
        """An ending wins over everything; a version never activated is a candidate, whatever
        happened to it since (an expired candidate is still one to review)."""
        if self.retracted_at is not None:
            return Status.RETRACTED
        if self.superseded_at is not None:
            return Status.SUPERSEDED
        if self.rejected_at is not None:
            return Status.REJECTED
        if self.activated_at is None:
            return Status.CANDIDATE
        if self.expired_at is not None:
            return Status.EXPIRED
        return Status.ACTIVE


def life_at(changes: Iterable[tuple[datetime, Change]], at: datetime | None = None) -> LifeState:
    """The log folded up to ``at`` inclusive (None: all of it, the state now). Changes are
    taken in time order, ties in log order: the log is appended in commit order, but an
    excision may rewrite an entry's moment."""
    activated = flagged_at = verified_at = None
    superseded = retracted = rejected = expired = None
    flagged = False
    for when, change in sorted(changes, key=lambda c: c[0]):
        if at is not None and when > at:
            break
        if change is Change.ACTIVATED:
            activated = activated or when
        elif change is Change.FLAGGED:
            flagged, flagged_at = True, when
        elif change is Change.VERIFIED:
            flagged, verified_at = False, when
        elif change is Change.SUPERSEDED:
            superseded = superseded or when
        elif change is Change.RETRACTED:
            retracted = retracted or when
        elif change is Change.REJECTED:
            rejected = rejected or when
        elif change is Change.EXPIRED:
            expired = expired or when
    return LifeState(
        activated_at=activated,
        flagged=flagged,
        flagged_at=flagged_at,
        verified_at=verified_at,
        superseded_at=superseded,
        retracted_at=retracted,
        rejected_at=rejected,
        expired_at=expired,
    )
