"""A version's life once some of its evidence is withdrawn (a contributor forgotten).

A version left with no evidence goes; one others also support is believed from when the
others first said it, holds in the world from the earliest start of their episodes when
nobody stated its start, and is said when the others said it (``rest_on``). The purge stores
that (repositories/forget.py, ``rest_on_evidence_left``); while it is still on its way to a
slot, reads resolve that slot through ``withdraw`` instead (repositories/shadow.py), so what
they answer from the forget's commit on is what the slot will hold once the purge has been
there (tests/integration/test_forget_in_flight.py compares the two).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from graph_memory.temporal.model import Telling, VersionLife

__all__ = ["Link", "rest_on", "withdraw"]


@dataclass(frozen=True)
class Link:
    """One piece of a version's evidence: linked at belief moment ``at`` (None: when the
    version was recorded) to an episode that started at ``started``; ``withdrawn`` when the
    episode is a forgotten contributor's."""

    at: datetime | None
    started: datetime
    withdrawn: bool


def withdraw(
    life: VersionLife, links: Sequence[Link], ends: Sequence[datetime]
) -> VersionLife | None:
    """``life`` as the purge leaves it; None when it goes (all its evidence withdrawn).

    ``ends``: when belief in it ended (superseded, retracted, rejected, expired). A version
    whose remaining evidence came only after one of them keeps its times, as the purge does:
    moving them would invert its belief interval."""
    if not any(link.withdrawn for link in links):
        return life
    kept = [link for link in links if not link.withdrawn]
    if not kept:
        return None
    return rest_on(life, kept, ends)


def rest_on(life: VersionLife, kept: Sequence[Link], ends: Sequence[datetime]) -> VersionLife:
    """``life`` as the evidence ``kept`` alone supports it (what the purge stores for a
    version others also support, and ``withdraw`` answers with before it does)."""
    if not kept:
        return life
    first = min(link.at or life.recorded_at for link in kept)
    began = min(link.started for link in kept)
    out = life
    if first > life.recorded_at and all(first < t for t in ends):
        activated = life.activated_at
        out = replace(
            out,
            recorded_at=first,
            activated_at=None if activated is None else max(activated, first),
        )
    if (
        not life.stated
        and life.valid_from is not None
        and began > life.valid_from
        and (life.valid_to is None or began < life.valid_to)
    ):
        out = replace(out, valid_from=began)
    return replace(out, tellings=_tellings(kept, out.recorded_at))


def _tellings(kept: Sequence[Link], recorded_at: datetime) -> tuple[Telling, ...]:
    """The told log the remaining links write (fact.create, fact.add_evidence): from the
    first link on, said at its episode's start; moved on by each later link whose episode
    started later still."""
    said_by_moment: dict[datetime, datetime] = {}
    for link in kept:
        at = link.at or recorded_at
        said_by_moment[at] = max(said_by_moment.get(at, link.started), link.started)
    out: list[Telling] = []
    top: datetime | None = None
    for at, said in sorted(said_by_moment.items()):
        if top is None:
            out.append(Telling(recorded_at, said))
            top = said
        elif said > top:
            out.append(Telling(at, said))
            top = said
    return tuple(out)
