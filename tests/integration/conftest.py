"""Integration fixtures: the real Neo4j (started by `graph-memory neo4j start` beforehand, or
NEO4J_URI), the real app served by uvicorn on a free loopback port, and a fresh tenant per
test so tests never see each other's data. Nothing here mocks the database."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import uvicorn

from graph_memory.app import create_app
from graph_memory.client import GraphMemoryClient
from graph_memory.container import Services
from graph_memory.db import Database
from graph_memory.domain import EpisodeInput, Outcome, Principal
from graph_memory.embeddings import Embedder, build_embedder
from graph_memory.migrations import migrate
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.services.access.keys import AuthService
from graph_memory.settings import Settings
from tests.integration.fake_llm import FakeLLM, running
from tests.integration.timeline_check import timeline_mismatches


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings.from_env()


@contextlib.contextmanager
def serving(settings: Settings) -> Iterator[str]:
    """The app with these settings on a free loopback port, for as long as the block runs."""

    async def prepare() -> None:
        db = Database.connect(settings.neo4j())
        try:
            await migrate(db, dimensions=build_embedder(settings).dimensions)
        finally:
            await db.close()

    asyncio.run(prepare())
    port = _free_port()
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}/graphql"
    finally:
        srv.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeLLM]:
    """A scripted OpenAI-compatible endpoint (chat completions and embeddings) on loopback,
    one per test module."""
    yield from running()


@pytest.fixture(scope="module")
def embedder(settings: Settings) -> Embedder:
    return build_embedder(settings)


@pytest.fixture(scope="session")
def server(settings: Settings) -> Iterator[str]:
    with serving(settings) as url:
        yield url


def _create_key(settings: Settings, tenant: str, role: str) -> str:
    async def go() -> str:
        db = Database.connect(settings.neo4j())
        try:
            _, secret = await AuthService(ApiKeyRepository(db)).create_key(tenant, role, role)
            return secret
        finally:
            await db.close()

    return asyncio.run(go())


@pytest.fixture
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


@pytest.fixture(autouse=True)
def stored_timeline_matches_versions(
    request: pytest.FixtureRequest, settings: Settings
) -> Iterator[None]:
    """After every scenario on a fresh tenant: the timeline the writes stored equals the one
    recomputed from the versions (graph_memory/temporal), slot by slot."""
    tenant = request.getfixturevalue("tenant") if "tenant" in request.fixturenames else None
    yield
    if tenant is None:
        return
    problems = asyncio.run(timeline_mismatches(settings, tenant))
    assert not problems, "stored timeline differs from the versions':\n" + "\n".join(problems)


ClientFactory = Callable[..., GraphMemoryClient]


@pytest.fixture
def make_client(server: str, settings: Settings) -> Iterator[ClientFactory]:
    made: list[GraphMemoryClient] = []

    def factory(tenant: str, role: str = "agent") -> GraphMemoryClient:
        client = GraphMemoryClient(server, _create_key(settings, tenant, role))
        made.append(client)
        return client

    yield factory
    for c in made:
        c.close()


@pytest.fixture
def make_key(server: str, settings: Settings) -> Callable[..., str]:
    """A new API key's secret for (tenant, role), for callers that are not the client; usable
    from async tests too (the key is made on a thread of its own, outside their loop)."""
    del server  # the key is only useful once the migrated app is up

    def factory(tenant: str, role: str = "agent") -> str:
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(_create_key, settings, tenant, role).result()

    return factory


@pytest.fixture
def client(make_client: ClientFactory, tenant: str) -> GraphMemoryClient:
    return make_client(tenant, "agent")


@pytest.fixture
def admin(make_client: ClientFactory, tenant: str) -> GraphMemoryClient:
    return make_client(tenant, "admin")


@pytest.fixture
def analyst(make_client: ClientFactory, tenant: str) -> GraphMemoryClient:
    return make_client(tenant, "analyst")


T0 = datetime(2026, 1, 1, tzinfo=UTC)


def episode(user: str = "alice", session: str | None = None, **kw: Any) -> dict[str, Any]:
    """A valid episode payload; override any field."""
    base: dict[str, Any] = {
        "userId": user,
        "sessionId": session or f"s-{uuid.uuid4().hex[:8]}",
        "startedAt": T0,
        "endedAt": T0 + timedelta(minutes=20),
        "summary": f"{user} talked with the support agent about their account and plans.",
        "outcome": "SUCCESS",
        "topics": ["account"],
        "source": "user",
        "confidence": 0.8,
    }
    base.update(kw)
    return base


async def record_episode_in_process(
    services: Services, who: Principal, session: str, summary: str, **kw: Any
) -> str:
    """One episode (of alice unless ``user_id`` is given) through the in-process service, for
    tests that hold real transactions open beside it; its id."""
    fields: dict[str, Any] = {
        "user_id": "alice",
        "started_at": None,
        "ended_at": None,
        "outcome": Outcome.SUCCESS,
        "source": "user",
        **kw,
    }
    [(ep, _)] = await services.episodes.record(
        who, [EpisodeInput(session_id=session, summary=summary, **fields)]
    )
    assert ep is not None
    return ep


def fact(subject: str, predicate: str, obj: str, episodes: list[str], **kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "episodes": [{"episodeId": e} for e in episodes],
        "source": "user",
    }
    base.update(kw)
    return base


def bolt(settings: Settings, text: str, params: dict[str, Any] | None = None) -> list[Any]:
    """Cypher straight over Bolt, for what a test must see or do beneath the API (the raw
    graph, the passage of time); on its own connection and loop, so callable from anywhere."""

    async def go() -> list[Any]:
        db = Database.connect(settings.neo4j())
        try:
            return await db.run_raw(text, params or {})
        finally:
            await db.close()

    return asyncio.run(go())


def elapse_ttl(settings: Settings, tenant: str, fact_id: str) -> None:
    """The passage of time: the fact's TTL ran out a minute ago. No API can make a day go by,
    so this one property is moved over Bolt; everything else goes through GraphQL."""
    bolt(
        settings,
        "MATCH (f:Fact {id: $id}) WHERE f.tenant = $tenant "
        "SET f.expires_at = datetime() - duration('PT1M')",
        {"id": fact_id, "tenant": tenant},
    )
