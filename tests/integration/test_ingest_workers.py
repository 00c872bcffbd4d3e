"""Ingest workers share one queue in the graph: several at once never run a job twice; a
worker killed mid-job leaves a lease that expires, and the next worker resumes the job once;
the worker inside `serve` runs jobs without being asked."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.container import build_services
from graph_memory.db import Database
from graph_memory.embeddings import Embedder
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key
from tests.integration.fake_llm import Answer, FakeLLM, extraction
from tests.integration.ingest_helpers import (
    INGEST,
    JOB,
    _drain,
    drain,
    llm_settings,
    serve,
    session,
    wait_job,
)


@pytest.fixture(scope="module")
def llm(settings: Settings, fake: FakeLLM) -> Settings:
    return llm_settings(settings, fake.url, ingest_worker=False, lease=2.0)


@pytest.fixture(scope="module")
def url(llm: Settings) -> Iterator[str]:
    yield from serve(llm)


class PowerCut(BaseException):
    """The process going away: no handler of the worker's catches it."""


def _answer(n: int) -> str:
    return extraction(
        summary=f"Alice mentioned that she likes the number {n} very much indeed.",
        facts=[{"subject": "alice", "predicate": "likes", "object": f"number {n}", "turns": [0]}],
    )


def _episodes(settings: Settings, tenant: str) -> dict[str, int]:
    async def go() -> dict[str, int]:
        db = Database.connect(settings.neo4j())
        try:
            rows = await db.run_raw(
                "MATCH (e:Episode) WHERE e.tenant = $t RETURN e.session_id AS s, count(*) AS n",
                {"t": tenant},
            )
            return {r["s"]: r["n"] for r in rows}
        finally:
            await db.close()

    return asyncio.run(go())


def test_two_workers_never_run_the_same_job_twice(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    drain(llm, embedder, tenants=[tenant])  # leftovers of earlier runs are not this test's jobs
    c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    sessions = [session() for _ in range(12)]
    ids = []
    for n, s in enumerate(sessions):
        # A slow model widens the window in which a second worker could grab the same job.
        fake.script(s["sessionId"], Answer(content=_answer(n), delay=0.2))
        ids.append(c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"])

    async def both() -> list[list[str]]:
        return list(
            await asyncio.gather(
                _drain(llm, embedder, "worker-a", 100, [tenant]),
                _drain(llm, embedder, "worker-b", 100, [tenant]),
            )
        )

    ran_a, ran_b = asyncio.run(both())
    assert not set(ran_a) & set(ran_b)
    assert set(ids) <= set(ran_a) | set(ran_b)
    assert ran_a and ran_b  # both took part
    for s in sessions:
        assert len(fake.requests_for(s["sessionId"])) == 1
    assert _episodes(settings, tenant) == {s["sessionId"]: 1 for s in sessions}
    for job_id in ids:
        j = c.execute(JOB, {"id": job_id})["ingestJob"]
        assert j["status"] == "DONE" and j["attempts"] == 1
    c.close()


def test_a_worker_killed_mid_job_is_resumed_once_after_its_lease_expires(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    drain(llm, embedder, tenants=[tenant])
    c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    s = session()
    # First attempt: the model takes forever and the worker process is killed while waiting.
    fake.script(s["sessionId"], Answer(content=_answer(7), delay=60), _answer(7))
    job_id = c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]
    env = {
        **os.environ,
        "GRAPH_MEMORY_LLM_BASE_URL": fake.url,
        "GRAPH_MEMORY_LLM_MODEL": "scripted-model",
        "GRAPH_MEMORY_LLM_API_KEY": "test-key",
        "GRAPH_MEMORY_INGEST_LEASE_SECONDS": "2",
        "GRAPH_MEMORY_INGEST_TENANTS": tenant,
    }
    with tempfile.TemporaryFile() as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graph_memory.cli", "worker"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            try:
                fake.wait_for_request(s["sessionId"], timeout=60)
            except TimeoutError:
                log.seek(0)
                raise AssertionError(f"the worker never asked the model:\n{log.read()!r}") from None
            assert c.execute(JOB, {"id": job_id})["ingestJob"]["status"] == "RUNNING"
        finally:
            proc.send_signal(signal.SIGKILL)  # a crash: no cleanup, the lease stays behind
            proc.wait(timeout=10)
    # While the dead worker's lease holds, nobody takes the job.
    assert job_id not in drain(llm, embedder, tenants=[tenant])
    time.sleep(2.5)
    assert drain(llm, embedder, tenants=[tenant]) == [job_id]
    j = c.execute(JOB, {"id": job_id})["ingestJob"]
    assert j["status"] == "DONE" and j["attempts"] == 2
    assert j["counts"]["facts"] == 1
    assert len(fake.requests_for(s["sessionId"])) == 2
    assert _episodes(settings, tenant) == {s["sessionId"]: 1}
    assert drain(llm, embedder, tenants=[tenant]) == []  # done is done
    c.close()


def _written(settings: Settings, tenant: str) -> dict[str, int]:
    """What the tenant's memory holds: episodes, facts, memos and audit events."""

    async def go() -> dict[str, int]:
        db = Database.connect(settings.neo4j())
        try:
            out = {}
            for label in ("Episode", "Fact", "Memo", "AuditEvent"):
                rows = await db.run_raw(
                    f"MATCH (n:{label}) WHERE n.tenant = $t RETURN count(n) AS n", {"t": tenant}
                )
                out[label] = int(rows[0]["n"])
            return out
        finally:
            await db.close()

    return asyncio.run(go())


def _todo_session(fake: FakeLLM) -> dict[str, object]:
    s = session()
    fake.script(
        str(s["sessionId"]),
        extraction(
            summary="Alice asked to be reminded about her passport renewal before June.",
            facts=[{"subject": "alice", "predicate": "likes", "object": "jazz", "turns": [0]}],
            todos=[{"text": "Renew Alice's passport before June", "turns": [2]}],
        ),
    )
    return s


def test_a_worker_that_dies_before_its_session_commits_leaves_nothing_and_is_resumed_once(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    """The session's writes and the job's completion are one transaction: a worker that dies
    after every write and the completion statement, before the commit, leaves nothing of the
    session written (not the episode, a fact, a memo or an audit event). The next worker runs
    the job once, from the model answer checkpointed on the job, not a second model call."""
    drain(llm, embedder, tenants=[tenant])
    c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    before = _written(settings, tenant)
    s = _todo_session(fake)
    job_id = c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]

    async def die_before_the_commit() -> None:
        from graph_memory.repositories.ingest import IngestRepository
        from graph_memory.services.ingest.extraction import Extractor
        from graph_memory.services.ingest.worker import IngestWorker

        services = build_services(llm, db=Database.connect(llm.neo4j()), embedder=embedder)
        extractor = Extractor(llm)
        worker = IngestWorker(services, extractor, owner="doomed", tenants=[tenant])
        real = IngestRepository.complete_in_tx

        async def crash(*args: Any, **kw: Any) -> bool:
            assert await real(*args, **kw)  # the job was marked done in the transaction ...
            raise PowerCut  # ... which never commits

        IngestRepository.complete_in_tx = crash  # type: ignore[method-assign]
        try:
            with pytest.raises(PowerCut):
                await worker.run_once()
        finally:
            IngestRepository.complete_in_tx = real  # type: ignore[method-assign]
            await extractor.close()
            await services.db.close()

    asyncio.run(die_before_the_commit())
    assert _written(settings, tenant) == before
    j = c.execute(JOB, {"id": job_id})["ingestJob"]
    assert j["status"] == "RUNNING" and j["items"] == []
    time.sleep(2.5)
    assert drain(llm, embedder, tenants=[tenant]) == [job_id]
    j = wait_job(c, job_id, ("DONE",))
    assert j["attempts"] == 2
    assert len(fake.requests_for(str(s["sessionId"]))) == 1  # the answer was checkpointed
    assert next(i for i in j["items"] if i["kind"] == "fact")["action"] == "created"
    assert next(i for i in j["items"] if i["kind"] == "todo")["action"] == "created"
    assert _episodes(settings, tenant) == {s["sessionId"]: 1}
    todos = c.execute('query { memos(scopes: ["user:alice"], kinds: ["todo"]) { id } }')["memos"]
    assert len(todos) == 1
    c.close()


def test_a_worker_whose_claim_was_taken_over_rolls_its_session_back(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    """Another claim took the job while this worker was writing: the completion compares the
    claim token under the job's lock, sees the new claim and the whole session rolls back; the
    job stays the other claim's."""
    drain(llm, embedder, tenants=[tenant])
    c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    before = _written(settings, tenant)
    s = _todo_session(fake)
    job_id = c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]

    async def overtaken() -> str | None:
        from graph_memory.repositories.ingest import IngestRepository
        from graph_memory.services.ingest.extraction import Extractor
        from graph_memory.services.ingest.worker import IngestWorker

        services = build_services(llm, db=Database.connect(llm.neo4j()), embedder=embedder)
        extractor = Extractor(llm)
        worker = IngestWorker(services, extractor, owner="overtaken", tenants=[tenant])
        real = IngestRepository.complete_in_tx

        async def taken_over(*args: Any, **kw: Any) -> bool:
            # Committed by another transaction while this one holds the session's locks.
            await services.db.run_raw(
                "MATCH (j:IngestJob {id: $id}) SET j.lease_token = 'someone-else'",
                {"id": job_id},
            )
            return await real(*args, **kw)

        IngestRepository.complete_in_tx = taken_over  # type: ignore[method-assign]
        try:
            return await worker.run_once()
        finally:
            IngestRepository.complete_in_tx = real  # type: ignore[method-assign]
            await extractor.close()
            await services.db.close()

    assert asyncio.run(overtaken()) == job_id  # it ran the job and lost it
    assert _written(settings, tenant) == before
    j = c.execute(JOB, {"id": job_id})["ingestJob"]
    assert j["status"] == "RUNNING" and j["items"] == []
    c.close()


def test_the_worker_inside_serve_runs_jobs_on_its_own(
    settings: Settings, tenant: str, fake: FakeLLM
) -> None:
    served = llm_settings(settings, fake.url, lease=2.0)
    assert served.ingest_worker
    gen = serve(replace(served, ingest_poll_seconds=0.1))
    url = next(gen)
    try:
        c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
        s = session()
        fake.script(s["sessionId"], _answer(42))
        job_id = c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]
        j = wait_job(c, job_id, ("DONE", "FAILED"))
        assert j["status"] == "DONE" and j["counts"]["facts"] == 1
        c.close()
    finally:
        gen.close()


def test_a_worker_renews_its_lease_so_a_slow_model_is_not_taken_over(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    drain(llm, embedder, tenants=[tenant])
    c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    s = session()
    # The model takes twice the lease (2 s): only renewals keep other workers away.
    fake.script(s["sessionId"], Answer(content=_answer(3), delay=4.0))
    job_id = c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]

    async def race() -> tuple[list[str], list[str]]:
        slow = asyncio.ensure_future(_drain(llm, embedder, "slow", 1, [tenant]))
        await asyncio.sleep(0.5)
        others: list[str] = []
        while not slow.done():
            others += await _drain(llm, embedder, "eager", 5, [tenant])
            await asyncio.sleep(0.3)
        return await slow, others

    ran_slow, ran_others = asyncio.run(race())
    assert ran_slow == [job_id] and job_id not in ran_others
    j = c.execute(JOB, {"id": job_id})["ingestJob"]
    assert j["status"] == "DONE" and j["attempts"] == 1
    assert len(fake.requests_for(s["sessionId"])) == 1
    c.close()


def test_the_worker_command_without_a_model_says_so() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPH_MEMORY_LLM")}
    env.pop("OPENAI_API_KEY", None)
    out = subprocess.run(
        [sys.executable, "-m", "graph_memory.cli", "worker"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 1
    assert "GRAPH_MEMORY_LLM_MODEL" in out.stderr


def test_a_dedicated_worker_serves_only_its_tenants(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    c = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    s = session()
    fake.script(s["sessionId"], _answer(5))
    job_id = c.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]
    assert drain(llm, embedder, tenants=[f"{tenant}-other"]) == []
    assert drain(llm, embedder, tenants=[tenant]) == [job_id]
    c.close()


def test_one_tenants_slow_sessions_leave_a_slot_for_another_tenants(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    """A worker of two slots: one tenant's backlog of sessions whose model takes 4 s each
    takes one slot at most (its share: all but one), so another tenant's session, submitted
    after them, is extracted at once instead of after the backlog."""
    other = f"{tenant}-b"
    a = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    b = GraphMemoryClient(url, _create_key(settings, other, "agent"))
    slow = [session() for _ in range(3)]
    for n, s in enumerate(slow):
        fake.script(s["sessionId"], Answer(content=_answer(n), delay=4.0))
    quick = session()
    fake.script(quick["sessionId"], _answer(9))

    async def go() -> tuple[float, int]:
        services = build_services(llm, db=Database.connect(llm.neo4j()), embedder=embedder)
        from graph_memory.services.ingest.extraction import Extractor
        from graph_memory.services.ingest.worker import IngestWorker

        extractor = Extractor(llm)
        worker = IngestWorker(services, extractor, owner="fair", tenants=[tenant, other])
        stop = asyncio.Event()
        running = asyncio.ensure_future(worker.run(stop, concurrency=2))
        try:
            for s in slow:
                await asyncio.to_thread(a.execute, INGEST, {"s": s})
            await asyncio.sleep(0.5)  # the backlog is claimed first
            began = time.monotonic()
            sub = await asyncio.to_thread(b.execute, INGEST, {"s": quick})
            job_id = sub["ingestSession"]["job"]["id"]
            done = await asyncio.to_thread(wait_job, b, job_id, ("DONE",), 20.0)
            took = time.monotonic() - began
            slow_done = 0
            for s in slow:
                rows = await asyncio.to_thread(
                    a.execute,
                    "query($id: ID!) { ingestJob(id: $id) { status } }",
                    {"id": _job_of(a, s)},
                )
                slow_done += rows["ingestJob"]["status"] == "DONE"
            assert done["status"] == "DONE"
            return took, slow_done
        finally:
            stop.set()
            await running
            await extractor.close()
            await services.db.close()

    took, slow_done = asyncio.run(go())
    assert took < 3.0, took  # not behind a 4 s session, let alone three of them
    assert slow_done == 0  # the backlog was still in its first model call
    drain(llm, embedder, tenants=[tenant])
    a.close()
    b.close()


def _job_of(client: GraphMemoryClient, s: dict[str, Any]) -> str:
    """The job of a session already submitted (a re-submission answers with it)."""
    return str(client.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"])


def test_a_session_whose_key_is_revoked_before_extraction_is_not_extracted(
    url: str, settings: Settings, tenant: str, fake: FakeLLM, llm: Settings, embedder: Embedder
) -> None:
    """The job acts as the key that submitted it: revoked while the session waited, the job
    fails UNAUTHENTICATED without a model call or a write; the same session sent again by
    a live key runs as that key."""
    drain(llm, embedder, tenants=[tenant])
    from graph_memory.repositories.apikeys import ApiKeyRepository
    from graph_memory.services.access.keys import AuthService

    doomed = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    live = GraphMemoryClient(url, _create_key(settings, tenant, "agent"))
    s = session()
    fake.script(s["sessionId"], _answer(7))
    job_id = doomed.execute(INGEST, {"s": s})["ingestSession"]["job"]["id"]

    async def revoke() -> None:
        db = Database.connect(settings.neo4j())
        try:
            rows = await db.run_raw(
                "MATCH (j:IngestJob {id: $id}) RETURN j.principal_key AS k", {"id": job_id}
            )
            await AuthService(ApiKeyRepository(db)).revoke(rows[0]["k"])
        finally:
            await db.close()

    asyncio.run(revoke())
    assert drain(llm, embedder, tenants=[tenant]) == [job_id]
    j = live.execute(JOB, {"id": job_id})["ingestJob"]
    assert j["status"] == "FAILED" and j["error"]["code"] == "UNAUTHENTICATED", j
    assert fake.requests_for(s["sessionId"]) == [] and _episodes(settings, tenant) == {}
    again = live.execute(INGEST, {"s": s})["ingestSession"]
    assert again["job"]["id"] == job_id and again["job"]["status"] == "QUEUED"
    assert drain(llm, embedder, tenants=[tenant]) == [job_id]
    assert wait_job(live, job_id, ("DONE",))["attempts"] == 1
    live.close()
