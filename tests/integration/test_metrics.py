"""/metrics: Prometheus figures that move with real requests (latency per root field,
Neo4j and embedding time, errors by code), request ids, and who may scrape."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings
from tests.integration.conftest import episode, serving

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]

EMBED_MODEL = "all-MiniLM-L6-v2-int8"


def base(url: str) -> str:
    return url.removesuffix("/graphql")


def scrape(url: str, headers: dict[str, str] | None = None) -> Samples:
    resp = httpx.get(f"{base(url)}/metrics", headers=headers)
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("text/plain")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(resp.text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def matching(samples: Samples, name: str, **labels: str) -> float:
    """The sum over every series of ``name`` whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def test_figures_move_with_real_requests(server: str, client: GraphMemoryClient) -> None:
    before = scrape(server)
    client.record_episode(**episode(summary="Alice moved to Berlin and now bikes to work."))
    recalled = client.recall("where does Alice live", ["user:alice"])
    assert recalled["items"], "the episode just written should be recalled"
    with pytest.raises(GraphMemoryClientError) as missing:
        client.retract_fact("f_does_not_exist")
    assert missing.value.code == "NOT_FOUND"
    refused = httpx.post(server, json={"query": "{ __typename }"}, headers={"X-Api-Key": "bad"})
    assert refused.status_code == 401
    after = scrape(server)

    def moved(name: str, **labels: str) -> float:
        return matching(after, name, **labels) - matching(before, name, **labels)

    # Latency per root field, by operation type and status.
    assert moved("graph_memory_requests_total", operation="recall", status="200") == 1
    assert moved("graph_memory_requests_total", operation="recordEpisodes", kind="mutation") == 1
    assert moved("graph_memory_request_seconds_count", operation="recall") == 1
    assert moved("graph_memory_request_seconds_sum", operation="recall") > 0
    assert moved("graph_memory_request_seconds_bucket", operation="recall", le="+Inf") == 1
    # Neo4j and embedding time inside those requests.
    assert moved("graph_memory_request_neo4j_seconds_sum", operation="recall") > 0
    assert moved("graph_memory_request_embed_seconds_sum", operation="recordEpisodes") > 0
    assert moved("graph_memory_request_embed_seconds_sum", operation="recall") >= 0
    assert moved("graph_memory_neo4j_seconds_count", access="read") >= 1
    assert moved("graph_memory_neo4j_seconds_count", access="write") >= 1
    assert moved("graph_memory_neo4j_query_seconds_count") >= 3
    assert moved("graph_memory_embed_texts_total", model=EMBED_MODEL) >= 2
    assert moved("graph_memory_embed_seconds_sum", model=EMBED_MODEL) > 0
    # Errors by code, the typed GraphQL one and the HTTP refusal alike.
    assert moved("graph_memory_errors_total", code="NOT_FOUND") == 1
    assert moved("graph_memory_errors_total", code="UNAUTHENTICATED") == 1
    assert moved("graph_memory_requests_total", status="401") == 1
    # The process itself (prometheus_client's collectors): memory after abuse is visible.
    assert value(after, "process_resident_memory_bytes") > 0


def test_labels_never_carry_request_text(server: str, client: GraphMemoryClient) -> None:
    # A made-up root field and a client-chosen operation name must not become series.
    with pytest.raises(GraphMemoryClientError):
        client.execute("query SecretAgentName { tenantOfBob_x9 { id } }")
    text = httpx.get(f"{base(server)}/metrics").text
    assert "SecretAgentName" not in text and "tenantOfBob_x9" not in text
    assert 'operation="invalid"' in text


def test_request_id_is_echoed_or_made(server: str) -> None:
    given = httpx.post(
        server,
        json={"query": "{ __schema { queryType { name } } }"},
        headers={"X-Request-Id": "trace-42.a"},
    )
    assert given.headers["x-request-id"] == "trace-42.a"
    made = httpx.post(
        server,
        json={"query": "{ __schema { queryType { name } } }"},
        headers={"X-Request-Id": "not a plain id; <script>"},
    )
    assert len(made.headers["x-request-id"]) == 32
    assert made.headers["x-request-id"] != given.headers["x-request-id"]


@pytest.fixture(scope="module")
def guarded(settings: Settings) -> Iterator[str]:
    with serving(replace(settings, metrics_token="scrape-token-1")) as url:
        yield url


def test_a_configured_token_is_required(guarded: str) -> None:
    url = f"{base(guarded)}/metrics"
    missing = httpx.get(url)
    assert missing.status_code == 401
    assert missing.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert missing.headers["www-authenticate"] == "Bearer"
    assert httpx.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert scrape(guarded, {"Authorization": "Bearer scrape-token-1"})
