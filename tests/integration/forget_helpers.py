"""Shared by the forget tests: a purge held in flight (claimed by a runner that never goes
on, as a crashed or slow one whose lease has not run out), and services to drive it with."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from graph_memory.container import Services, build_services
from graph_memory.domain import Principal, Role, utcnow
from graph_memory.repositories.forget_jobs import ForgetJobRepository
from graph_memory.services.forget.service import ForgetJob, ForgetService
from graph_memory.settings import Settings

T = TypeVar("T")
STALLED = "stalled-runner"


def with_services(settings: Settings, work: Callable[[Services], Awaitable[T]]) -> T:
    async def go() -> T:
        services = build_services(settings)
        try:
            return await work(services)
        finally:
            await services.close()

    return asyncio.run(go())


def admin_of(tenant: str) -> Principal:
    return Principal(tenant=tenant, role=Role.ADMIN, key_id="test-admin", name="admin")


def held(settings: Settings, tenant: str, user: str) -> str:
    """Phase 1 only, with the purge claimed by a runner that never goes on (a crashed one whose
    lease has not run out): the window a purge in flight leaves open."""

    async def work(s: Services) -> str:
        assert s.forget is not None
        job_id = await s.forget.mark(admin_of(tenant), user)

        async def hold(tx: Any) -> bool:
            now = utcnow()
            return await ForgetJobRepository.claim(
                tx, tenant, job_id, STALLED, now, now + timedelta(minutes=10)
            )

        assert await s.db.write_tx(hold)
        return job_id

    return with_services(settings, work)


def release(settings: Settings, job_id: str) -> None:
    """The stalled runner's lease runs out (the passage of time, moved over Bolt)."""

    async def work(s: Services) -> None:
        await s.db.run_raw(
            "MATCH (j:ForgetJob {id: $id}) SET j.lease_until = datetime() - duration('PT1S')",
            {"id": job_id},
        )

    with_services(settings, work)


def run_purge(
    settings: Settings,
    tenant: str,
    job_id: str,
    batch: int,
    max_batches: int | None = None,
    owner: str | None = None,
) -> ForgetJob | None:
    """A runner of the purge in this process (``owner``: as the one holding its lease)."""

    async def work(s: Services) -> ForgetJob | None:
        assert s.policies is not None
        svc = ForgetService(s.db, s.policies.policy_for, s.embedder, batch_size=batch)
        svc.owner = owner or svc.owner
        return await svc.run(tenant, job_id, max_batches=max_batches)

    return with_services(settings, work)


def finish(settings: Settings, tenant: str, job_id: str, batch: int) -> ForgetJob:
    """The purge ``held`` stalled, run to its end by the runner holding its lease (no lease
    runs out on the way, so the server's resumer, which scans for purges without a runner,
    cannot take it over first)."""
    done = run_purge(settings, tenant, job_id, batch, owner=STALLED)
    assert done is not None and done.done, done
    return done
