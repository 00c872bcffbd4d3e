"""Resumes forget purges that no runner holds: after a crash or a restart of the process that
started them (their lease expired), or when the call that started one went away."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from graph_memory.domain import utcnow
from graph_memory.errors import StoreUnavailable
from graph_memory.services.forget.service import ForgetService

__all__ = ["ForgetResumer"]

log = logging.getLogger("graph_memory.forget")


class ForgetResumer:
    def __init__(self, forget: ForgetService, poll_seconds: float = 5.0) -> None:
        self.forget = forget
        self.poll_seconds = poll_seconds

    async def tick(self) -> int:
        """Start every due purge in this process; returns how many were started."""
        due = await self.forget.jobs.due(utcnow())
        for tenant, job_id in due:
            self.forget.start(tenant, job_id)
        return len(due)

    async def run(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                started = await self.tick()
                if started:
                    log.info("resumed %d forget job(s)", started)
            except StoreUnavailable:  # an outage, not a bug: no traceback, the next tick retries
                log.warning("forget resumer: the store is unavailable; retrying")
            except Exception:
                log.exception("forget resumer: could not scan for due jobs")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), self.poll_seconds)
