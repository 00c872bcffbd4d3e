"""A version's life once some of its evidence is withdrawn (a contributor forgotten).

A version left with no evidence goes; one others also support is believed from when the
others first said it, holds in the world as the first of their tellings claimed (from the
earliest start of their episodes when a link kept no claim and nobody stated its start),
speaks with the strongest tier they spoke with, and is said when the others said it
(``rest_on``, ``kept_telling``). The purge stores
that (repositories/forget.py, ``rest_on_evidence_left``); while it is still on its way to a
slot, reads resolve that slot through ``withdraw`` instead (repositories/shadow.py), so what
they answer from the forget's commit on is what the slot will hold once the purge has been
there (tests/integration/test_forget_in_flight.py compares the two).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from graph_memory.domain import TIER_RANK, Tier
from graph_memory.temporal.model import Telling, VersionLife

__all__ = ["Link", "Said", "kept_telling", "others_first", "repromote", "rest_on", "withdraw"]


@dataclass(frozen=True)
class Said:
    """What one telling said, stored on its evidence link (fact.create, fact.add_evidence):
    the validity it claimed (``stated``: its start was given) and the tier it spoke with. A
    re-telling that corroborates a version adds evidence without changing it, so once the
    telling that made the version is withdrawn, the version is what the first telling left
    would have made it."""

    valid_from: datetime
    valid_to: datetime | None
    stated: bool
    tier: Tier
    # The write's source (its tier follows from it): None on links written before it was kept.
    source: str | None = None


@dataclass(frozen=True)
class Link:
    """One piece of a version's evidence: linked at belief moment ``at`` (None: when the
    version was recorded) to an episode that started at ``started``; ``withdrawn`` when the
    episode is a forgotten contributor's; ``claim`` what that telling said (None: linked
    before links kept it, or copied by a merge)."""

    at: datetime | None
    started: datetime
    withdrawn: bool
    claim: Said | None = None
    # The session it came from (domain.session_key): independent evidence counts sessions.
    session: str | None = None


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


def others_first(life: VersionLife, kept: Sequence[Link]) -> datetime | None:
    """When the evidence ``kept`` first said the version, if after it was recorded (the
    withdrawn tellings said it alone until then); None otherwise. forget/_hidden_audit asks
    the same of the graph while a purge is on its way."""
    first = min((link.at or life.recorded_at for link in kept), default=None)
    return first if first is not None and first > life.recorded_at else None


def rest_on(life: VersionLife, kept: Sequence[Link], ends: Sequence[datetime]) -> VersionLife:
    """``life`` as the evidence ``kept`` alone supports it (what the purge stores for a
    version others also support, and ``withdraw`` answers with before it does)."""
    if not kept:
        return life
    first = others_first(life, kept) or life.recorded_at
    began = min(link.started for link in kept)
    out = life
    if first > life.recorded_at and all(first < t for t in ends):
        activated = life.activated_at
        out = replace(
            out,
            recorded_at=first,
            activated_at=None if activated is None else max(activated, first),
        )
    lead = _lead(life, kept)
    if lead is not None:
        # As the first telling left made it: its start (given or not) and its end.
        out = replace(out, valid_from=lead.valid_from, valid_to=lead.valid_to, stated=lead.stated)
    elif (
        not life.stated
        and life.valid_from is not None
        and began > life.valid_from
        and (life.valid_to is None or began < life.valid_to)
    ):
        out = replace(out, valid_from=began)
    return replace(out, tellings=_tellings(kept, out.recorded_at))


def repromote(
    life: VersionLife, kept: Sequence[Link], ends: Sequence[datetime], threshold: int
) -> VersionLife:
    """An inference promoted by corroboration (not by a reviewer; the caller knows which), as
    the evidence ``kept`` promotes it: from when the ``threshold``-th distinct session among
    it was linked, if that is later than its promotion (until then the withdrawn sessions made
    up the count). With fewer sessions left it is unchanged here: the promotion is withdrawn
    altogether (forget/recandidate). Reached only once belief in it had ended (``ends``, as
    ``rest_on`` takes them): unchanged too, as ``rest_on`` keeps such a version's times (moving
    its promotion past its end would invert its change log)."""
    if life.activated_at is None:
        return life
    seen: set[str | None] = set()
    for link in sorted(kept, key=lambda x: x.at or life.recorded_at):
        seen.add(link.session)
        if len(seen) >= threshold:
            at = link.at or life.recorded_at
            moved = at > life.activated_at and all(at < t for t in ends)
            return replace(life, activated_at=at) if moved else life
    return life


def _lead(life: VersionLife, kept: Sequence[Link]) -> Said | None:
    """The claim of the first telling left, when the tellings that made the version are gone
    (None: one of them is left, and the version stays as it made it; or some link kept no
    claim)."""
    if not kept or any(link.claim is None for link in kept):
        return None
    if any((link.at or life.recorded_at) <= life.recorded_at for link in kept):
        return None
    first = min(kept, key=lambda link: (link.at or life.recorded_at, link.started))
    return first.claim


def kept_telling(kept: Sequence[Link]) -> Said | None:
    """The telling left that speaks with the strongest tier (the first told of those): the
    version's tier, and the source it came from, once the others' go (a write corroborates
    only a version of its own tier or above, so this is never above the version's). None:
    some link kept no claim."""
    if not kept or any(link.claim is None for link in kept):
        return None
    told = sorted(
        kept, key=lambda link: (link.at is not None, link.at or link.started, link.started)
    )
    claims = [link.claim for link in told if link.claim is not None]
    top = max(TIER_RANK[c.tier] for c in claims)
    return next(c for c in claims if TIER_RANK[c.tier] == top)


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
