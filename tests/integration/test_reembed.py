"""`graph-memory reembed`: the store's embedder switched in place, from the local model
(384 dims) to an OpenAI-compatible one (FakeLLM's /v1/embeddings, 8 dims), every embedded
kind re-made, a run cut off half way resumed from what the graph recorded, the vector indexes
recreated for the new size, and the service following the stored identity.

A re-embedding is store-wide (the vector indexes are), so this module runs on a Neo4j of its
own, started with the project's tooling on free ports (the shared one keeps its 384 dims)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.embeddings import InFront, OpenAIEmbedder
from graph_memory.repositories.reembed import ReembedRepository
from graph_memory.services.store.reembed import Reembedder
from graph_memory.settings import Settings
from tests.integration.conftest import _create_key, bolt, episode, fact, serving
from tests.integration.fake_llm import FakeLLM, extraction
from tests.integration.ingest_helpers import INGEST, JOB, llm_settings

TENANT = "t-reembed"
SCOPE = "user:alice"
MODEL, DIMS = "fake-embed-8", 8
OLD = datetime.now(UTC) - timedelta(days=45)
REFUNDS = [
    "Customer asked for a refund of a damaged blender; refund approved to card.",
    "Refund request for a broken blender that arrived damaged; refunded to card.",
    "Customer wanted their money back for a damaged blender; card refund issued.",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def own_store(
    tmp_path_factory: pytest.TempPathFactory, settings: Settings
) -> Iterator[dict[str, str]]:
    """A Neo4j of this module's own (the environment a CLI run against it needs)."""
    home = tmp_path_factory.mktemp("reembed-home")
    jars = os.environ.get("GRAPH_MEMORY_JAR_CACHE") or str(
        Path(os.environ.get("GRAPH_MEMORY_HOME") or Path.home() / ".cache/graph-memory") / "jars"
    )
    env = {
        **os.environ,
        "GRAPH_MEMORY_HOME": str(home),
        "GRAPH_MEMORY_JAR_CACHE": jars,
        "GRAPH_MEMORY_NEO4J_HEAP": "512m",
        "GRAPH_MEMORY_NEO4J_PAGECACHE": "128m",
    }
    for name in ("NEO4J_URI", "NEO4J_PASSWORD", "GRAPH_MEMORY_EMBEDDER"):
        env.pop(name, None)
    # A password picocli would misread unless handed over as `--` and a quoted argument
    # (a leading "-" is an option, "#" a comment, quotes and backslashes are stripped):
    # generated ones can begin with "-", users may choose any of these.
    pw_file = home / "neo4j-password"
    pw_file.write_text('-#pw "q\\ z\n', encoding="utf-8")
    pw_file.chmod(0o600)
    cli = [sys.executable, "-m", "graph_memory.cli"]
    # A free port may be taken again before Neo4j binds it (the suite starts servers on free
    # ports too): a start that fails is tried once more on other ports, and a second failure
    # shows why.
    for attempt in range(2):
        env["GRAPH_MEMORY_NEO4J_BOLT_PORT"] = str(_free_port())
        env["GRAPH_MEMORY_NEO4J_HTTP_PORT"] = str(_free_port())
        started = subprocess.run([*cli, "neo4j", "start"], env=env, capture_output=True, text=True)
        if started.returncode == 0:
            break
        subprocess.run([*cli, "neo4j", "stop"], env=env, check=False, capture_output=True)
        if attempt == 1:
            pytest.fail(f"the module's Neo4j did not start:\n{started.stdout}\n{started.stderr}")
    try:
        # `migrate` records the store's embedder (the local one), as for a user.
        subprocess.run([*cli, "migrate"], env=env, check=True, capture_output=True)
        yield env
    finally:
        subprocess.run([*cli, "neo4j", "stop"], env=env, check=False, capture_output=True)


@pytest.fixture(scope="module")
def local(own_store: dict[str, str], settings: Settings) -> Settings:
    """Settings for the module's store with the local embedder (what it is migrated with)."""
    password = (Path(own_store["GRAPH_MEMORY_HOME"]) / "neo4j-password").read_text().strip()
    return replace(
        settings,
        external_uri=None,
        bolt_port=int(own_store["GRAPH_MEMORY_NEO4J_BOLT_PORT"]),
        password_env=password,
        embedder="local",
    )


def _openai(local: Settings, fake: FakeLLM) -> Settings:
    return replace(
        local,
        embedder="openai",
        openai_base_url=fake.url,
        openai_api_key="test-key",
        openai_embedding_model=MODEL,
        openai_embedding_dimensions=DIMS,
    )


def _vectors(s: Settings) -> dict[str, list[int]]:
    """The vector sizes of each embedded kind in the store."""
    rows = bolt(
        s,
        "CALL () { MATCH (n:Fact) WHERE n.embedding IS NOT NULL "
        "  RETURN 'fact' AS kind, size(n.embedding) AS dims "
        "  UNION ALL MATCH (n:Episode) WHERE n.embedding IS NOT NULL "
        "  RETURN CASE WHEN n.digest THEN 'digest' ELSE 'episode' END AS kind, "
        "         size(n.embedding) AS dims "
        "  UNION ALL MATCH (n:Memo) WHERE n.embedding IS NOT NULL "
        "  RETURN 'memo' AS kind, size(n.embedding) AS dims "
        "  UNION ALL MATCH (n:Procedure) WHERE n.embedding IS NOT NULL "
        "  RETURN 'procedure' AS kind, size(n.embedding) AS dims "
        "  UNION ALL MATCH (n:Entity) WHERE n.name_embedding IS NOT NULL "
        "  RETURN 'entity' AS kind, size(n.name_embedding) AS dims } "
        "RETURN kind, collect(dims) AS dims",
    )
    return {r["kind"]: sorted(set(r["dims"])) for r in rows}


def _unit(v: Sequence[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in v))
    return [x / norm for x in v]


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return all(math.isclose(x, y, abs_tol=1e-5) for x, y in zip(a, b, strict=True))


def _ingest_a_todo(client: GraphMemoryClient) -> None:
    job = client.execute(
        INGEST,
        {
            "s": {
                "userId": "alice",
                "sessionId": "s-todo",
                "startedAt": OLD.isoformat(),
                "turns": [{"role": "user", "content": "Remind me to renew my passport."}],
            }
        },
    )["ingestSession"]["job"]["id"]
    deadline = time.monotonic() + 60
    while client.execute(JOB, {"id": job})["ingestJob"]["status"] != "DONE":
        assert time.monotonic() < deadline, "the ingest job did not finish"
        time.sleep(0.2)


def _write_every_kind(url: str, local: Settings, fake: FakeLLM) -> GraphMemoryClient:
    agent = GraphMemoryClient(url, _create_key(local, TENANT, "agent"))
    admin = GraphMemoryClient(url, _create_key(local, TENANT, "admin"))
    ids = [
        agent.record_episode(**episode("alice", summary=s, startedAt=OLD, endedAt=OLD))
        for s in REFUNDS
    ]
    agent.assert_facts(
        [
            fact("alice", "lives_in", "Berlin", [ids[0]]),
            fact("alice", "owns", "a blender", [ids[1]], cardinality="MANY"),
        ]
    )
    agent.upsert_procedure(
        "refund_request", "support", ["check the order", "refund to card"], SCOPE, "refunds"
    )
    fake.script(
        "s-todo",
        extraction(
            summary="Alice wants a reminder.",
            todos=[{"text": "Renew Alice's passport before June", "turns": [0]}],
        ),
    )
    _ingest_a_todo(agent)
    run = admin.execute(
        "mutation($s: [String!]!) { runConsolidation(scopes: $s, steps: [ENTITIES, COMPACTION])"
        " { status } }",
        {"s": [SCOPE]},
    )["runConsolidation"]
    assert run["status"] == "APPLIED"
    admin.close()
    return agent


class PowerCut(Exception):
    """The re-embedding process dies (after some batches have committed)."""


class DiesAfter(InFront):
    """The target embedder, cut off after `calls` requests."""

    def __init__(self, inner: OpenAIEmbedder, calls: int) -> None:
        super().__init__(inner)
        self.left = calls

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if self.left == 0:
            raise PowerCut
        self.left -= 1
        return await self.inner.embed(texts)

    async def embed_query(self, text: str) -> list[float]:
        return (await self.embed([text]))[0]


def _interrupted_run(target: Settings, fake: FakeLLM) -> None:
    async def go() -> None:
        db = Database.connect(target.neo4j())
        inner = OpenAIEmbedder(model=MODEL, dimensions=DIMS, base_url=fake.url, api_key="test-key")
        try:
            reembedder = Reembedder(
                ReembedRepository(db), DiesAfter(inner, 3), batch_size=2, lease_seconds=0.5
            )
            with pytest.raises(PowerCut):
                await reembedder.run()
        finally:
            await db.close()

    asyncio.run(go())


def _recall_ids(client: GraphMemoryClient, query: str) -> list[str]:
    return [i["text"] for i in client.recall(query, [SCOPE], k=10)["items"]]


# The process refused on the old embedder exits its server thread (uvicorn's startup failure).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_reembed_switches_every_kind_resumes_after_a_crash_and_the_service_follows(
    own_store: dict[str, str], local: Settings, fake: FakeLLM
) -> None:
    fake.reset_embeddings(dims=DIMS)
    target = _openai(local, fake)
    with serving(llm_settings(local, fake.url)) as url:
        agent = _write_every_kind(url, local, fake)
        before = _vectors(local)
        assert set(before) == {"fact", "episode", "memo", "procedure", "entity", "digest"}
        assert all(d == [384] for d in before.values()), before
        assert any("Berlin" in t for t in _recall_ids(agent, "where does alice live?"))

        # A run dies after three embedding requests (batches of 2): what it staged is in the
        # graph, beside the live vectors, which every read still uses.
        _interrupted_run(target, fake)
        run = bolt(local, "MATCH (r:ReembedRun) RETURN r {.*} AS r")[0]["r"]
        assert run["step"] == "stage" and run["model"] == MODEL
        assert sum(run["staged"]) == 6
        assert _vectors(local) == before
        staged = bolt(local, "MATCH (n) WHERE n.embedding_next IS NOT NULL RETURN count(n) AS n")
        assert staged[0]["n"] == 6
        assert any("Berlin" in t for t in _recall_ids(agent, "where does alice live?"))

        # The CLI resumes it (small batches, no grace: nothing else writes).
        requests_before = len(fake.embedding_requests)
        env = {
            **own_store,
            "GRAPH_MEMORY_EMBEDDER": "openai",
            "OPENAI_BASE_URL": fake.url,
            "OPENAI_API_KEY": "test-key",
            "GRAPH_MEMORY_OPENAI_EMBEDDING_MODEL": MODEL,
            "GRAPH_MEMORY_OPENAI_EMBEDDING_DIMENSIONS": str(DIMS),
        }
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "graph_memory.cli",
                "reembed",
                "--json",
                "--batch",
                "2",
                "--grace",
                "0",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert report["resumed"] is True
        assert (report["from_model"], report["from_dimensions"]) == ("all-MiniLM-L6-v2-int8", 384)
        assert (report["to_model"], report["to_dimensions"]) == (MODEL, DIMS)
        assert all(report["staged"][k] >= 1 for k in before), report["staged"]
        assert sorted(report["indexes_recreated"]) == [
            "episode_embedding",
            "fact_embedding",
            "memo_embedding",
            "procedure_embedding",
        ]
        # Resumed, not restarted: the six staged vectors were not asked for again.
        total = sum(len(r["input"]) for r in fake.embedding_requests[requests_before:])
        assert total == sum(report["staged"].values()) - 6 - report["staged"]["digest"]

        after = _vectors(local)
        assert set(after) == set(before) and all(d == [DIMS] for d in after.values()), after
        leftovers = bolt(
            local,
            "MATCH (n) WHERE n.embedding_next IS NOT NULL OR n.name_embedding_next IS NOT NULL "
            "OR n.reembed_source IS NOT NULL RETURN count(n) AS n",
        )
        assert leftovers[0]["n"] == 0
        assert bolt(local, "MATCH (r:ReembedRun) RETURN count(r) AS n")[0]["n"] == 0
        indexes = bolt(
            local,
            "SHOW VECTOR INDEXES YIELD name, options "
            "RETURN name, options.indexConfig['vector.dimensions'] AS dims",
        )
        assert {r["name"]: r["dims"] for r in indexes} == dict.fromkeys(
            ["episode_embedding", "fact_embedding", "memo_embedding", "procedure_embedding"], DIMS
        )
        stored = bolt(local, "MATCH (m:EmbeddingModel) RETURN m.model AS m, m.dimensions AS d")
        assert stored == [{"m": MODEL, "d": DIMS}]

        # Each vector is the new model's for the node's text; a digest's is its members' mean.
        row = bolt(
            local,
            "MATCH (f:Fact {tenant: $t, object: 'Berlin'}) RETURN f.text AS text, f.embedding AS v",
            {"t": TENANT},
        )[0]
        assert _close(row["v"], _unit(fake.embedding_vector(row["text"])))
        digest = bolt(
            local,
            "MATCH (d:Episode {tenant: $t, digest: true})-[:DERIVED_FROM]->(m:Episode) "
            "RETURN d.embedding AS v, collect(m.embedding) AS members",
            {"t": TENANT},
        )[0]
        summed = [sum(c) for c in zip(*digest["members"], strict=True)]
        assert _close(digest["v"], _unit(summed))

        # The service still on the local embedder refuses vector work (after its cache
        # delay) and says so on /ready; reads without vectors keep answering.
        deadline = time.monotonic() + 10
        while True:
            try:
                agent.recall("where does alice live?", [SCOPE])
            except GraphMemoryClientError as e:
                # Its view of the store may still be from during the switch (at most 5 s).
                assert e.code in ("EMBEDDER_MISMATCH", "EMBEDDER_SWITCHING")
                if e.code == "EMBEDDER_MISMATCH":
                    break
            assert time.monotonic() < deadline, "the old service kept embedding"
            time.sleep(0.5)
        listed = agent.facts([SCOPE], subject="alice", predicate="lives_in")
        assert [e["node"]["object"] for e in listed["edges"]] == ["Berlin"]
        ready = httpx.get(url.replace("/graphql", "/ready"))
        assert (ready.status_code, ready.json()) == (503, {"status": "embedder mismatch"})
        # Its ingest worker leaves new jobs queued instead of failing them for its embedder.
        fake.script("s-after", extraction(summary="Alice asked about her blender refund."))
        late = agent.execute(
            INGEST,
            {
                "s": {
                    "userId": "alice",
                    "sessionId": "s-after",
                    "startedAt": OLD.isoformat(),
                    "turns": [{"role": "user", "content": "Where is my blender refund?"}],
                }
            },
        )["ingestSession"]["job"]["id"]
        time.sleep(2)
        assert agent.execute(JOB, {"id": late})["ingestJob"]["status"] == "QUEUED"
        agent.close()

    # A process configured with the old embedder no longer starts on this store...
    with pytest.raises(RuntimeError, match="did not start"), serving(local):
        pass
    # ...and one with the new embedder serves recall and writes.
    with serving(llm_settings(target, fake.url)) as url:
        client = GraphMemoryClient(url, _create_key(local, TENANT, "agent"))
        deadline = time.monotonic() + 60
        while client.execute(JOB, {"id": late})["ingestJob"]["status"] != "DONE":
            assert time.monotonic() < deadline, "the queued job was not run after the switch"
            time.sleep(0.2)
        assert any("Berlin" in t for t in _recall_ids(client, "alice lives_in Berlin"))
        ep = client.record_episode(**episode("alice", summary="Alice bought a new kettle today."))
        client.assert_facts([fact("alice", "owns", "a kettle", [ep], cardinality="MANY")])
        assert _vectors(local)["fact"] == [DIMS]
        client.close()
        assert httpx.get(url.replace("/graphql", "/ready")).json() == {"status": "ready"}


def test_reembed_refuses_another_model_while_one_is_in_progress(
    local: Settings, fake: FakeLLM
) -> None:
    """After the first test the store is on fake-embed-8: a run to a 16-dim model is cut off,
    then a run to yet another model is refused until the first is abandoned."""
    fake.reset_embeddings(dims=16)

    async def go() -> None:
        db = Database.connect(local.neo4j())
        repo = ReembedRepository(db)

        def embedder(model: str) -> OpenAIEmbedder:
            return OpenAIEmbedder(model=model, dimensions=16, base_url=fake.url, api_key="k")

        try:
            with pytest.raises(PowerCut):
                await Reembedder(
                    repo, DiesAfter(embedder("fake-16"), 1), batch_size=2, lease_seconds=0.1
                ).run()
            await asyncio.sleep(0.2)
            from graph_memory.errors import Conflict

            with pytest.raises(Conflict, match="fake-16"):
                await Reembedder(repo, embedder("fake-16-other")).run()
            dropped = await Reembedder(repo, embedder("fake-16-other")).abandon()
            assert dropped == 2
            assert await repo.run() is None
            stored = await repo.stored_embedder()
            assert stored is not None and (stored.model, stored.dimensions) == (MODEL, DIMS)
        finally:
            await db.close()

    asyncio.run(go())
    assert _vectors(local)["fact"] == [DIMS]


def test_during_the_switch_vector_work_waits_and_plain_reads_answer(
    local: Settings, fake: FakeLLM
) -> None:
    """The store is on fake-embed-8 (the first test): a switch to another model of the same
    size, watched through a service on the current one. While the switch runs, recall is
    refused with EMBEDDER_SWITCHING and fact listings answer; the indexes are kept (same
    size); afterwards that service is on the old model (EMBEDDER_MISMATCH)."""
    fake.reset_embeddings(dims=DIMS)
    report: dict[str, Any] = {}

    def reembed() -> None:
        async def go() -> None:
            db = Database.connect(local.neo4j())
            target = OpenAIEmbedder(
                model="fake-embed-8b", dimensions=DIMS, base_url=fake.url, api_key="k"
            )
            try:
                done = await Reembedder(ReembedRepository(db), target, grace_seconds=4).run()
                report.update(dataclasses.asdict(done))
            finally:
                await db.close()

        asyncio.run(go())

    with serving(_openai(local, fake)) as url:
        client = GraphMemoryClient(url, _create_key(local, TENANT, "agent"))
        assert any("Berlin" in t for t in _recall_ids(client, "alice lives_in Berlin"))
        worker = threading.Thread(target=reembed)
        worker.start()
        codes: set[str] = set()
        while worker.is_alive():
            try:
                client.recall("where does alice live?", [SCOPE])
            except GraphMemoryClientError as e:
                codes.add(e.code)
                if e.code == "EMBEDDER_SWITCHING":
                    listed = client.facts([SCOPE], subject="alice", predicate="lives_in")
                    assert [e["node"]["object"] for e in listed["edges"]] == ["Berlin"]
            time.sleep(0.3)
        worker.join()
        assert "EMBEDDER_SWITCHING" in codes, codes
        assert report["to_model"] == "fake-embed-8b" and report["indexes_recreated"] == []
        time.sleep(5.5)  # the service's cached view of the store expires
        with pytest.raises(GraphMemoryClientError) as refused:
            client.recall("where does alice live?", [SCOPE])
        assert refused.value.code == "EMBEDDER_MISMATCH"
        client.close()
