"""Retrieval bookkeeping off the hot path: counts and last-retrieved times, written in batches.

A recall only notes what it served (a dict update, no I/O); a background task owned by the
process flushes the notes every ``interval`` seconds, or sooner once ``max_pending`` memories
wait. Close flushes what is left. The figures feed consolidation (decay of unused memories,
garbage collection of unretrieved ones), where a second of delay or a lost batch after a crash
costs nothing, while a write on every read would put a lock and a round trip on every recall.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph_memory.repositories.recall import RecallRepository

__all__ = ["RetrievalBookkeeper"]

log = logging.getLogger("graph_memory.bookkeeping")


@dataclass
class _Note:
    count: int
    at: datetime


class RetrievalBookkeeper:
    def __init__(
        self, repo: RecallRepository, *, interval: float = 1.0, max_pending: int = 1_000
    ) -> None:
        self.repo = repo
        self.interval = interval
        self.max_pending = max_pending
        self._pending: dict[tuple[str, str, str], _Note] = {}
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._closed = False

    @property
    def pending(self) -> int:
        return len(self._pending)

    def record(self, tenant: str, items: Iterable[tuple[str, str]], at: datetime) -> None:
        """Note that (kind, id) memories were served at ``at``; never blocks, never raises."""
        for kind, ident in items:
            key = (tenant, kind, ident)
            note = self._pending.get(key)
            if note is None:
                self._pending[key] = _Note(1, at)
            else:
                note.count += 1
                note.at = max(note.at, at)
        if self._closed:
            return
        self._ensure_running()
        if len(self._pending) >= self.max_pending and self._wake is not None:
            self._wake.set()

    def _ensure_running(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (sync caller): the next flush() or close() writes the notes
        task = self._task
        if task is None or task.done() or task.get_loop() is not loop:
            self._wake = asyncio.Event()
            self._task = loop.create_task(self._run(self._wake), name="retrieval-bookkeeping")

    async def _run(self, wake: asyncio.Event) -> None:
        while not self._closed:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), timeout=self.interval)
            wake.clear()
            await self.flush()

    async def flush(self) -> int:
        """Write every pending note now; returns how many memories were updated.

        Failures are logged and the batch is dropped: bookkeeping must never fail a recall.
        """
        if not self._pending:
            return 0
        # Swapped without an await in between, so concurrent flushes write disjoint batches.
        batch, self._pending = self._pending, {}
        by_tenant: dict[str, list[dict[str, Any]]] = {}
        for (tenant, kind, ident), note in batch.items():
            by_tenant.setdefault(tenant, []).append(
                {"kind": kind, "id": ident, "count": note.count, "at": note.at}
            )
        touched = 0
        for tenant, rows in by_tenant.items():
            try:
                touched += await self.repo.touch(tenant, rows)
            except Exception:  # any store failure: log, drop, keep serving
                log.warning(
                    "retrieval bookkeeping for %d memories of tenant %s lost",
                    len(rows),
                    tenant,
                    exc_info=True,
                )
        return touched

    async def close(self) -> None:
        """Stop the flusher and write what is pending (called on app shutdown)."""
        self._closed = True
        task, self._task = self._task, None
        if task is not None and not task.done():
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if task.get_loop() is running and self._wake is not None:
                # Let an in-flight flush finish rather than cancelling it mid-write.
                self._wake.set()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(task, timeout=10)
        await self.flush()
