"""GraphiQL at /graphql works without internet access: the page and every asset it loads come
from our own server, byte-identical to what strawberry's integrity hashes pin."""

from __future__ import annotations

import base64
import hashlib
import re
from urllib.parse import urljoin

import httpx
import pytest

# <script src=... integrity=...> and <link href=... integrity=...>, attributes in any order.
TAG = re.compile(r"<(?:script|link)\b[^>]*>", re.S)
ATTR = re.compile(r'\b(src|href|integrity)="([^"]*)"')
# The favicon is an inline SVG whose xmlns is a namespace name, never fetched.
SVG_NAMESPACE = "http://www.w3.org/2000/svg"

CONTENT_TYPES = {".js": ("text/javascript", "application/javascript"), ".css": ("text/css",)}


@pytest.fixture(scope="module")
def page(server: str) -> str:
    response = httpx.get(server, headers={"Accept": "text/html"}, timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    return response.text


def assets(page: str) -> list[tuple[str, str]]:
    """(url, integrity) of every script and stylesheet the page loads."""
    found = []
    for tag in TAG.findall(page):
        attrs = dict(ATTR.findall(tag))
        url = attrs.get("src") or attrs.get("href")
        if url and not url.startswith("data:"):
            found.append((url, attrs.get("integrity", "")))
    return found


def test_the_page_loads_without_an_api_key(page: str) -> None:
    assert '<div id="graphiql"' in page
    assert "graph-memory keys create" in page


def test_the_page_references_no_external_url(page: str) -> None:
    urls = re.findall(r"https?://[^\s\"'`<>]+", page)
    assert [u for u in urls if not u.startswith(SVG_NAMESPACE)] == []
    # Protocol-relative or absolute asset links would also leave the machine.
    assert all(url.startswith("/graphql/static/") for url, _ in assets(page))


def test_every_asset_is_served_locally_with_its_content_type(server: str, page: str) -> None:
    found = assets(page)
    # react, react-dom, js-cookie, graphiql js + css, explorer plugin js + css.
    assert len(found) == 7
    for url, _ in found:
        assert url.startswith("/graphql/static/"), url
        response = httpx.get(urljoin(server, url), timeout=10)
        assert response.status_code == 200, url
        suffix = url[url.rindex(".") :]
        content_type = response.headers["content-type"].split(";")[0]
        assert content_type in CONTENT_TYPES[suffix], (url, content_type)


def test_every_asset_matches_its_integrity_hash(server: str, page: str) -> None:
    # A browser refuses an asset whose bytes differ from its integrity value: the page would
    # stay blank, so a mismatch here is what a user would see.
    for url, integrity in assets(page):
        algorithm, _, expected = integrity.partition("-")
        assert algorithm == "sha384", url
        body = httpx.get(urljoin(server, url), timeout=10).content
        assert base64.b64encode(hashlib.sha384(body).digest()).decode() == expected, url


def test_operations_still_need_a_key(server: str) -> None:
    # The prefilled header is a placeholder, not a credential.
    response = httpx.post(
        server,
        json={"query": "{ predicates { name } }"},
        headers={"Authorization": "Bearer <your API key>"},
        timeout=10,
    )
    assert response.status_code == 401


# -- opening the page: no 401, docs at once, an example that answers after the quick start ------
INTROSPECTION = "query IntrospectionQuery { __schema { queryType { name } types { name } } }"


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer <your API key>"}, {"Authorization": "Bearer gm_x"}]
)
def test_the_schema_loads_without_a_key(server: str, headers: dict[str, str]) -> None:
    # GraphiQL introspects as it opens, before anyone pasted a key: a 401 here is what used to
    # sit in the result pane, and the docs said "Error fetching schema" until a manual refetch.
    response = httpx.post(server, json={"query": INTROSPECTION}, headers=headers, timeout=10)
    assert response.status_code == 200, response.text
    assert response.json()["data"]["__schema"]["queryType"]["name"] == "Query"


@pytest.mark.parametrize(
    "query",
    [
        "{ __schema { queryType { name } } predicates { name } }",
        "{ __typename }",  # the usual "is my key accepted?" probe stays a 401
        "{ __typename ... on Query { predicates { name } } }",
        "mutation { __typename }",
        "query A { __typename } query B { predicates { name } }",
    ],
)
def test_anything_beyond_introspection_still_needs_a_key(server: str, query: str) -> None:
    response = httpx.post(server, json={"query": query}, timeout=10)
    assert response.status_code == 401, response.text


def test_the_page_hints_at_the_header_and_answers_without_one_itself(page: str) -> None:
    assert "Open the Headers tab" in page or "open the Headers tab" in page
    assert '"Authorization": "Bearer gm_..."' in page
    assert "No API key yet" in page  # the fetcher's answer instead of a round trip to a 401


def _example_query(page: str) -> str:
    m = re.search(r"const EXAMPLE_QUERY = `(.*?)`;", page, flags=re.S)
    assert m
    return m.group(1)


def test_the_example_query_answers_after_the_readme_quick_start(
    page: str, server: str, admin: object
) -> None:
    from graph_memory.client import GraphMemoryClient

    assert isinstance(admin, GraphMemoryClient)
    ep = admin.record_episode(
        userId="alice",
        sessionId="s1",
        startedAt="2026-03-01T10:00:00Z",
        summary="Alice said she moved from Paris to Berlin in January.",
        outcome="SUCCESS",
        source="user",
    )
    admin.assert_facts(
        [{"subject": "Alice", "predicate": "lives_in", "object": "Berlin",
          "validFrom": "2026-01-01T00:00:00Z", "episodes": [{"episodeId": ep}], "source": "user"}]
    )  # fmt: skip
    nodes = admin.execute(_example_query(page))["facts"]["nodes"]
    assert [(n["predicate"], n["object"]) for n in nodes] == [("lives_in", "Berlin")]
    assert nodes[0]["provenance"][0]["episodeId"] == ep
