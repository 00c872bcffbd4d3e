"""Right to be forgotten: ``forgetContributor(userId)`` excises one user from a tenant's memory,
in two phases, so the call costs the same for a user of ten facts or of half a million.

Phase 1, inside the call, is one small transaction under every write lock of the tenant: the
user's contributor (their User node's key) is marked forgotten by a ``(:Forgotten)`` node and
the User node lets go of the user id (a new episode of the same id starts a new, unrelated
contributor). From its commit on, every read hides what only forgotten contributors gave: each
read query looks the tenant's markers up by index (``cypher/forget/_hidden``) and excludes,
inside the query and before any limit, episodes whose contributor is forgotten, facts and memos
whose every piece of evidence is such an episode, and entities only such facts name
(``forget/_hidden_*``: one rule, written once). Writes citing such an episode are refused with
``CONTRIBUTOR_FORGOTTEN``. A procedure only the contributor's sessions evidence is hidden as
well (``forget/_hidden_procedure``: learned from their practice, or proven only by them); one
others' sessions also evidence stays readable, its steps the writing agent's, the
contributor's evidence hidden from its provenance (the purge recomputes its counts and demotes
it if none is left), so another user may still report an outcome on it.

Phase 2 is a ``(:ForgetJob)``: the purge in bounded batches (``services/forget/purge.py``),
each its own transaction with its progress, under a lease held in the graph so that one runner
works on it at a time across processes; a runner that dies leaves its lease to expire and the
next one resumes from what is left (the graph is the cursor). When nothing is left: the User
node goes, other capabilities' copies of the user's words (``residue``: ingest jobs and memos,
keyed by user id), what was done for them without citing an episode (``acted_for``: their
procedures, their tokens' audit events), merged entities no fact names, the consolidation
history of what was excised (``forget.consolidation_trail``), then the markers, and ONE audit
event with counts per tier and no content, keyed by a pseudonymous receipt (not the user id).
A second forget of the same user joins the running job. ``forgetJob(id)`` reports progress.

What the purge keeps, changed, and why: see ``forget_purge``. While it runs, facts others also
support still show the contributor's evidence removed only from their provenance (their
episodes are hidden) but keep the confidence it gave them, and a version the contributor
superseded is reinstated only when its slot is purged: a window of seconds per 10k facts.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import os
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from graph_memory.db import Database, Tx
from graph_memory.domain import Principal, Role, check_id, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import Forbidden, NotFound, StoreUnavailable, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.forget import ForgetRepository as Repo
from graph_memory.repositories.forget_jobs import ForgetJobRepository as Jobs
from graph_memory.repositories.locks import WriteLocks
from graph_memory.services.audit import events as audit
from graph_memory.services.background import cancel_all
from graph_memory.services.forget.acted_for import scrub_acted_for
from graph_memory.services.forget.purge import Batch, ForgetCounts, purge_batch
from graph_memory.session_share import working_for

__all__ = ["ForgetJob", "ForgetService", "receipt_for"]

log = logging.getLogger("graph_memory.forget")

# Facts (or, in the last batches, episodes) per purge batch: about a second of one
# transaction, so writers of the scopes it touches (who wait for its locks) are held up briefly.
BATCH_SIZE = int(os.environ.get("GRAPH_MEMORY_FORGET_BATCH", "2000"))
LEASE = timedelta(seconds=120)
# The longest a forget call waits for its purge: a forget of any size answers within a minute,
# its job runs on (README: waitSeconds at most 60).
MAX_WAIT_SECONDS = 60.0


def receipt_for(tenant: str, user_id: str, salt: str) -> str:
    """A pseudonymous reference to the forgotten user: the audit event is findable by whoever
    holds the request (and the receipt), but the log itself does not name the person, and
    without the tenant's salt (kept in the graph, never served) no one can compute it from a
    user id or a name (an unkeyed hash of the id matched the id of an entity of that name)."""
    return (
        "forgotten_" + hmac.new(salt.encode(), _named(tenant, user_id), "sha256").hexdigest()[:24]
    )


def _legacy_receipt(tenant: str, user_id: str) -> str:
    """The receipt of a forget started before receipts were keyed (to join its purge)."""
    return "forgotten_" + hashlib.sha256(_named(tenant, user_id)).hexdigest()[:24]


def _named(tenant: str, user_id: str) -> bytes:
    """What a receipt digests: the tenant and the user id."""
    return f"{tenant}\x00{user_id}".encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class ForgetJob:
    """A forget as its caller sees it: the receipt, whether the purge is done, and its counts
    so far (final once ``done``)."""

    id: str
    receipt: str
    state: str  # running | done
    phase: str  # episodes | done
    batches: int
    counts: ForgetCounts
    created_at: datetime | None
    updated_at: datetime | None
    finished_at: datetime | None
    took_ms: float = 0.0

    @property
    def done(self) -> bool:
        return self.state == "done"

    @staticmethod
    def from_record(r: dict[str, Any], took_ms: float = 0.0) -> ForgetJob:
        def when(v: Any) -> datetime | None:
            return datetime.fromisoformat(str(v)) if v else None

        return ForgetJob(
            id=str(r["id"]),
            receipt=str(r["receipt"]),
            state=str(r["state"]),
            phase=str(r["phase"]),
            batches=int(r["batches"] or 0),
            counts=ForgetCounts.from_dict(json.loads(r["counts"] or "{}")),
            created_at=when(r["created_at"]),
            updated_at=when(r["updated_at"]),
            finished_at=when(r["finished_at"]),
            took_ms=took_ms,
        )


@dataclass(frozen=True)
class _Claimed:
    principal: Principal
    tenant: str
    job_id: str
    receipt: str
    user_id: str | None
    contributors: list[str]
    counts: ForgetCounts
    marked_at: datetime  # the last forget's phase 1: the user id's words before it go


class ForgetService:
    def __init__(
        self,
        db: Database,
        policy_for: Callable[[str], Awaitable[TenantPolicy]],
        embedder: Embedder | None = None,
        residue: Sequence[Callable[[str, str, datetime], Awaitable[object]]] = (),
        batch_size: int = BATCH_SIZE,
    ) -> None:
        self.db = db
        self.batch_size = batch_size
        self._policy_for = policy_for
        self.embedder = embedder
        self.jobs = Jobs(db)
        # Other capabilities' copies of the user's words (session ingestion's jobs and memos),
        # removed when the purge finishes: each is idempotent, so a job resumed after a crash
        # simply runs them again.
        self._residue = tuple(residue)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._running: dict[str, asyncio.Task[ForgetJob | None]] = {}

    # -- phase 1 --------------------------------------------------------------------------
    async def forget(
        self, principal: Principal, user_id: str, wait_seconds: float = 0.0
    ) -> ForgetJob:
        """Mark ``user_id`` forgotten in the caller's tenant (admins only) and start the purge;
        wait up to ``wait_seconds`` for it to finish. Idempotent: forgetting an unknown or
        already forgotten user deletes nothing and is still audited; forgetting a user whose
        purge runs joins it. Raises Forbidden (not admin), ValidationError (empty user id or a
        wait outside 0..MAX_WAIT_SECONDS)."""
        _checked(principal, user_id)
        if not 0 <= wait_seconds <= MAX_WAIT_SECONDS:  # NaN too
            raise ValidationError(
                f"waitSeconds must be in 0..{MAX_WAIT_SECONDS:g}, got {wait_seconds:g}",
                field="waitSeconds",
            )
        started = time.perf_counter()
        job_id = await self.mark(principal, user_id)
        task = self.start(principal.tenant, job_id)
        if wait_seconds > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), wait_seconds)
        job = await self.job(principal, job_id)
        return dataclasses.replace(job, took_ms=(time.perf_counter() - started) * 1000)

    async def mark(self, principal: Principal, user_id: str) -> str:
        """Phase 1 alone: the mark and the job (joined when one runs); returns the job id.
        The purge is left to ``start``/``run`` (or to the resumer of any process)."""
        user_id = _checked(principal, user_id)
        tenant = principal.tenant
        policy = await self._policy_for(tenant)

        async def mark(tx: Tx) -> str:
            # Every scope: writes in flight finish first, and every later write sees the mark.
            await WriteLocks.everything(tx, tenant)
            # The mark's moment is the boundary "written before the forget" (a later episode of
            # the user id is a new contributor's): read under every lock, after every stamp
            # committed before it, and recorded on the locks so every later write stamps after
            # it, whichever process's clock wrote either.
            now = tx.clock(utcnow())
            key, salt = await Jobs.user_key(tx, tenant, user_id)
            receipt = receipt_for(tenant, user_id, salt)
            if key is not None:
                await Jobs.mark(tx, tenant, key, now, policy.promote_sessions)
            await Jobs.stop_ingest(tx, tenant, user_id, now)
            contributors = [key] if key else []
            # A purge started before receipts were keyed is found by its unkeyed receipt.
            running = await Jobs.open_job(tx, tenant, receipt) or await Jobs.open_job(
                tx, tenant, _legacy_receipt(tenant, user_id)
            )
            if running is not None:
                await Jobs.join(tx, tenant, running, contributors, now)
                return running
            job_id = f"forget_{uuid.uuid4().hex}"
            await Jobs.create(tx, tenant, job_id, receipt, user_id, contributors, principal, now)
            return job_id

        job_id: str = await self.db.write_tx(mark)
        return job_id

    async def job(self, principal: Principal, job_id: str) -> ForgetJob:
        """A forget job of the caller's tenant (admins only). Raises Forbidden, NotFound."""
        if principal.role is not Role.ADMIN:
            raise Forbidden("only an admin may read forget jobs")
        found = await self.jobs.get(principal.tenant, job_id)
        if found is None:
            raise NotFound(f"no forget job {job_id}")
        return ForgetJob.from_record(found)

    async def stop(self) -> None:
        """Cancel this process's purges (shutdown): each resumes from its last batch."""
        await cancel_all(self._running.values())

    # -- phase 2 --------------------------------------------------------------------------
    def start(self, tenant: str, job_id: str) -> asyncio.Task[ForgetJob | None]:
        """Run the purge in this process (once per job at a time) and return its task."""
        task = self._running.get(job_id)
        if task is None or task.done():
            task = asyncio.create_task(self._run_logged(tenant, job_id), name=f"forget-{job_id}")
            self._running[job_id] = task
            task.add_done_callback(lambda t: self._running.pop(job_id, None))
        return task

    async def _run_logged(self, tenant: str, job_id: str) -> ForgetJob | None:
        try:
            with working_for(tenant):  # its sessions queue behind its own tenant's work
                return await self.run(tenant, job_id)
        except _LeaseLost:
            log.info("forget job %s: taken over by another runner", job_id)
        except StoreUnavailable:  # an outage, not a bug: no traceback
            log.warning(
                "forget job %s: the store is unavailable; it resumes when its lease expires",
                job_id,
            )
        except Exception:  # the job stays leased, expires and is resumed by the next runner
            log.exception("forget job %s failed; it resumes when its lease expires", job_id)
        return None

    async def run(
        self, tenant: str, job_id: str, max_batches: int | None = None
    ) -> ForgetJob | None:
        """Purge until done (or ``max_batches`` batches); None when another runner holds the
        job. Safe to call again at any time: the job resumes from what is left."""
        policy = await self._policy_for(tenant)
        batches = 0
        # The scopes of the contributors' episodes and procedures, per set of contributors (a
        # joining forget adds some): read by the first batch, only shrinking after it.
        episode_scopes: dict[tuple[str, ...], list[str]] = {}
        while max_batches is None or batches < max_batches:
            claimed = await self._claim(tenant, job_id)
            if claimed is None:
                return None
            more = await self.db.write_tx(
                lambda tx, c=claimed: self._batch(tx, policy, c, episode_scopes)  # type: ignore[misc]
            )
            batches += 1
            if not more and await self._finish(claimed):
                break
        found = await self.jobs.get(tenant, job_id)
        return ForgetJob.from_record(found) if found else None

    async def _claim(self, tenant: str, job_id: str) -> _Claimed | None:
        async def work(tx: Tx) -> _Claimed | None:
            now = utcnow()
            if not await Jobs.claim(tx, tenant, job_id, self.owner, now, now + LEASE):
                return None
            r = await Jobs.get_in_tx(tx, tenant, job_id)
            if r is None:
                return None
            return _Claimed(
                principal=Principal(
                    tenant=tenant,
                    role=Role(str(r["actor_role"] or "admin")),
                    key_id=str(r["actor_key"] or "forget"),
                    name=str(r["actor_name"] or ""),
                ),
                tenant=tenant,
                job_id=job_id,
                receipt=str(r["receipt"]),
                user_id=r["user_id"],
                contributors=list(r["contributors"] or []),
                marked_at=datetime.fromisoformat(str(r["marked_at"])),
                counts=ForgetCounts.from_dict(json.loads(r["counts"] or "{}")),
            )

        result: _Claimed | None = await self.db.write_tx(work)
        return result

    async def _batch(
        self,
        tx: Tx,
        policy: TenantPolicy,
        c: _Claimed,
        episode_scopes: dict[tuple[str, ...], list[str]],
    ) -> bool:
        """One purge batch and its progress, atomically; False when nothing was left.
        ``episode_scopes``: the run's cache of ``ForgetRepository.episode_scopes``."""
        tenant = c.tenant
        # The locks of the scopes this batch can write in (its facts and their chains, the
        # conclusions drawn from them, the contributors' episodes and procedures): no writer of
        # those interleaves with it, while the tenant's other scopes keep writing. A batch
        # touches no registry (predicates go at the finish, under every lock).
        key = tuple(sorted(c.contributors))
        if key not in episode_scopes:
            episode_scopes[key] = await Repo.episode_scopes(tx, tenant, c.contributors)
        # First the versions of theirs with an end (forget/_next_facts): until they are purged,
        # listings look for the slots those cut (forget/touched_ends).
        ends = await Repo.ends_left(tx, tenant, c.contributors)
        if ends:  # the job's first batch: facts resting on their words through a digest
            await Repo.repoint_digests(tx, tenant, c.contributors)
        facts = await Repo.batch_scopes(tx, tenant, c.contributors, self.batch_size, ends)
        ends_over = ends and not facts
        if ends_over:
            ends = False
            facts = await Repo.batch_scopes(tx, tenant, c.contributors, self.batch_size, ends)
        await WriteLocks.scopes(tx, tenant, [*facts, *episode_scopes[key]])
        if ends_over:  # under the locks a forget of the same contributor (mark) also takes
            await Repo.ends_purged(tx, tenant, c.contributors)
        now = utcnow()
        counts = ForgetCounts.from_dict(c.counts.as_dict())
        # Promotions are judged by the threshold the in-flight view uses (the forgets'
        # markers), not the policy as it may have changed since.
        threshold = await Repo.threshold(tx, tenant)
        if threshold is not None:
            policy = dataclasses.replace(policy, promote_sessions=threshold)
        batch = Batch(c.principal, policy, c.contributors, now, self.embedder, ends)
        done = await purge_batch(tx, batch, counts, self.batch_size)
        if done is None:
            return False
        await AuditRepository.record_in_tx(tx, tenant, done.events)
        if not await Jobs.progress(
            tx,
            tenant,
            c.job_id,
            self.owner,
            "episodes",
            json.dumps(counts.as_dict()),
            now,
            now + LEASE,
            done.predicates,
        ):
            raise _LeaseLost(c.job_id)
        c.counts.__dict__.update(counts.__dict__)
        return True

    async def _finish(self, c: _Claimed) -> bool:
        """Nothing of theirs is left to purge: the other capabilities' residue, then (in one
        transaction) the User nodes, the audit content naming the user, the markers and the
        one counts-only audit event. False when a forget joined meanwhile with more to purge."""
        tenant = c.tenant
        if c.user_id:
            for purge in self._residue:
                await purge(tenant, c.user_id, c.marked_at)

        async def work(tx: Tx) -> bool:
            await WriteLocks.everything(tx, tenant)
            now = utcnow()
            # Under the locks a joining forget also takes: the contributors as they are now.
            job = await Jobs.get_in_tx(tx, tenant, c.job_id)
            contributors = list(job["contributors"] or []) if job else c.contributors
            left = await Repo.free_episodes(tx, tenant, contributors, None, 1)
            if left.ids:
                return False
            counts = ForgetCounts.from_dict(c.counts.as_dict())
            if c.user_id:
                counts.audit_events_redacted += await Repo.redact_audit(
                    tx, tenant, [c.user_id], now
                )
                procedures, redacted = await scrub_acted_for(
                    tx, tenant, c.user_id, c.marked_at, now
                )
                counts.procedures_deleted += procedures
                counts.audit_events_redacted += redacted
            counts.entities_deleted += await Repo.delete_merged_entities(tx, tenant)
            # Proposals naming the entities gone, and the audit events that quote them.
            proposals = await Repo.drop_orphan_proposals(tx, tenant)
            counts.audit_events_redacted += await Repo.redact_audit(tx, tenant, proposals, now)
            if c.user_id:
                # Last: what the history may keep depends on what the steps above deleted.
                counts.audit_events_redacted += await Repo.scrub_consolidations(
                    tx, tenant, f"user:{c.user_id}", "user:[forgotten]", now
                )
                await Repo.drop_scope_lock(tx, tenant, f"user:{c.user_id}")
            counts.predicates_deleted += await Repo.delete_predicates(
                tx, tenant, list(job["predicates"] or []) if job else [], now, c.user_id
            )
            counts.user_deleted = (
                await Repo.delete_contributors(tx, tenant, contributors) > 0 or counts.user_deleted
            )
            body = counts.as_dict()
            delta = body.pop("confidence_delta")
            if not await Jobs.done(
                tx,
                tenant,
                c.job_id,
                self.owner,
                json.dumps({**body, "confidence_delta": delta}),
                now,
            ):
                raise _LeaseLost(c.job_id)
            await AuditRepository.record_in_tx(
                tx,
                tenant,
                [
                    audit.event(
                        c.principal,
                        "forget_contributor",
                        "user",
                        c.receipt,
                        now,
                        after=body,
                        confidence_delta=delta,
                    )
                ],
            )
            return True

        finished: bool = await self.db.write_tx(work)
        return finished


def _checked(principal: Principal, user_id: str) -> str:
    """The user id to forget, stripped. Raises Forbidden (not admin), ValidationError (empty)."""
    if principal.role is not Role.ADMIN:
        raise Forbidden("only an admin may forget a contributor")
    user_id = (user_id or "").strip()
    if not user_id:
        raise ValidationError("userId is empty", field="userId")
    # No longer id was ever stored (every write checks it), so there is nothing to forget.
    check_id(user_id, "userId")
    return user_id


class _LeaseLost(Exception):
    """Another runner took the job over (this one was too slow to renew): stop quietly."""
