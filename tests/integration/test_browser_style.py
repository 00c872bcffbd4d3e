"""The local Neo4j tells Neo4j Browser to apply the project's style when it connects, and to
leave telemetry off: what Browser reads from `dbms.clientConfig()` on connect."""

from __future__ import annotations

import pytest
from neo4j import GraphDatabase

from graph_memory.neo4j_local.browser_style import post_connect_cmd
from graph_memory.settings import Settings


def test_browser_gets_the_style_and_no_telemetry(settings: Settings) -> None:
    conn = settings.neo4j()
    if conn.external:
        pytest.skip("an external Neo4j is configured by its owner, not by graph-memory")
    with GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver:
        records = driver.execute_query("CALL dbms.clientConfig()").records
    config = {r["name"]: r["value"] for r in records}
    assert config["browser.post_connect_cmd"] == post_connect_cmd()
    assert config["client.allow_telemetry"] == "false"
