"""The ingest worker: claims jobs through the graph and runs each once.

Any number of workers (inside `serve`, or `graph-memory worker` processes) share one Neo4j.
A worker claims a job under a lease (ingest.claim_job, serialised by the queue lock) and a
claim token of its own, and renews the lease while it works; every later write to the job
compares the token (no queue lock: the job's own lock), so a worker that lost its claim
changes nothing. A session's writes and the job's completion are one transaction
(services/ingest/session_tx.py), so a worker that dies leaves nothing half written: its lease
expires and the next claim runs the job from the start, except that the model's answer is
checkpointed on the job, so it is not paid for twice. A transient failure (the endpoint
or the store unavailable) puts the job back with a backoff; after ``max_attempts`` claims it
fails for good. A model answer that stays malformed after the extractor's retries fails the
job at once with the reason, reported per item.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
import uuid
from collections import Counter
from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from graph_memory import metrics
from graph_memory.db import Record, Tx
from graph_memory.domain import Principal, utcnow
from graph_memory.errors import (
    GraphMemoryError,
    ModelOutputInvalid,
    ModelUnavailable,
    ModelUsage,
    StoreUnavailable,
)
from graph_memory.ingestion import SessionInput, turns_from_json
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.ingest import IngestRepository
from graph_memory.services.facts.predicates import PredicateService
from graph_memory.services.ingest.apply import prepare_session
from graph_memory.services.ingest.extraction import Extractor
from graph_memory.services.ingest.extraction_schema import Extraction
from graph_memory.services.ingest.plan import Applied, JobScope
from graph_memory.services.ingest.service import principal_of
from graph_memory.services.ingest.session_tx import write_session
from graph_memory.services.store.embedding_config import StoreBoundEmbedder
from graph_memory.session_share import working_for

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["IngestWorker"]

log = logging.getLogger("graph_memory.ingest")


class _LeaseLost(Exception):
    pass


class IngestWorker:
    def __init__(
        self,
        services: Services,
        extractor: Extractor,
        *,
        owner: str | None = None,
        lease_seconds: float | None = None,
        poll_seconds: float | None = None,
        tenants: list[str] | None = None,
    ) -> None:
        settings = services.settings
        self.services = services
        self.extractor = extractor
        self.repo = IngestRepository(services.db)
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.lease = lease_seconds or settings.ingest_lease_seconds
        self.poll = poll_seconds or settings.ingest_poll_seconds
        # Only these tenants' jobs (a dedicated worker); None: every tenant's.
        chosen = tenants if tenants is not None else settings.ingest_tenants
        self.tenants = list(chosen) if chosen is not None else None
        # Jobs this worker runs now, per tenant, and the most one tenant may take (set by
        # ``run``): a claim passes over the tenants at their share, so one tenant's backlog
        # of slow sessions (a model taking its time) cannot hold every slot while another
        # tenant's session waits. Claims are taken one at a time, so the count is exact.
        self._running: Counter[str] = Counter()
        self._share: int | None = None
        self._claiming = asyncio.Lock()

    async def run(self, stop: asyncio.Event, concurrency: int | None = None) -> None:
        """Claim and run jobs until ``stop`` is set, ``concurrency`` at a time (default from
        settings); an idle loop polls every ``poll`` s."""
        settings = self.services.settings
        n = max(1, concurrency or settings.ingest_concurrency)
        share = settings.ingest_tenant_share or n - 1
        self._share = min(share, n) if n > 1 else None
        await asyncio.gather(*(self._loop(stop) for _ in range(n)))

    async def _loop(self, stop: asyncio.Event) -> None:
        did: str | None = None
        while not stop.is_set():
            try:
                # Busy (the last claim found a job): claim at once, without the probe read.
                did = await self.run_once(probe=did is None)
            except StoreUnavailable:  # an outage, not a bug: no traceback; the loop retries
                log.warning("ingest worker %s: the store is unavailable; retrying", self.owner)
                did = None
            except Exception:  # nor may a bug end the loop
                log.exception("ingest worker %s: claim failed", self.owner)
                did = None
            if did is None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=self.poll)

    async def run_once(self, probe: bool = True) -> str | None:
        """Claim one job and run it; returns its id, or None when no job was free. ``probe``:
        look for a free job before taking the queue lock (IngestRepository.claim)."""
        began = time.perf_counter()  # our overhead counts from the claim
        embedder = self.services.embedder
        if isinstance(embedder, StoreBoundEmbedder) and await embedder.problem() is not None:
            # A re-embedding is switching, or this process is on the old embedder: a job
            # claimed now would spend its attempts failing; others (or later) run it.
            return None
        async with self._claiming:
            full = sorted(t for t, k in self._running.items() if self._share and k >= self._share)
            now = utcnow()
            record = await self.repo.claim(
                self.owner,
                uuid.uuid4().hex,
                now,
                now + timedelta(seconds=self.lease),
                self.tenants,
                probe=probe,
                full=full,
            )
            if record is None:
                return None
            tenant = str(record["tenant"])
            self._running[tenant] += 1
        job_id = str(record["id"])
        with working_for(tenant):  # its sessions queue behind its own tenant's work
            work = asyncio.ensure_future(self._process(record, began))
        beat = asyncio.ensure_future(self._heartbeat(record, work))
        try:
            await work
        except _LeaseLost:
            log.warning("ingest worker %s lost the lease of %s", self.owner, job_id)
        except asyncio.CancelledError:
            if not (beat.done() and not beat.cancelled()):
                raise  # we are being stopped, not overtaken
            log.warning("ingest worker %s lost the lease of %s", self.owner, job_id)
        finally:
            self._running[tenant] -= 1
            if not self._running[tenant]:
                del self._running[tenant]
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        return job_id

    async def _heartbeat(self, record: Record, work: asyncio.Future[None]) -> None:
        while True:
            await asyncio.sleep(self.lease / 3)
            until = utcnow() + timedelta(seconds=self.lease)
            try:
                kept = await self.repo.update(
                    str(record["tenant"]),
                    str(record["id"]),
                    str(record["lease_token"]),
                    {"available_at": until},
                )
            except Exception:  # a blip of the store: the lease has two more beats to go
                log.warning("ingest worker %s could not renew its lease", self.owner)
                continue
            if not kept:
                work.cancel()  # another worker owns it now: stop before writing more
                return

    async def _registry(
        self, principal: Principal, policy: TenantPolicy
    ) -> tuple[dict[str, str], dict[str, str]]:
        """The registry, read once: the prompt shows it (first), and it decides which
        cardinality proposals count (second; services/ingest/apply.py). A session token's
        prompt shows only the predicates its scopes use (others' are their words), but the
        whole registry decides: a predicate registered elsewhere keeps its cardinality."""
        registry = PredicateService(self.services.db)
        if principal.scopes is None:
            shown = {n: c.value for n, c in (await registry.list(principal, policy)).items()}
            return shown, shown
        mine, whole = await asyncio.gather(
            registry.list(principal, policy),
            registry.list(replace(principal, scopes=None), policy),
        )
        return {n: c.value for n, c in mine.items()}, {n: c.value for n, c in whole.items()}

    async def _update(self, record: Record, changes: dict[str, Any]) -> None:
        if not await self.repo.update(
            str(record["tenant"]), str(record["id"]), str(record["lease_token"]), changes
        ):
            raise _LeaseLost(str(record["id"]))

    async def _process(self, record: Record, began: float) -> None:
        attempts = int(record.get("attempts") or 0)
        max_attempts = int(record.get("max_attempts") or self.services.settings.ingest_max_attempts)
        if attempts > max_attempts:
            await self._finish(record, "failed", [], error=("GAVE_UP", f"{max_attempts} attempts"))
            return
        session = SessionInput(
            user_id=str(record["user_id"]),
            session_id=str(record["session_id"]),
            started_at=_aware(record.get("started_at")),
            ended_at=_aware(record.get("ended_at")),
            turns=(),
        )
        turns = turns_from_json(str(record.get("turns_json") or "[]"))
        model_ms = 0.0
        principal = principal_of(record)
        tenant = str(record["tenant"])
        try:
            # The job acts as the key that submitted it: a key (or session token) revoked while
            # the session waited takes its queued work with it, before the model is paid for
            # (the claim read it). (Inside the try: a store outage here puts the job back like
            # any other.)
            if record.get("credential_revoked"):
                reason = "the key that submitted this session was revoked before it was extracted"
                await self._finish(record, "failed", [], error=("UNAUTHENTICATED", reason))
                return
            policy = await self.services.facts.policy(tenant)
            shown, known = await self._registry(principal, policy)
            checkpoint = None
            if record.get("extraction_json"):
                extraction = Extraction.model_validate_json(str(record["extraction_json"]))
                extractor = str(record.get("extractor") or self.extractor_id)
            else:
                result = await self.extractor.extract(session, turns, shown)
                model_ms = result.model_ms
                extraction = result.extraction
                extractor = result.extractor
                # Checkpoint: a resumed job reuses the answer instead of paying for it again.
                # Written while the session's items are checked (they do not depend on it).
                checkpoint = self._update(
                    record,
                    {
                        "extraction_json": extraction.model_dump_json(),
                        "model": result.model,
                        "extractor": result.extractor,
                        "model_attempts": result.attempts,
                        **_usage(
                            record,
                            ModelUsage(
                                result.prompt_tokens,
                                result.completion_tokens,
                                model_ms,
                                result.attempts,
                            ),
                        ),
                    },
                )
            scope = JobScope(
                job_id=str(record["id"]),
                principal=principal,
                scope=str(record["scope"]),
                agent_role=str(record.get("agent_role") or "agent"),
                extractor=extractor,
                attempt=attempts,
            )
            # The checkpoint lands (or the lease is lost) before the job is written again: the
            # completion awaits it, in the session's transaction, which runs beside it; and
            # this run does not end before it.
            saved = asyncio.ensure_future(checkpoint) if checkpoint is not None else None
            try:
                plan = await prepare_session(
                    self.services, scope, session, turns, extraction, known
                )
                if isinstance(plan, Applied):  # nothing qualifies, or the episode was refused
                    if saved is not None:
                        await saved
                    await self._finish(
                        record,
                        "done" if plan.kept else "nothing",
                        plan.items,
                        keep_turns=policy.keep_raw_turns,
                        extra={"overhead_ms": _overhead(began, model_ms)},
                    )
                    return

                async def complete(tx: Tx, applied: Applied) -> None:
                    if saved is not None:
                        await saved
                    changes = _finished(
                        "done" if applied.kept else "nothing",
                        applied.items,
                        episode_id=applied.episode_id,
                        keep_turns=policy.keep_raw_turns,
                        extra={"overhead_ms": _overhead(began, model_ms)},
                    )
                    if not await IngestRepository.complete_in_tx(
                        tx,
                        tenant,
                        scope.job_id,
                        str(record["lease_token"]),
                        changes,
                        episode_id=plan.episode_id,
                        facts=applied.fact_tags,
                        extractor=extractor,
                        events=applied.events,
                        vectors=applied.vectors,
                    ):
                        raise _LeaseLost(scope.job_id)  # rolls the whole session back

                applied = await write_session(self.services, plan, complete)
            finally:
                if saved is not None:
                    await saved
            metrics.INGEST_JOBS.labels("done" if applied.kept else "nothing").inc()
        except ModelOutputInvalid as e:
            item = {
                "kind": "extraction",
                "index": 0,
                "ok": False,
                "code": e.code,
                "message": e.message,
                "field": None,
            }
            await self._finish(
                record, "failed", [item], error=(e.code, e.message), extra=_usage(record, e.usage)
            )
        except (ModelUnavailable, GraphMemoryError) as e:
            usage = _usage(record, e.usage) if isinstance(e, ModelUnavailable) else {}
            await self._retry_later(record, attempts, max_attempts, e.code, e.message, usage)
        except (_LeaseLost, asyncio.CancelledError):
            raise
        except Exception as e:  # a bug: logged in full, the job says only what kind of failure
            log.exception("ingest job %s failed unexpectedly", record["id"])
            await self._retry_later(
                record, attempts, max_attempts, "INTERNAL", type(e).__name__, {}
            )

    @property
    def extractor_id(self) -> str:
        from graph_memory.services.ingest.extraction_schema import EXTRACTOR_ID

        return EXTRACTOR_ID

    async def _retry_later(
        self,
        record: Record,
        attempts: int,
        max_attempts: int,
        code: str,
        message: str,
        usage: dict[str, Any],
    ) -> None:
        if attempts >= max_attempts:
            await self._finish(record, "failed", [], error=(code, message), extra=usage)
            return
        backoff = min(2.0**attempts, 300.0)
        log.warning("ingest job %s: %s (%s), retry in %.0fs", record["id"], code, message, backoff)
        await self._update(
            record,
            {
                "status": "queued",
                "lease_owner": None,
                "lease_token": None,
                "available_at": utcnow() + timedelta(seconds=backoff),
                "error_code": code,
                "error_message": message,
                **usage,
            },
        )

    async def _finish(
        self,
        record: Record,
        status: str,
        items: list[dict[str, Any]],
        *,
        episode_id: str | None = None,
        error: tuple[str, str] | None = None,
        keep_turns: bool = False,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """Finish a job that wrote nothing (failed, nothing qualified, episode refused)."""
        changes = _finished(
            status, items, episode_id=episode_id, error=error, keep_turns=keep_turns, extra=extra
        )
        await self._update(record, changes)
        metrics.INGEST_JOBS.labels(status).inc()


def _finished(
    status: str,
    items: list[dict[str, Any]],
    *,
    episode_id: str | None = None,
    error: tuple[str, str] | None = None,
    keep_turns: bool = False,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The changes that finish a job."""
    changes: dict[str, Any] = {
        "status": status,
        "items_json": json.dumps(items),
        "finished_at": utcnow(),
        "episode_id": episode_id,
        "error_code": error[0] if error else None,
        "error_message": error[1] if error else None,
        **(extra or {}),
    }
    # Raw transcripts are not memory: once extracted they go, unless the tenant keeps them
    # (a job put back for a retry keeps them: the retry needs them).
    if not keep_turns or status == "failed":
        changes["turns_json"] = None
    return changes


def _overhead(began: float, model_ms: float) -> float:
    """Milliseconds since the claim began, the model's time taken out."""
    return round((time.perf_counter() - began) * 1000 - model_ms, 3)


def _usage(record: Record, spent: ModelUsage) -> dict[str, Any]:
    """The job's totals with what one run's requests to the model spent added."""
    return {
        "prompt_tokens": int(record.get("prompt_tokens") or 0) + spent.prompt_tokens,
        "completion_tokens": int(record.get("completion_tokens") or 0) + spent.completion_tokens,
        "model_ms": round(float(record.get("model_ms") or 0.0) + spent.model_ms, 3),
        "model_calls": int(record.get("model_calls") or 0) + spent.calls,
    }


def _aware(value: Any) -> Any:
    from graph_memory.domain import as_datetime

    return as_datetime(value)
