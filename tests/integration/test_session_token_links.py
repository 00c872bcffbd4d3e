"""A session token reads the memories it may, whatever they link to: a link (provenance,
dependsOn, dependents) from an allowed memory to one outside the token's scopes is left out,
never served and never failing the rest of the answer. So bob, by citing his own episode in a
tenant fact or deriving from one, cannot deny alice's reads, nor show her his words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from tests.integration.conftest import ClientFactory, episode, fact
from tests.integration.test_session_tokens import codes, mint, raw

BOB_WORDS = "Quetzalcanary"  # in bob's summary and fact: never in alice's token's answer


@dataclass(frozen=True)
class Links:
    alice_ep: str
    bob_ep: str
    bob_fact: str
    shared: str  # tenant fact cited by alice's and bob's episodes; bob's fact derives from it
    office: str  # tenant fact derived from bob's fact


@pytest.fixture
def links(make_client: ClientFactory, tenant: str) -> Links:
    admin = make_client(tenant, "admin")
    a_ep = admin.record_episode(**episode("alice"))
    b_ep = admin.record_episode(**episode("bob", summary=f"bob said {BOB_WORDS} runs Linux."))

    def one(f: dict[str, Any]) -> str:
        out = admin.assert_facts([f])
        fact_id = out["results"][0]["factId"]
        assert fact_id, str(out["results"])
        return str(fact_id)

    shared = one(
        fact(
            "acme",
            "uses",
            "Linux",
            [a_ep, b_ep],
            scope="tenant",
            source="admin",
            cardinality="MANY",
        )
    )
    bob_fact = one(
        fact(
            "bob",
            "runs",
            BOB_WORDS,
            [b_ep],
            scope="user:bob",
            dependsOn=[shared],
            cardinality="MANY",
        )
    )
    office = one(
        fact(
            "office",
            "open_on",
            "mondays",
            [a_ep],
            scope="tenant",
            dependsOn=[bob_fact],
            cardinality="MANY",
        )
    )
    return Links(a_ep, b_ep, bob_fact, shared, office)


def _ok(server: str, secret: str, query: str) -> dict[str, Any]:
    r = raw(server, secret, query)
    body: dict[str, Any] = r.json()
    assert not body.get("errors") and body["data"], (query, body)
    assert BOB_WORDS not in r.text, (query, r.text)
    return body["data"]  # type: ignore[no-any-return]


def test_links_outside_a_tokens_scopes_are_left_out_not_failed(
    server: str, client: GraphMemoryClient, admin: GraphMemoryClient, links: Links
) -> None:
    secret = mint(client)["token"]
    one = _ok(
        server,
        secret,
        f'{{ fact(id: "{links.shared}") {{ object provenance {{ episodeId summary }} '
        "dependents { id } } }",
    )["fact"]
    assert one["object"] == "Linux"
    assert [e["episodeId"] for e in one["provenance"]] == [links.alice_ep]
    assert one["dependents"] == []

    listed = _ok(
        server,
        secret,
        '{ facts(filter: {scopes: ["tenant"]}) { edges { node { id dependsOn { id } '
        "provenance { summary } } } } }",
    )["facts"]["edges"]
    nodes = {e["node"]["id"]: e["node"] for e in listed}
    assert nodes[links.office]["dependsOn"] == []
    assert len(nodes[links.shared]["provenance"]) == 1

    entity = _ok(
        server,
        secret,
        '{ entity(name: "office") { facts(scopes: ["tenant"]) { object dependsOn { id } } } }',
    )["entity"]["facts"]
    assert [(f["object"], f["dependsOn"]) for f in entity] == [("mondays", [])]

    history = _ok(
        server,
        secret,
        '{ history(subject: "office", predicate: "open_on", scopes: ["tenant"]) '
        "{ versions { object dependsOn { id } } } }",
    )["history"]["versions"]
    assert [(v["object"], v["dependsOn"]) for v in history] == [("mondays", [])]

    recall = (
        '{ recall(query: "what operating system does acme use", scopes: ["user:alice", '
        '"tenant"]) { items { id provenance { episodes { episodeId summary } contributors } } } }'
    )
    items = {i["id"]: i for i in _ok(server, secret, recall)["recall"]["items"]}
    assert links.shared in items, items
    provenance = items[links.shared]["provenance"]
    assert [e["episodeId"] for e in provenance["episodes"]] == [links.alice_ep]
    assert provenance["contributors"] == ["alice"]

    # A key sees every link: the token's answer left bob's out, it did not lose them.
    keyed = {i["id"]: i for i in admin.execute(recall)["recall"]["items"]}
    assert set(keyed[links.shared]["provenance"]["contributors"]) == {"alice", "bob"}
    assert admin.fact(links.office) is not None
    deps = admin.execute(f'{{ fact(id: "{links.office}") {{ dependsOn {{ id }} }} }}')
    assert deps["fact"]["dependsOn"] == [{"id": links.bob_fact}]


def test_a_memory_asked_for_by_id_outside_the_scopes_is_still_refused(
    server: str, client: GraphMemoryClient, links: Links
) -> None:
    secret = mint(client)["token"]
    for query in (
        f'{{ fact(id: "{links.bob_fact}") {{ object }} }}',
        f'{{ episode(id: "{links.bob_ep}") {{ summary }} }}',
    ):
        r = raw(server, secret, query)
        assert codes(r.json()) == {"FORBIDDEN"}, (query, r.text)
        assert BOB_WORDS not in r.text
