"""What a fact batch decides on, read under its write locks in one round trip.

``fact.write_state`` takes the batch's scope locks and then reads the cited episodes, the
predicates' registered cardinalities and each slot's versions and open segments: one round
trip where the write path used four (the lock, the episodes, the predicates, the current
versions) and a fifth after the write (timeline.slot_state) for the timeline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_tenant
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.timeline import _segment, life_of
from graph_memory.temporal import Segment, VersionLife

__all__ = [
    "Prelock",
    "PrelockAhead",
    "PrelockRepository",
    "SlotState",
    "WriteState",
    "WriteStateRepository",
]

SlotKey = tuple[str, str, str]

# What the write rules read of a current version (services/facts/validity.py, rules.py).
_CURRENT_KEYS = (
    "id",
    "object_key",
    "tier",
    "status",
    "version",
    "expires_ms",
    "valid_from_us",
    "valid_to_us",
    "valid_from_stated",
    "told_us",
)


@dataclass
class SlotState:
    """One (scope, subject, predicate) slot as stored when the batch took its locks."""

    current: list[dict[str, Any]] = field(default_factory=list)
    max_version: int = 0
    lives: list[VersionLife] = field(default_factory=list)
    # Open segments (believed now) with their node ids.
    open: dict[Segment, str] = field(default_factory=dict)

    @property
    def fresh(self) -> bool:
        """No version at all before the batch (so no segment either); a many-valued slot read
        for some objects only (fact.write_state) may hold other objects' versions."""
        return not self.lives and self.max_version == 0

    @property
    def last_stamp(self) -> datetime | None:
        """The latest belief moment stored in the slot (a version's life, an open segment)."""
        stamps = [life.last_stamp for life in self.lives] + [s.sys_from for s in self.open]
        return max(stamps, default=None)


@dataclass(frozen=True)
class WriteState:
    episodes: dict[str, Record]
    predicates: dict[str, str]
    slots: dict[SlotKey, SlotState]

    def stamps(self) -> list[datetime | None]:
        """The latest moment stamped in each of the batch's slots (its clock follows them:
        Tx.clock)."""
        return [s.last_stamp for s in self.slots.values()]


def _slot(r: Record) -> SlotState:
    versions = r["versions"]
    return SlotState(
        current=[{k: v[k] for k in _CURRENT_KEYS} for v in versions if v["current"]],
        # Of the whole slot: a narrowed read (fact.write_state) holds only some versions.
        max_version=int(r["top"] or 0),
        lives=[life_of(v) for v in versions],
        open={_segment({**s, "sys_to": None}): s["id"] for s in r["open"]},
    )


class WriteStateRepository:
    @staticmethod
    async def tenant_rulings(
        tx: Tx, tenant: str, scope: str, tiers: Iterable[str], predicates: Iterable[str]
    ) -> dict[str, list[Record]]:
        """Per predicate, the single-valued facts of these ``tiers`` in the tenant's shared
        ``scope``, in force, whatever their subject (fact.tenant_rulings)."""
        names = sorted(set(predicates))
        if not names:
            return {}
        rows = await tx.run(
            "fact.tenant_rulings",
            {
                "tenant": require_tenant(tenant),
                "scope": scope,
                "tiers": list(tiers),
                "names": names,
            },
        )
        return {str(r["predicate"]): list(r["versions"]) for r in rows}

    @staticmethod
    async def lock_and_read(
        tx: Tx,
        tenant: str,
        scopes: Iterable[str],
        episode_ids: Iterable[str],
        predicates: Iterable[str],
        slots: Mapping[SlotKey, Iterable[str] | None],
    ) -> WriteState:
        """Take the scope locks (sorted here, the order every writer takes them in), then read
        what the batch decides on; a slot without versions comes back as an empty state.
        ``slots``: each with the objects the batch's items name there (None: read it whole). Of
        a many-valued slot only
        the versions of those objects compete with the batch's (graph_memory/temporal), so
        only they (and their open segments) are read: a "likes" slot told hundreds of objects
        costs what its few named ones do. Every decision and settle of a many-valued slot
        looks at one object's versions (services/facts/validity.place, rules.
        check_slot_capacity, temporal.timeline._groups); the highest version number is the
        whole slot's."""
        tenant = require_tenant(tenant)
        keys = sorted(set(slots))
        named = {k: None if (objects := slots[k]) is None else sorted(set(objects)) for k in keys}
        # A lock this transaction holds already (a session's ingestion writes its episode
        # first) is not taken again: re-locking a held node can deadlock against a writer
        # waiting for it (repositories/locks.py).
        wanted = WriteLocks.wanted(tx, tenant, scopes)
        rows = await tx.run(
            "fact.write_state",
            {
                "tenant": tenant,
                "scopes": wanted,
                "ids": sorted(set(episode_ids)),
                "names": sorted(set(predicates)),
                "slots": [
                    {
                        "scope": s,
                        "subject": su,
                        "predicate": p,
                        "objects": named[(s, su, p)],
                    }
                    for s, su, p in keys
                ],
            },
        )
        tx.held.update(("scope", tenant, s) for s in wanted)
        row = rows[0]
        tx.locked(row["lock_stamp"], [(tenant, s) for s in wanted], row["server_now"])
        states = {k: SlotState() for k in keys}
        for r in row["slots"]:
            states[(r["scope"], r["subject"], r["predicate"])] = _slot(r)
        return WriteState(
            episodes={e["id"]: e for e in row["episodes"]},
            predicates={p["name"]: p["cardinality"] for p in row["predicates"]},
            slots=states,
        )


class PrelockRepository:
    """Reads a batch makes before it takes any lock, to know which locks to take: what they
    return can only go stale in ways the read under the locks (``lock_and_read``) sees."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def episodes(self, tenant: str, ids: list[str]) -> dict[str, Record]:
        if not ids:
            return {}
        rows = await self.db.read("episode.cited", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["id"]: r for r in rows}

    async def predicates(self, tenant: str, names: list[str]) -> dict[str, str]:
        if not names:
            return {}
        rows = await self.db.read(
            "predicate.lookup", {"tenant": require_tenant(tenant), "names": names}
        )
        return {r["name"]: r["cardinality"] for r in rows}


class Prelock(Protocol):
    """The reads a batch makes before it takes any lock (PrelockRepository's)."""

    async def episodes(self, tenant: str, ids: list[str]) -> dict[str, Record]: ...

    async def predicates(self, tenant: str, names: list[str]) -> dict[str, str]: ...


class PrelockAhead:
    """PrelockRepository's reads started before the batch is built, answered from when they
    cover what is asked (else read then): a session's ingestion knows its episode and its
    predicates while it still resolves entity names, and the reads overlap that one instead
    of following it. ``close`` drops what was not used."""

    def __init__(
        self, repo: PrelockRepository, tenant: str, episode_ids: list[str], names: list[str]
    ) -> None:
        self._repo, self._tenant = repo, tenant
        self._episode_ids, self._names = frozenset(episode_ids), frozenset(names)
        self._episodes = asyncio.ensure_future(repo.episodes(tenant, sorted(self._episode_ids)))
        self._predicates = asyncio.ensure_future(repo.predicates(tenant, sorted(self._names)))

    async def episodes(self, tenant: str, ids: list[str]) -> dict[str, Record]:
        if tenant != self._tenant or not set(ids) <= self._episode_ids:
            return await self._repo.episodes(tenant, ids)
        got = await self._episodes
        return {i: got[i] for i in ids if i in got}

    async def predicates(self, tenant: str, names: list[str]) -> dict[str, str]:
        if tenant != self._tenant or not set(names) <= self._names:
            return await self._repo.predicates(tenant, names)
        got = await self._predicates
        return {n: got[n] for n in names if n in got}

    async def close(self) -> None:
        for task in (self._episodes, self._predicates):
            task.cancel()
        # Their own outcome (a failure, the cancellation) is dropped; one of the caller's is
        # not swallowed here.
        await asyncio.gather(self._episodes, self._predicates, return_exceptions=True)
