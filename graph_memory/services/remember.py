"""remember: one session's episode and the facts it established, in one call.

The facts cite the episode the call records, so a client never carries an episode id from
one request to the next (the step a new user most often got wrong). Under an idempotency
key a retried call answers as the first one did: the episode's id is derived from the key,
so a replay finds the episode it already recorded instead of recording a second one, and
the facts go through ``assertFacts``' own idempotency under the same key.
"""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import dataclass
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import (
    Citation,
    EpisodeInput,
    FactInput,
    Principal,
    as_datetime,
    check_id,
)
from graph_memory.errors import Conflict, GraphMemoryError, ValidationError
from graph_memory.services.episodes import ContributorChanged, EpisodeService
from graph_memory.services.facts.writes import MAX_BATCH, FactService, ItemResult

__all__ = ["RememberService", "Remembered", "episode_id_for"]


@dataclass(frozen=True)
class Remembered:
    episode_id: str | None
    episode_error: GraphMemoryError | None
    facts: list[ItemResult]


def episode_id_for(tenant: str, key: str, contributor: str, owner: str | None = None) -> str:
    """The id of the episode ``remember`` records under ``key`` for the episode's user's
    ``contributor`` key (EpisodeService.contributor): stable across replays, and new once
    the user is forgotten (a replay then answers as for a fresh key and shares no id with
    what was forgotten). ``owner``: the user a session token serves, whose keys are its own
    (repositories/idempotency.py); user ids and keys hold no NUL, so the parts stay apart."""
    parts = [tenant, "remember", contributor, *([owner] if owner is not None else []), key]
    return "ep_" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


def _id_before_contributors(tenant: str, key: str, owner: str | None) -> str:
    """The id ``episode_id_for`` gave before it took the contributor: a replay of a call
    made before the upgrade still finds that call's episode (a forgotten user's is hidden,
    so one found is the current contributor's)."""
    parts = [tenant, "remember", *([owner] if owner is not None else []), key]
    return "ep_" + hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:32]


# What a replay must match of the episode stored under its key; the times only when the
# replay gives any (without, the first call's episode happened when it was recorded).
_SAME = ("scope", "user_id", "session_id", "summary", "outcome", "topics", "key_entities",
         "source", "confidence")  # fmt: skip


def _same_episode(stored: Record, item: EpisodeInput, row: dict[str, object]) -> bool:
    """Whether ``item`` (``row``: as recording it would store it) is the stored episode."""
    same = all(_equal(stored.get(k), row[k]) for k in _SAME)
    if item.started_at is None and item.ended_at is None:
        return same
    return (
        same
        and as_datetime(stored.get("started_at")) == row["started_at"]
        and as_datetime(stored.get("ended_at")) == row["ended_at"]
    )


def _equal(stored: object, wanted: object) -> bool:
    # A list property read back may be absent where the row had none.
    if isinstance(wanted, list):
        return isinstance(stored, list | None) and list(stored or []) == wanted
    return stored == wanted


class RememberService:
    def __init__(self, episodes: EpisodeService, facts: FactService) -> None:
        self.episodes = episodes
        self.facts = facts

    async def remember(
        self,
        principal: Principal,
        episode: EpisodeInput,
        facts: list[FactInput],
        idempotency_key: str | None = None,
    ) -> Remembered:
        """Record ``episode``, then assert ``facts``, each citing it (besides any episodes it
        names). An episode the gate refuses is reported and no fact is written: they would
        rest on nothing. Facts are reported one by one, as ``assertFacts`` does."""
        if len(facts) > MAX_BATCH:
            # Refused before anything lands: an episode without the facts it was sent with.
            raise ValidationError(
                f"batch of {len(facts)} facts exceeds the limit of {MAX_BATCH}", field="facts"
            )
        if idempotency_key:
            # Checked before the episode lands: a key too long for the facts' record would
            # leave an episode without its facts.
            check_id(idempotency_key, "idempotencyKey")
        episode_id = await self._record(principal, episode, idempotency_key)
        if isinstance(episode_id, GraphMemoryError):
            return Remembered(None, episode_id, [])
        if not facts and not idempotency_key:
            # Under a key even no facts are recorded as the call's batch: a replay that
            # brings facts is another call (CONFLICT), not a late addition to this one.
            return Remembered(episode_id, None, [])
        citing = [
            dataclasses.replace(
                f,
                citations=(
                    Citation(episode_id, None),
                    *(c for c in f.citations if c.episode_id != episode_id),
                ),
            )
            for f in facts
        ]
        results = await self.facts.assert_facts(
            principal, citing, idempotency_key, operation="remember"
        )
        return Remembered(episode_id, None, results)

    async def _record(
        self, principal: Principal, episode: EpisodeInput, key: str | None
    ) -> str | GraphMemoryError:
        if not key:
            [(episode_id, error)] = await self.episodes.record(principal, [episode])
            if error is not None:
                return error
            assert episode_id is not None
            return episode_id
        # The write gate first: no contributor is made for an episode it refuses.
        checked = await self.episodes.stored_form(principal, episode, "")
        if isinstance(checked, GraphMemoryError):
            return checked
        earlier = _id_before_contributors(principal.tenant, key, principal.user_id)
        for attempt in range(2):
            contributor = await self.episodes.contributor(principal, str(checked["user_id"]))
            derived = episode_id_for(principal.tenant, key, contributor, principal.user_id)
            found = await self._recorded(principal, episode, checked, [derived, earlier])
            if found is not None:
                return found
            try:
                [(episode_id, error)] = await self.episodes.record(
                    principal, [episode], ids=[derived], contributor=contributor
                )
            except ContributorChanged:
                if attempt:
                    raise
                continue  # the user was forgotten in between: a new contributor, a new id
            except Conflict:
                # A concurrent call under the same key recorded the episode first (its id's
                # uniqueness refused this one): answer as that call did.
                if await self._recorded(principal, episode, checked, [derived]):
                    return derived
                raise
            if error is not None:
                return error
            return derived
        raise AssertionError("unreachable: the second attempt returns or raises")

    async def _recorded(
        self, principal: Principal, episode: EpisodeInput, row: dict[str, Any], ids: list[str]
    ) -> str | None:
        """The first of ``ids`` the key's episode is recorded under, if any; Conflict when it
        is another episode. ``row``: the episode as recording it would store it (its id
        aside, which the comparison does not look at)."""
        found = await self.episodes.get(principal, ids)
        episode_id = next((i for i in ids if i in found), None)
        if episode_id is None:
            return None
        if not _same_episode(found[episode_id], episode, row):
            raise Conflict("idempotency key reused with a different episode")
        return episode_id
