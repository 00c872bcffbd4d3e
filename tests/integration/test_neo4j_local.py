"""The local server as `graph-memory neo4j start` leaves it: truthful status, idempotent
start, Browser served, GDS loaded, and Cypher 25 filtered vector search working.

Non-destructive: it never stops the shared server and only touches a label of its own.
"""

from __future__ import annotations

import os
import time
import urllib.request
import uuid
from collections.abc import Iterator

import pytest
from neo4j import Driver, GraphDatabase

from graph_memory.neo4j_local import load_lock, start, status
from graph_memory.settings import Settings

pytestmark = pytest.mark.skipif(
    bool(os.environ.get("NEO4J_URI")), reason="NEO4J_URI points at an external server"
)


@pytest.fixture(scope="module")
def local_driver() -> Iterator[Driver]:
    conn = Settings.from_env().neo4j()
    with GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver:
        yield driver


def test_status_reports_the_running_pinned_stack() -> None:
    st = status(say=lambda _: None)
    assert st.running and st.exit_code == 0 and st.pid
    assert st.info is not None
    lock = load_lock()
    assert st.info.neo4j_version == lock.neo4j
    assert st.info.gds_version == lock.gds
    assert st.java is not None and st.java.major >= 21


def test_start_is_idempotent() -> None:
    result = start(say=lambda _: None, timeout=30)
    assert result is not None and result.already_running


def test_browser_is_served() -> None:
    url = status(say=lambda _: None).browser_url
    assert url is not None
    with urllib.request.urlopen(url, timeout=10) as r:
        assert r.status == 200


def test_filtered_vector_search_in_cypher_25(local_driver: Driver) -> None:
    label = f"NeoLocalProbe_{uuid.uuid4().hex[:8]}"
    index = f"{label.lower()}_vec"
    # Labels and index names cannot be parameters; these come from a uuid, not from input.
    local_driver.execute_query(
        f"CYPHER 25 CREATE VECTOR INDEX {index} IF NOT EXISTS FOR (f:{label}) ON f.embedding "
        "WITH [f.tenant] OPTIONS {indexConfig: {`vector.dimensions`: 3, "
        "`vector.similarity_function`: 'cosine'}}"
    )
    try:
        local_driver.execute_query("CALL db.awaitIndex($name, 60)", name=index)
        local_driver.execute_query(
            f"UNWIND $rows AS r CREATE (:{label} {{id: r.id, tenant: r.tenant, embedding: r.e}})",
            rows=[
                {"id": "a", "tenant": "t1", "e": [1.0, 0.0, 0.0]},
                {"id": "b", "tenant": "t1", "e": [0.7, 0.3, 0.0]},
                {"id": "c", "tenant": "t2", "e": [1.0, 0.0, 0.0]},
            ],
        )
        query = (
            f"CYPHER 25 MATCH (f:{label}) SEARCH f IN (VECTOR INDEX {index} FOR $v "
            "WHERE f.tenant = $t LIMIT 5) SCORE AS s RETURN f.id AS id, s ORDER BY s DESC"
        )
        found: list[str] = []
        deadline = time.monotonic() + 10
        # The index is refreshed shortly after commit, not inside it: poll briefly.
        while found != ["a", "b"] and time.monotonic() < deadline:
            records, _, _ = local_driver.execute_query(query, v=[1.0, 0.0, 0.0], t="t1")
            found = [r["id"] for r in records]
            time.sleep(0.2)
        assert found == ["a", "b"]
    finally:
        local_driver.execute_query(f"MATCH (f:{label}) DETACH DELETE f")
        local_driver.execute_query(f"DROP INDEX {index} IF EXISTS")
