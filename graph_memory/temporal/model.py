"""Values the rule works on: a version's whole life, and a version as believed at a moment."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

__all__ = ["Claim", "Span", "Telling", "VersionLife", "View"]


class View(StrEnum):
    """Which versions compete. ``ACTIVE``: those promoted by then (what reads serve as truth);
    ``ALL``: candidates too (a read that asks for candidates). A stored segment that is the
    same in both views is kept once as ``BOTH``."""

    ACTIVE = "active"
    ALL = "all"
    BOTH = "both"


@dataclass(frozen=True)
class Telling:
    """From belief moment ``at`` on, the version counts as said at ``told_at`` (a fact told
    again in a later session is said then)."""

    at: datetime
    told_at: datetime


@dataclass(frozen=True)
class Claim:
    """One version as believed at one moment: what the rule compares."""

    id: str
    version: int
    object_key: str
    valid_from: datetime | None  # None: open start
    valid_to: datetime | None  # None: open end (half-open [valid_from, valid_to))
    stated: bool  # whether anyone gave its start (else it defaulted to when it was said)
    recorded_at: datetime
    said_at: datetime  # when it was said, as known at that moment
    many: bool = False  # a many-valued predicate: only versions of the same object compete

    @property
    def start(self) -> datetime:
        return self.valid_from if self.valid_from is not None else self.recorded_at

    def holds(self, moment: datetime) -> bool:
        return self.valid_to is None or self.valid_to > moment

    def valid_at(self, moment: datetime | None) -> bool:
        """Half-open validity; ``moment`` None stands for a time before every instant."""
        if moment is None:
            return self.valid_from is None
        return (self.valid_from is None or self.valid_from <= moment) and self.holds(moment)

    def started_by(self, moment: datetime | None) -> bool:
        return self.valid_from is None or (moment is not None and self.valid_from <= moment)

    def ended_by(self, moment: datetime | None) -> bool:
        return moment is not None and self.valid_to is not None and self.valid_to <= moment


@dataclass(frozen=True)
class VersionLife:
    """A version with every lifecycle moment that decides whether it competes.

    ``activated_at`` None: never promoted (a candidate); ``ended_at``: when belief in it ended
    (retracted, rejected); ``tellings``: when it was said, as that moved (oldest first);
    ``entered_at``: when it joined this slot, if after ``recorded_at`` (an entity merge's copy
    of a version: it competes as the version it copies, told when that was, but is believed
    only from the merge on, so no answer before the merge changes)."""

    id: str
    version: int
    object_key: str
    valid_from: datetime | None
    valid_to: datetime | None
    stated: bool
    recorded_at: datetime
    activated_at: datetime | None
    ended_at: datetime | None
    tellings: tuple[Telling, ...] = ()
    many: bool = False
    entered_at: datetime | None = None

    @property
    def believed_from(self) -> datetime:
        """The first belief moment at which this version is in its slot."""
        if self.entered_at is None or self.entered_at < self.recorded_at:
            return self.recorded_at
        return self.entered_at

    def believed(self, at: datetime, view: View) -> bool:
        if self.believed_from > at or (self.ended_at is not None and self.ended_at <= at):
            return False
        if view is View.ALL:
            return True
        return self.activated_at is not None and self.activated_at <= at

    @property
    def last_stamp(self) -> datetime:
        """The latest belief moment this version's life was stamped with."""
        stamps = [self.believed_from, *(t.at for t in self.tellings)]
        stamps += [t for t in (self.activated_at, self.ended_at) if t is not None]
        return max(stamps)

    def said_at(self, at: datetime) -> datetime:
        said = self.recorded_at
        for t in self.tellings:
            if t.at <= at:
                said = t.told_at
        return said

    def claim(self, at: datetime) -> Claim:
        return Claim(
            id=self.id,
            version=self.version,
            object_key=self.object_key,
            valid_from=self.valid_from,
            valid_to=self.valid_to,
            stated=self.stated,
            recorded_at=self.recorded_at,
            said_at=self.said_at(at),
            many=self.many,
        )

    def moments(self) -> list[datetime]:
        """Belief moments at which this version's part in the rule can change."""
        out = [self.believed_from, *(t.at for t in self.tellings)]
        if self.activated_at is not None:
            out.append(self.activated_at)
        if self.ended_at is not None:
            out.append(self.ended_at)
        return out


@dataclass(frozen=True)
class Span:
    """Version ``fact_id`` answers for validity [valid_from, valid_to) (None: open)."""

    fact_id: str
    valid_from: datetime | None
    valid_to: datetime | None
