"""Shared by the ingestion tests: an app with a scripted model configured, sessions to send,
and workers driven in-process against the real Neo4j."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Generator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.container import build_services
from graph_memory.db import Database
from graph_memory.embeddings import Embedder
from graph_memory.services.ingest.extraction import Extractor
from graph_memory.services.ingest.worker import IngestWorker
from graph_memory.settings import Settings
from tests.integration.conftest import serving
from tests.integration.fake_llm import extraction

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

INGEST = """
mutation($s: SessionInput!, $o: IngestOptionsInput) {
  ingestSession(session: $s, options: $o) { created job { id status sessionId } }
}"""

JOB = """
query($id: ID!) {
  ingestJob(id: $id) {
    id status attempts extractor model episodeId turnsKept turnCount
    tokens { prompt completion total } modelMs modelCalls overheadMs
    counts { written refused facts events todos procedures }
    items { kind index ok action id status text turns detail error { code message field } }
    error { code message }
  }
}"""


def llm_settings(settings: Settings, url: str, **kw: Any) -> Settings:
    return replace(
        settings,
        llm_base_url=url,
        llm_model="scripted-model",
        llm_api_key="test-key",
        ingest_poll_seconds=0.1,
        ingest_lease_seconds=kw.pop("lease", 3.0),
        **kw,
    )


def serve(settings: Settings) -> Generator[str, None, None]:
    """The real app on a free port (with the settings given); yields its /graphql URL."""
    with serving(settings) as url:
        yield url


LIVES_IN_BERLIN = {
    "subject": "Alice",
    "predicate": "lives_in",
    "object": "Berlin",
    "turns": [0, 1],
    "kind": "profile",
    "cardinality": "one",
}


def moved_to_berlin(*more_facts: dict[str, Any]) -> str:
    """The model's answer for the default `session()`: its summary and the lives_in fact
    (inferred, so a candidate), and any further facts."""
    return extraction(
        summary="Alice said she moved to Berlin last month and loves jazz music.",
        facts=[LIVES_IN_BERLIN, *more_facts],
    )


def session(
    session_id: str | None = None, user: str = "alice", turns: list[tuple[str, str]] | None = None
) -> dict[str, Any]:
    turns = turns or [
        ("user", "Hi! I moved to Berlin last month and I really love jazz."),
        ("assistant", "Nice! Noted that you live in Berlin and enjoy jazz."),
        ("user", "Also remind me to renew my passport before June."),
    ]
    return {
        "userId": user,
        "sessionId": session_id or f"s-{uuid.uuid4().hex[:10]}",
        "startedAt": T0.isoformat(),
        "endedAt": (T0 + timedelta(minutes=len(turns) + 1)).isoformat(),
        "turns": [
            {"role": r, "content": c, "at": (T0 + timedelta(minutes=i)).isoformat()}
            for i, (r, c) in enumerate(turns)
        ],
    }


async def _drain(
    settings: Settings,
    embedder: Embedder,
    owner: str,
    limit: int,
    tenants: list[str] | None = None,
) -> list[str]:
    services = build_services(settings, db=Database.connect(settings.neo4j()), embedder=embedder)
    extractor = Extractor(settings)
    # A test's worker serves only the test's tenant: another process's tests (or a stale job
    # of an earlier run) are none of its business.
    worker = IngestWorker(services, extractor, owner=owner, tenants=tenants)
    done: list[str] = []
    try:
        while len(done) < limit:
            job = await worker.run_once()
            if job is None:
                break
            done.append(job)
    finally:
        await extractor.close()
        await services.db.close()
    return done


def drain(
    settings: Settings,
    embedder: Embedder,
    owner: str = "test-worker",
    limit: int = 10_000,
    tenants: list[str] | None = None,
) -> list[str]:
    """Run an in-process worker until no job (of ``tenants``) is free; returns the jobs it
    ran."""
    return asyncio.run(
        _drain(settings, embedder, f"{owner}-{uuid.uuid4().hex[:6]}", limit, tenants)
    )


def wait_job(client: Any, job_id: str, statuses: tuple[str, ...], timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        job = client.execute(JOB, {"id": job_id})["ingestJob"]
        if job["status"] in statuses:
            return job
        if time.monotonic() > deadline:
            raise TimeoutError(f"job {job_id} stayed {job['status']}")
        time.sleep(0.1)
