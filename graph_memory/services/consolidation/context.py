"""What a consolidation run carries from batch to batch, and how one batch commits.

A run applies in bounded batches, each its own transaction under the tenant lock and the
run's scope locks (writers of those scopes wait for one batch, not for the whole run). In the
same transaction as its changes a batch writes the snapshot of every memory it changes first
(so a rollback restores exactly), its diff entries, the fingerprint it left each memory with,
the run's totals so far and a renewed lease. A crash therefore loses at most the batch in
flight, which never committed: the run's recorded progress is exact, and it can be resumed
(each step plans again from the graph, so what was applied is not planned twice) or rolled
back. A dry run puts every batch in one transaction that is rolled back at the end.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import ACTED_FOR_MARKERS, utcnow
from graph_memory.errors import Conflict
from graph_memory.repositories.consolidation import ConsolidationRepository as Repo
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.timeline import TimelineRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.consolidation.timeline import SlotWrites

__all__ = ["ACTOR", "BATCH", "Change", "Count", "RunContext", "fingerprint"]

ACTOR = "consolidation"
# Memories (or merges, groups) per batch: big enough that round trips do not dominate, small
# enough that a transaction's state stays small (its reads slow down as it grows) and a
# batch holds the scope locks for well under a second.
BATCH = 1_000
_WHO: dict[str, Any] = {"actor": ACTOR, "actor_type": "consolidation"}
# Usage, not belief: served counts move on every read, outcome reports on every use; neither
# makes a run's change stale (and a rollback leaves them as they are).
_USAGE = {
    "retrieval_count",
    "last_retrieved_at",
    "helpful_count",
    "harmful_count",
    "last_outcome_at",
    "last_outcome",
    "after_print",
}
T = TypeVar("T")
Item = TypeVar("Item")


@dataclass(frozen=True)
class Count:
    name: str
    value: int


@dataclass(frozen=True)
class Change:
    seq: int
    step: str
    action: str
    target_id: str
    reason: str | None
    before: str | None  # JSON: the changed properties as they were
    after: str | None  # JSON: the same properties after the change

    def row(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "step": self.step,
            "action": self.action,
            "target_id": self.target_id,
            "reason": self.reason,
            "before": self.before,
            "after": self.after,
        }


def _plain(record: Record) -> dict[str, Any]:
    return {
        k: v
        for k, v in record.items()
        # Whom a session token acted for never changes in a run; schema 110 wrote it onto
        # memories runs had already left, which must not make their changes look stale (nor
        # may the search term of its kind, written by schema 150).
        if v is not None and k not in _USAGE and k not in ACTED_FOR_MARKERS and k != "ft_kind"
    }


def fingerprint(record: Record | None) -> str:
    """What a memory looked like, as a digest: a rollback refuses to restore over a change
    made after the run."""
    if record is None:
        return "gone"
    text = json.dumps(_plain(record), default=str, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _diff(before: Record | None, after: Record | None) -> tuple[str | None, str | None]:
    b, a = _plain(before or {}), _plain(after or {})
    keys = sorted(k for k in set(b) | set(a) if b.get(k) != a.get(k))

    def dump(d: dict[str, Any]) -> str:
        return json.dumps({k: d.get(k) for k in keys}, default=str, sort_keys=True)

    return dump(b), dump(a)


@dataclass
class RunContext:
    """One run (or its resumption) in this process; ``tx`` and ``now`` belong to the batch
    being applied."""

    db: Database
    tenant: str
    scopes: list[str]
    run_id: str
    promote_sessions: int
    lease_seconds: float
    shared: Tx | None = None  # a dry run: every batch in this one transaction
    batch_size: int = BATCH
    now: datetime = field(default_factory=utcnow)
    step: str = ""
    changes: list[Change] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)
    done_steps: list[str] = field(default_factory=list)
    seq_base: int = 0  # diff entries committed by earlier processes of this run
    batches: int = 0
    seqs: list[int] | None = None  # lock counters as the last batch left them
    foreign: bool = False  # someone else wrote the run's scopes between two of its batches
    # Batches that snapshotted memories or journaled timeline writes: what a rollback undoes.
    changed_batches: list[int] = field(default_factory=list)
    _tx: Tx | None = None
    _prints: dict[str, str] = field(default_factory=dict)
    _journal: SlotWrites = field(default_factory=SlotWrites)
    _fresh: bool = False  # this batch snapshotted a memory

    @property
    def tx(self) -> Tx:
        if self._tx is None:
            raise RuntimeError("no batch is being applied")  # a step wrote outside ctx.each
        return self._tx

    # -- planning and batches ----------------------------------------------------------------
    async def plan(self, fn: Callable[[Tx], Awaitable[T]]) -> T:
        """A step's read of what to do, from committed state (or the dry run's transaction)."""
        self.now = utcnow()
        if self.shared is not None:
            return await fn(self.shared)
        return await self.db.read_tx(fn)

    async def each(
        self,
        items: Sequence[Item],
        fn: Callable[[list[Item]], Awaitable[list[Count]]],
        weight: Callable[[Item], int] | None = None,
    ) -> None:
        """Apply ``fn`` to ``items`` in bounded batches, each committed with its diff; a batch
        holds at most ``batch_size`` of them, or of their ``weight`` (the memories an item
        changes), and at least one item."""
        chunk: list[Item] = []
        load = 0
        for item in items:
            w = 1 if weight is None else max(1, weight(item))
            if chunk and load + w > self.batch_size:
                await self._each_batch(fn, chunk)
                chunk, load = [], 0
            chunk.append(item)
            load += w
        if chunk:
            await self._each_batch(fn, chunk)

    async def _each_batch(
        self, fn: Callable[[list[Item]], Awaitable[list[Count]]], chunk: list[Item]
    ) -> None:
        async def work() -> list[Count]:
            return await fn(chunk)

        await self.batch(work)

    async def batch(self, work: Callable[[], Awaitable[list[Count]]]) -> None:
        if self.shared is not None:
            self._tx, self.now = self.shared, utcnow()
            self._add(await work())
            return
        mark, touched = len(self.changes), set(self.touched)

        async def body(tx: Tx) -> tuple[dict[str, dict[str, int]], list[int], bool]:
            # A transient fault replays the whole batch: start from what was committed.
            del self.changes[mark:]
            self.touched = set(touched)
            self._prints = {}
            self._journal, self._fresh = SlotWrites(), False
            self._tx = tx
            await WriteLocks.tenant(tx, self.tenant)
            await WriteLocks.scopes(tx, self.tenant, self.scopes)
            seqs = await Repo.seqs(tx, self.tenant, self.scopes)
            foreign = self.foreign or (self.seqs is not None and seqs != [s + 1 for s in self.seqs])
            self.now = tx.clock(utcnow())  # under the locks: changes follow commit order
            totals = _merged(self.counts, self.step, await work())
            await self._commit(tx, totals, mark, seqs, foreign)
            return totals, seqs, foreign

        try:
            self.counts, self.seqs, self.foreign = await self.db.write_tx(body)
            if self._fresh or self._journal:
                self.changed_batches.append(self.batches)
        except BaseException:
            del self.changes[mark:]
            self.touched = touched
            raise
        finally:
            self._tx = None
        self.batches += 1

    def zero(self, *names: str) -> None:
        """The counts a step reports, at 0 until a batch adds to them."""
        self._add([Count(n, 0) for n in names])

    def _add(self, counts: list[Count]) -> None:
        self.counts = _merged(self.counts, self.step, counts)

    def props(self, totals: dict[str, dict[str, int]] | None = None) -> dict[str, Any]:
        """The run's totals as stored on its node."""
        totals = self.counts if totals is None else totals
        names = list(dict.fromkeys([*self.done_steps, *totals, *self.durations]))
        return {
            "step_names": names,
            "step_durations_ms": [self.durations.get(s, 0.0) for s in names],
            "count_steps": [s for s in names for _ in totals.get(s, {})],
            "count_names": [c for s in names for c in totals.get(s, {})],
            "count_values": [v for s in names for v in totals.get(s, {}).values()],
            "done_steps": self.done_steps,
            "changed": self.seq_base + len(self.changes),
        }

    async def _commit(
        self,
        tx: Tx,
        totals: dict[str, dict[str, int]],
        mark: int,
        seqs: list[int],
        foreign: bool,
    ) -> None:
        props = self.props(totals) | {
            "batches": self.batches + 1,
            "seqs": seqs,
            "foreign_writes": foreign,
        }
        if self._fresh or self._journal:
            props["changed_batches"] = [*self.changed_batches, self.batches]
        if self._journal:
            j = self._journal
            writes: dict[str, list[Any]] = {
                "moved": j.moved,
                "created": j.created,
                "deleted": j.deleted,
                "closed": j.closed,
            }
            await Repo.journal(tx, self.tenant, self.run_id, self.batches, writes)
        until = utcnow() + timedelta(seconds=self.lease_seconds)
        prints = [{"id": i, "print": p} for i, p in self._prints.items()]
        rows = [c.row() for c in self.changes[mark:]]
        if not await Repo.progress(tx, self.tenant, self.run_id, props, rows, prints, until):
            raise Conflict(f"run {self.run_id} lost its lease on {', '.join(self.scopes)}")

    async def step_done(self, name: str, started: float) -> None:
        """Record that step ``name`` finished (its own small transaction), so a resumed run
        goes on with the next one."""
        spent = (time.perf_counter() - started) * 1000.0
        self.durations[name] = self.durations.get(name, 0.0) + spent  # ms, across resumptions
        self.done_steps.append(name)
        self.counts.setdefault(name, {})
        if self.shared is not None:
            return
        props = self.props() | {"batches": self.batches, "changed_batches": self.changed_batches}
        until = utcnow() + timedelta(seconds=self.lease_seconds)
        await self.db.write_tx(
            lambda tx: Repo.progress(tx, self.tenant, self.run_id, props, [], [], until)
        )

    # -- inside a batch ----------------------------------------------------------------------
    async def touch(
        self, ids: list[str], settle: bool = True, keys: Sequence[str] | None = None
    ) -> dict[str, Record]:
        """Snapshot the memories not yet changed in this run; returns their current state.
        ``settle=False`` only for a step whose every timeline write is journaled (``journal``):
        a rollback inverts those instead of recomputing the memories' slots. ``keys``: the
        only properties the batch changes, for a step that changes nothing else (not even
        evidence): the snapshot copies just those, and is widened if a later batch may
        change more."""
        wanted = list(dict.fromkeys(ids))
        fresh = {i for i in wanted if i not in self.touched}
        only = None if keys is None else list(keys)
        state = await Repo.touch(
            self.tx, self.tenant, self.run_id, self.batches, wanted, fresh, settle, only
        )
        self.touched.update(fresh)
        self._fresh = self._fresh or bool(fresh)
        return state

    async def created(self, ids: list[str]) -> None:
        """Memories this batch created (no state before the run): their snapshot says so, and
        a rollback of the batch deletes them."""
        fresh = [i for i in dict.fromkeys(ids) if i not in self.touched]
        await Repo.snapshot_created(self.tx, self.tenant, self.run_id, self.batches, fresh)
        self.touched.update(fresh)
        self._fresh = self._fresh or bool(fresh)

    async def settle(self, ids: list[str]) -> None:
        """Settle the timeline of versions whose part in the rule this batch changed, at the
        batch's moment, and journal what that wrote: a quiet rollback reopens and deletes
        exactly those segments instead of recomputing the slots."""
        settled = await TimelineRepository.settle_facts(self.tx, self.tenant, ids, self.now)
        self.journal(SlotWrites.of(settled))

    def journal(self, writes: SlotWrites) -> None:
        """Timeline writes of this batch (reslot's, a settle's), committed with it for its
        rollback."""
        self._journal.extend(writes)

    async def record(
        self,
        action: str,
        before: dict[str, Record],
        reasons: dict[str, str | None],
        after: dict[str, Record] | None = None,
    ) -> list[dict[str, Any]]:
        """Diff entries and audit events for the memories in ``reasons``; ``after``: their
        state now, when the caller knows it exactly (else read back)."""
        if after is None:
            after = await FactRepository.get_in_tx(self.tx, self.tenant, list(reasons))
        events = []
        for fid, reason in reasons.items():
            b, a = _diff(before.get(fid), after.get(fid))
            seq = self.seq_base + len(self.changes)
            self.changes.append(Change(seq, self.step, action, fid, reason, b, a))
            self._prints[fid] = fingerprint(after.get(fid))
            old, new = before.get(fid) or {}, after.get(fid) or {}
            delta = (new.get("confidence") or 0.0) - (old.get("confidence") or 0.0)
            events.append(
                audit.event(
                    None,
                    action,
                    "fact",
                    fid,
                    self.now,
                    before=json.loads(b) if b else None,
                    after=json.loads(a) if a else None,
                    confidence_delta=delta,
                    reason=reason,
                    **_WHO,
                )
            )
        return events

    def printed(self, states: dict[str, Record]) -> None:
        """Fingerprints of memories this batch made whose diff entry is another's (an
        entity merge's copies): a rollback refuses to delete one changed since."""
        self._prints.update({fid: fingerprint(state) for fid, state in states.items()})

    def note(self, action: str, target: str, reason: str, after: str | None) -> None:
        """A diff entry for something that is not a fact version (a merge proposal)."""
        seq = self.seq_base + len(self.changes)
        self.changes.append(Change(seq, self.step, action, target, reason, None, after))


def _merged(
    totals: dict[str, dict[str, int]], step: str, counts: list[Count]
) -> dict[str, dict[str, int]]:
    out = {s: dict(c) for s, c in totals.items()}
    mine = out.setdefault(step, {})
    for c in counts:
        mine[c.name] = mine.get(c.name, 0) + c.value
    return out
