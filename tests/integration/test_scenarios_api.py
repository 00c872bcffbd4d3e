"""Held-out scenarios for the read API as an integrator meets it, driven only through GraphQL.

A sync job pages through `facts` with cursors; a dashboard filters by every field; an analyst
opens one fact, one entity, one history; a key leaks and is revoked; two customers share the
server. Each story asserts what a demanding production integrator relies on: complete and
stable pages, filters that compose, one answer for "not yours" and "not there", 401 before any
work, FORBIDDEN per the roles the schema documents, and a machine-readable code on every error.
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError
from graph_memory.db import Database
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.services.access.keys import AuthService
from graph_memory.settings import Settings
from tests.integration.conftest import ClientFactory, elapse_ttl

SCOPE = "user:alice"
NODE = "id subject predicate object status version recordedAt needsVerification"
FACTS = f"""query($f: FactFilterInput!, $asOf: DateTime, $validAt: DateTime, $first: Int!,
      $after: String) {{
  facts(filter: $f, asOf: $asOf, validAt: $validAt, first: $first, after: $after) {{
    edges {{ cursor node {{ {NODE} }} }} nodes {{ id }}
    pageInfo {{ hasNextPage endCursor }} }} }}"""
RECORD = """mutation($eps: [EpisodeInput!]!) {
  recordEpisodes(episodes: $eps) { ok id error { code message } } }"""
ENTITY = """query($id: ID, $name: String, $scopes: [String!]!, $asOf: DateTime,
      $validAt: DateTime) {
  entity(id: $id, name: $name) { id name key
    facts(scopes: $scopes, asOf: $asOf, validAt: $validAt) { id predicate object } } }"""
HISTORY = """query($s: String!, $p: String!, $scopes: [String!]!, $asOf: DateTime) {
  history(subject: $s, predicate: $p, scopes: $scopes, asOf: $asOf) { subject predicate
    versions { id object status version recordedAt supersededAt supersededBy validFrom
      provenance { episodeId sessionId userId weight startedAt linkedAt source } } } }"""


# -- helpers -----------------------------------------------------------------------------------


def iso(d: datetime) -> str:
    return d.isoformat()


def record(
    c: GraphMemoryClient, n: int, *, user: str = "alice", scope: str = SCOPE, **kw: Any
) -> list[str]:
    """n episodes, each its own session (and, with user="", its own contributor u<i>)."""
    eps = [
        {
            "userId": user or f"u{i}",
            "sessionId": f"s-{uuid.uuid4().hex[:8]}",
            "startedAt": iso(datetime(2026, 1, 1, tzinfo=UTC) + timedelta(hours=i)),
            "summary": f"{user or f'u{i}'} told the assistant about item number {i} at length.",
            "outcome": "SUCCESS",
            "source": "user",
            "confidence": 0.8,
            "scope": scope,
            **kw,
        }
        for i in range(n)
    ]
    out = c.execute(RECORD, {"eps": eps})["recordEpisodes"]
    assert all(r["ok"] for r in out), out
    return [r["id"] for r in out]


def cite(ep: str, subject: str, predicate: str, obj: str, **kw: Any) -> dict[str, Any]:
    return {
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "episodes": [{"episodeId": ep}],
        "source": "user",
        **kw,
    }


def write(c: GraphMemoryClient, items: list[dict[str, Any]]) -> list[str]:
    out = c.assert_facts(items)
    assert out["rejected"] == 0, out
    return [r["factId"] for r in out["results"]]


def people(c: GraphMemoryClient, ep: str, names: range, scope: str = SCOPE) -> list[str]:
    """One batch (one transaction, one recordedAt): Person i lives in City i."""
    return write(c, [cite(ep, f"Person {i}", "lives_in", f"City {i}", scope=scope) for i in names])


def page(c: GraphMemoryClient, flt: dict[str, Any], first: int = 50, **kw: Any) -> dict[str, Any]:
    v = {"f": flt, "first": first, "after": kw.get("after"), "asOf": None, "validAt": None}
    for k in ("asOf", "validAt"):
        if isinstance(kw.get(k), datetime):
            v[k] = iso(kw[k])
    conn: dict[str, Any] = c.execute(FACTS, v)["facts"]
    edges = conn["edges"]
    # Connection invariants every page must keep, whatever the data.
    assert [n["id"] for n in conn["nodes"]] == [e["node"]["id"] for e in edges]
    assert len(edges) <= first
    assert conn["pageInfo"]["endCursor"] == (edges[-1]["cursor"] if edges else None)
    if conn["pageInfo"]["hasNextPage"]:
        assert len(edges) == first
    return conn


def walk(
    c: GraphMemoryClient, flt: dict[str, Any], first: int, between: Any = None, **kw: Any
) -> tuple[list[str], int]:
    """Every page in turn; returns the ids seen and the number of pages fetched."""
    ids: list[str] = []
    after, pages = None, 0
    while True:
        conn = page(c, flt, first, after=after, **kw)
        pages += 1
        ids += [e["node"]["id"] for e in conn["edges"]]
        if not conn["pageInfo"]["hasNextPage"]:
            return ids, pages
        assert pages < 200, "pagination does not terminate"
        after = conn["pageInfo"]["endCursor"]
        if between:
            between(pages)


def objects(c: GraphMemoryClient, flt: dict[str, Any], **kw: Any) -> list[str]:
    return sorted(e["node"]["object"] for e in page(c, flt, 100, **kw)["edges"])


def error_of(c: GraphMemoryClient, query: str, variables: dict[str, Any] | None = None) -> Any:
    with pytest.raises(GraphMemoryClientError) as exc:
        c.execute(query, variables)
    return exc.value


def now() -> datetime:
    time.sleep(0.01)  # a moment strictly between two writes (same host clock)
    stamp = datetime.now(UTC)
    time.sleep(0.01)
    return stamp


def keys(settings: Settings, tenant: str, role: str) -> tuple[str, str]:
    async def go() -> tuple[str, str]:
        db = Database.connect(settings.neo4j())
        try:
            return await AuthService(ApiKeyRepository(db)).create_key(tenant, role, role)
        finally:
            await db.close()

    return asyncio.run(go())


def revoke(settings: Settings, key_id: str) -> None:
    """What `graph-memory keys revoke` does: another process than the server."""

    async def go() -> None:
        db = Database.connect(settings.neo4j())
        try:
            await AuthService(ApiKeyRepository(db)).revoke(key_id)
        finally:
            await db.close()

    asyncio.run(go())


def post(server: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(server, json=body, headers=headers or {}, timeout=30)


# -- cursor pagination ---------------------------------------------------------------------------


def test_every_page_size_walks_the_same_complete_newest_first_order(
    client: GraphMemoryClient,
) -> None:
    ep = record(client, 1)[0]
    # Three batches: facts inside a batch share one recordedAt, so the id breaks the tie.
    for names in (range(0, 5), range(5, 9), range(9, 12)):
        people(client, ep, names)
    flt = {"scopes": [SCOPE]}
    whole = page(client, flt, 50)
    assert whole["pageInfo"] == {"hasNextPage": False, "endCursor": whole["edges"][-1]["cursor"]}
    order = [e["node"]["id"] for e in whole["edges"]]
    stamps = [e["node"]["recordedAt"] for e in whole["edges"]]
    assert len(order) == 12 and len(set(order)) == 12
    assert [datetime.fromisoformat(s) for s in stamps] == sorted(
        (datetime.fromisoformat(s) for s in stamps), reverse=True
    )
    for first in (1, 2, 3, 4, 5, 6, 7, 11, 12, 13, 500):
        ids, pages = walk(client, flt, first)
        assert ids == order, f"first={first}: gap, duplicate or reorder"
        # At an exact multiple the last full page already says there is nothing more.
        assert pages == max(1, -(-12 // first)), f"first={first}: {pages} pages"


def test_every_edge_cursor_resumes_right_after_its_edge(client: GraphMemoryClient) -> None:
    ep = record(client, 1)[0]
    people(client, ep, range(4))
    people(client, ep, range(4, 7))
    flt = {"scopes": [SCOPE]}
    edges = page(client, flt, 50)["edges"]
    ids = [e["node"]["id"] for e in edges]
    for i, edge in enumerate(edges):
        rest = page(client, flt, 50, after=edge["cursor"])
        assert [e["node"]["id"] for e in rest["edges"]] == ids[i + 1 :]
        assert rest["pageInfo"]["hasNextPage"] is False
    last = page(client, flt, 50, after=edges[-1]["cursor"])
    assert last["edges"] == [] and last["pageInfo"] == {"hasNextPage": False, "endCursor": None}


def test_a_walk_pinned_with_as_of_is_a_snapshot_while_the_agent_keeps_writing(
    client: GraphMemoryClient,
) -> None:
    ep = record(client, 1)[0]
    ids = people(client, ep, range(9))
    pinned = now()
    flt = {"scopes": [SCOPE]}
    snapshot = [e["node"]["id"] for e in page(client, flt, 50, asOf=pinned)["edges"]]
    assert sorted(snapshot) == sorted(ids)
    last_page_fact = snapshot[-1]
    victim = client.fact(last_page_fact)
    assert victim is not None

    def meanwhile(n: int) -> None:
        # Mid-walk: new facts, a move of someone on a later page, a retraction.
        people(client, ep, range(100 + 10 * n, 103 + 10 * n))
        if n == 1:
            write(client, [cite(ep, victim["subject"], "lives_in", "Elsewhere")])
            client.retract_fact(snapshot[-2], "wrong person")

    walked, _ = walk(client, flt, 3, between=meanwhile, asOf=pinned)
    assert walked == snapshot
    as_then = page(client, flt, 50, asOf=pinned)["edges"]
    assert {e["node"]["status"] for e in as_then} == {"ACTIVE"}


def test_an_unpinned_walk_never_repeats_a_fact_while_new_ones_arrive(
    client: GraphMemoryClient,
) -> None:
    ep = record(client, 1)[0]
    before = people(client, ep, range(10))

    def meanwhile(n: int) -> None:
        people(client, ep, range(50 + 5 * n, 52 + 5 * n))

    walked, _ = walk(client, {"scopes": [SCOPE]}, 3, between=meanwhile)
    assert len(walked) == len(set(walked))
    assert sorted(walked) == sorted(before)  # newer facts sort before the cursor: not re-served


def test_a_cursor_is_a_position_in_any_filter_and_any_tenant(
    client: GraphMemoryClient, make_client: ClientFactory
) -> None:
    other = make_client(f"t-{uuid.uuid4().hex[:10]}")
    theirs = people(other, record(other, 1)[0], range(2))  # written before this tenant's
    ep = record(client, 1)[0]
    people(client, ep, range(3))
    write(client, [cite(ep, "Alice", "lives_in", "Paris"), cite(ep, "Alice", "likes", "Jazz")])
    people(client, ep, range(3, 6))
    everyone = [e["node"]["id"] for e in page(client, {"scopes": [SCOPE]})["edges"]]
    alice = page(client, {"scopes": [SCOPE], "subject": "alice"}, 1)
    cursor, alice_id = alice["pageInfo"]["endCursor"], alice["edges"][0]["node"]["id"]
    # The subject filter's cursor, given to the scope-wide listing: what comes after that fact.
    rest = page(client, {"scopes": [SCOPE]}, 50, after=cursor)
    assert [e["node"]["id"] for e in rest["edges"]] == everyone[everyone.index(alice_id) + 1 :]
    # Another tenant's cursor reveals nothing: that tenant's own (older) facts, all of them.
    seen = [e["node"]["id"] for e in page(other, {"scopes": [SCOPE]}, 50, after=cursor)["edges"]]
    assert sorted(seen) == sorted(theirs)


def test_garbage_cursors_are_validation_errors_that_name_after(client: GraphMemoryClient) -> None:
    def b64(raw: str) -> str:
        return base64.urlsafe_b64encode(raw.encode()).decode()

    garbage = [
        "garbage",
        "!!!",
        "é",
        b64("not json"),
        b64('{"a": 1}'),
        b64("123"),
        b64('[null, "fact_x"]'),
        b64('["yesterday", "fact_x"]'),
        b64('["2026-01-01T00:00:00", "fact_x"]'),  # naive: never issued by the server
    ]
    for cursor in garbage:
        err = error_of(client, FACTS, {"f": {"scopes": [SCOPE]}, "first": 5, "after": cursor})
        assert err.code == "VALIDATION", cursor
        assert err.errors[0]["extensions"].get("field") == "after", cursor


def test_page_size_bounds_are_refused_not_silently_clamped(client: GraphMemoryClient) -> None:
    ep = record(client, 1)[0]
    people(client, ep, range(2))
    flt = {"scopes": [SCOPE]}
    for first in (0, -1, 501, 10**6):
        err = error_of(client, FACTS, {"f": flt, "first": first})
        assert (err.code, err.errors[0]["extensions"].get("field")) == ("VALIDATION", "first")
    assert error_of(client, FACTS, {"f": flt, "first": 2**31}).code == "VALIDATION"
    assert len(page(client, flt, 500)["edges"]) == 2
    empty = page(client, {"scopes": ["user:nobody"]}, 5)
    assert empty == {
        "edges": [],
        "nodes": [],
        "pageInfo": {"hasNextPage": False, "endCursor": None},
    }


def test_episodes_page_like_facts_and_refuse_a_page_size_of_zero(
    client: GraphMemoryClient,
) -> None:
    record(client, 4)
    record(client, 3)
    q = """query($n: Int!, $after: String) {
      episodes(scopes: ["user:alice"], first: $n, after: $after) { id cursor } }"""
    everyone = [e["id"] for e in client.execute(q, {"n": 50})["episodes"]]
    assert len(everyone) == 7
    for size in (1, 2, 3, 7):
        seen: list[str] = []
        after = None
        while True:
            got = client.execute(q, {"n": size, "after": after})["episodes"]
            seen += [e["id"] for e in got]
            if len(got) < size or len(seen) >= 7:
                break
            after = got[-1]["cursor"]
        assert seen == everyone, f"first={size}"
    for n in (0, -1, 501):
        try:
            got = client.execute(q, {"n": n})["episodes"]
        except GraphMemoryClientError as e:
            assert e.code == "VALIDATION"
        else:
            raise AssertionError(f"first={n} returned {len(got)} episode(s)")


# -- filters -------------------------------------------------------------------------------------


def _filter_world(
    c: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> datetime:
    """alice: lives in Paris -> Berlin (a premise change), timezone CET resting on Paris (flagged),
    likes jazz (a candidate), diet vegan (TTL elapsed, swept); bob lives in Rome; a team fact."""
    ep = record(c, 1)[0]
    paris, vegan = write(
        c,
        [
            cite(ep, "Alice", "lives_in", "Paris"),
            cite(ep, "Alice", "prefers", "vegan", ttlDays=1),
        ],
    )
    write(
        c,
        [
            cite(ep, "Alice", "timezone", "CET", dependsOn=[paris]),
            cite(ep, "Alice", "likes", "jazz", source="conversation"),
            cite(ep, "Bob", "lives_in", "Rome"),
        ],
    )
    team_ep = record(c, 1, scope="team:core")[0]
    write(c, [cite(team_ep, "Alice", "member_of", "core team")])
    moved = now()
    write(c, [cite(ep, "Alice", "lives_in", "Berlin")])
    elapse_ttl(settings, tenant, vegan)
    admin.execute("mutation { expireFacts { expired } }")
    return moved


def test_each_filter_field_alone(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    _filter_world(client, admin, settings, tenant)
    base = {"scopes": [SCOPE]}
    assert objects(client, base) == ["Berlin", "CET", "Rome"]
    assert objects(client, {"scopes": [SCOPE, "team:core", SCOPE]}) == [
        "Berlin",
        "CET",
        "Rome",
        "core team",
    ]
    assert objects(client, {"scopes": ["team:core"]}) == ["core team"]
    assert objects(client, {**base, "subject": "  ALICE \t"}) == ["Berlin", "CET"]
    assert objects(client, {**base, "predicate": " Lives  In "}) == ["Berlin", "Rome"]
    assert objects(client, {**base, "includeCandidates": True}) == ["Berlin", "CET", "Rome", "jazz"]
    assert objects(client, {**base, "includeExpired": True}) == ["Berlin", "CET", "Rome", "vegan"]
    assert objects(client, {**base, "needsVerification": True}) == ["CET"]
    assert objects(client, {**base, "needsVerification": False}) == ["Berlin", "Rome"]
    statuses = {
        e["node"]["object"]: e["node"]["status"]
        for e in page(client, {**base, "includeCandidates": True, "includeExpired": True})["edges"]
    }
    assert statuses["jazz"] == "CANDIDATE" and statuses["vegan"] == "EXPIRED"


def test_filters_combine_as_an_intersection_at_any_moment(
    client: GraphMemoryClient, admin: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    moved = _filter_world(client, admin, settings, tenant)
    base = {"scopes": [SCOPE]}
    alice = {**base, "subject": "alice"}
    assert objects(client, {**alice, "predicate": "lives_in"}) == ["Berlin"]
    assert objects(client, {**alice, "predicate": "lives_in"}, asOf=moved) == ["Paris"]
    assert objects(client, {**alice, "predicate": "likes"}) == []
    assert objects(client, {**alice, "predicate": "likes", "includeCandidates": True}) == ["jazz"]
    assert objects(client, {**alice, "includeCandidates": True, "includeExpired": True}) == [
        "Berlin",
        "CET",
        "jazz",
        "vegan",
    ]
    assert objects(client, {**base, "predicate": "lives_in", "needsVerification": True}) == []
    assert objects(client, {**alice, "predicate": "timezone", "needsVerification": True}) == ["CET"]
    assert objects(client, {**alice, "predicate": "timezone"}, asOf=moved) == ["CET"]
    assert objects(client, {"scopes": ["team:core"], "subject": "bob"}) == []
    # Before anything was written there was nothing to believe; validity before 2026 neither.
    assert objects(client, base, asOf=datetime(2020, 1, 1, tzinfo=UTC)) == []
    assert (
        objects(
            client, {**alice, "includeCandidates": True}, validAt=datetime(2020, 1, 1, tzinfo=UTC)
        )
        == []
    )


def test_needs_verification_filter_agrees_with_the_as_of_view(client: GraphMemoryClient) -> None:
    ep = record(client, 1)[0]
    (paris,) = write(client, [cite(ep, "Alice", "lives_in", "Paris")])
    write(client, [cite(ep, "Alice", "timezone", "CET", dependsOn=[paris])])
    before = now()
    write(client, [cite(ep, "Alice", "lives_in", "Tokyo")])  # the premise changes: CET flagged
    alice = {"scopes": [SCOPE], "subject": "alice"}
    assert objects(client, {**alice, "needsVerification": True}) == ["CET"]
    # As of before the move nothing awaited verification: every answer must say the same.
    then = page(client, alice, asOf=before)["edges"]
    assert {e["node"]["object"]: e["node"]["needsVerification"] for e in then} == {
        "CET": False,
        "Paris": False,
    }
    assert objects(client, {**alice, "needsVerification": True}, asOf=before) == []
    assert objects(client, {**alice, "needsVerification": False}, asOf=before) == ["CET", "Paris"]


def test_unknown_subjects_are_empty_pages_and_bad_scopes_are_refused(
    client: GraphMemoryClient,
) -> None:
    ep = record(client, 1)[0]
    people(client, ep, range(2))
    assert objects(client, {"scopes": [SCOPE], "subject": "nobody at all"}) == []
    assert objects(client, {"scopes": [SCOPE], "predicate": "never_used"}) == []
    for scopes in ([], ["alice"], ["user:"], ["everyone"], [""]):
        err = error_of(client, FACTS, {"f": {"scopes": scopes}, "first": 5})
        assert err.code == "VALIDATION", scopes
    naive = error_of(
        client, FACTS, {"f": {"scopes": [SCOPE]}, "first": 5, "asOf": "2026-01-01T00:00:00"}
    )
    assert naive.code == "VALIDATION"


# -- one fact by id ------------------------------------------------------------------------------

FACT = """query($id: ID!) { fact(id: $id) { id status object supersededBy retractReason
  supersedes { id object status } provenance { episodeId } } }"""


def test_fact_by_id_returns_every_version_whatever_its_status(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    ep = record(client, 1)[0]
    paris, wrong, maybe, no = write(
        client,
        [
            cite(ep, "Alice", "lives_in", "Paris"),
            cite(ep, "Alice", "email", "alice@example.com"),
            cite(ep, "Alice", "likes", "opera", source="conversation"),
            cite(ep, "Alice", "dislikes", "cats", source="conversation"),
        ],
    )
    (berlin,) = write(client, [cite(ep, "Alice", "lives_in", "Berlin")])
    client.retract_fact(wrong, "typo in the address")
    analyst.reject_fact(no, "never said that")
    got = {i: client.execute(FACT, {"id": i})["fact"] for i in (paris, berlin, wrong, maybe, no)}
    assert {i: f["status"] for i, f in got.items()} == {
        paris: "SUPERSEDED",
        berlin: "ACTIVE",
        wrong: "RETRACTED",
        maybe: "CANDIDATE",
        no: "REJECTED",
    }
    assert got[paris]["supersededBy"] == berlin
    assert got[berlin]["supersedes"] == {"id": paris, "object": "Paris", "status": "SUPERSEDED"}
    assert got[wrong]["retractReason"] == "typo in the address"
    assert all(f["provenance"] == [{"episodeId": ep}] for f in got.values())


def test_unknown_and_foreign_ids_get_the_same_answer_and_nothing_changes(
    client: GraphMemoryClient, analyst: GraphMemoryClient, make_client: ClientFactory
) -> None:
    ep = record(client, 1)[0]
    mine, candidate = write(
        client,
        [
            cite(ep, "Alice", "lives_in", "Paris"),
            cite(ep, "Alice", "likes", "tea", source="conversation"),
        ],
    )
    intruder_tenant = f"t-{uuid.uuid4().hex[:10]}"
    intruder = make_client(intruder_tenant, "admin")
    reviewer = make_client(intruder_tenant, "analyst")
    unknown = "fact_" + uuid.uuid4().hex
    for fid in (unknown, mine):
        assert intruder.execute(FACT, {"id": fid}) == {"fact": None}
    for who, op in (
        (intruder, 'retractFact(id: $id, reason: "x")'),
        (reviewer, "approveFact(id: $id)"),
        (reviewer, 'rejectFact(id: $id, reason: "x")'),
    ):
        answers = []
        for fid in (unknown, mine if "retract" in op else candidate):
            err = error_of(who, f"mutation($id: ID!) {{ {op} {{ id }} }}", {"id": fid})
            answers.append((err.code, err.errors[0]["message"].replace(fid, "<id>")))
        assert answers[0] == answers[1] and answers[0][0] == "NOT_FOUND", (op, answers)
    assert client.fact(mine)["status"] == "ACTIVE"  # type: ignore[index]
    assert client.fact(candidate)["status"] == "CANDIDATE"  # type: ignore[index]
    assert analyst.approve_fact(candidate)["status"] == "ACTIVE"


# -- entities --------------------------------------------------------------------------------------


def test_an_entity_is_one_node_however_it_is_reached(client: GraphMemoryClient) -> None:
    ep = record(client, 1)[0]
    (job,) = write(client, [cite(ep, "Alice", "works_at", "Acme Corp", objectIsEntity=True)])
    q = f"""query($f: FactFilterInput!) {{ facts(filter: $f) {{ nodes {{
      {NODE} objectIsEntity subjectEntity {{ id name key }} }} }} }}"""
    node = client.execute(q, {"f": {"scopes": [SCOPE]}})["facts"]["nodes"][0]
    assert node["objectIsEntity"] is True and node["object"] == "Acme Corp"
    alice = node["subjectEntity"]
    assert alice["name"] == "Alice" and alice["key"] == "alice"
    for spelling in ("alice", "  ALICE ", "Alice"):
        by_name = client.execute(ENTITY, {"name": spelling, "scopes": [SCOPE]})["entity"]
        assert by_name["id"] == alice["id"], spelling
        assert [f["id"] for f in by_name["facts"]] == [job]
    by_id = client.execute(ENTITY, {"id": alice["id"], "scopes": [SCOPE]})["entity"]
    assert by_id["name"] == "Alice" and [f["id"] for f in by_id["facts"]] == [job]
    # The object became an entity too: reachable by its name before anything is said about it,
    # and the very node facts about it later point at.
    acme = client.execute(ENTITY, {"name": "acme  corp", "scopes": [SCOPE]})["entity"]
    assert acme is not None and acme["name"] == "Acme Corp" and acme["facts"] == []
    (hq,) = write(client, [cite(ep, "ACME corp", "based_in", "Boston", cardinality="ONE")])
    again = client.execute(ENTITY, {"id": acme["id"], "scopes": [SCOPE]})["entity"]
    assert again["name"] == "Acme Corp" and [f["id"] for f in again["facts"]] == [hq]
    assert client.execute(ENTITY, {"id": "ent_" + "0" * 24, "scopes": [SCOPE]}) == {"entity": None}
    assert client.execute(ENTITY, {"name": "Nobody Known", "scopes": [SCOPE]}) == {"entity": None}


def test_entity_facts_travel_on_both_time_axes(client: GraphMemoryClient) -> None:
    ep = record(client, 1)[0]
    y = {n: datetime(n, 1, 1, tzinfo=UTC) for n in (2019, 2020, 2022, 2024)}
    write(client, [cite(ep, "Alice", "lives_in", "Paris", validFrom=iso(y[2020]))])
    write(
        client, [cite(ep, "Alice", "works_at", "Acme", validFrom=iso(y[2020]), objectIsEntity=True)]
    )
    heard = now()
    write(client, [cite(ep, "Alice", "lives_in", "Berlin", validFrom=iso(y[2024]))])

    def at(**kw: Any) -> list[str]:
        v = {"name": "alice", "scopes": [SCOPE], **{k: iso(t) for k, t in kw.items()}}
        return sorted(f["object"] for f in client.execute(ENTITY, v)["entity"]["facts"])

    assert at() == ["Acme", "Berlin"]
    assert at(validAt=y[2022]) == ["Acme", "Paris"]
    assert at(validAt=y[2019]) == []
    assert at(asOf=heard) == ["Acme", "Paris"]
    assert at(asOf=heard, validAt=y[2024] + timedelta(days=1)) == ["Acme", "Paris"]
    wrong_scope = client.execute(ENTITY, {"name": "alice", "scopes": ["team:other"]})["entity"]
    assert wrong_scope["facts"] == []


def test_asking_for_an_entity_without_id_or_name_is_a_validation_error(
    client: GraphMemoryClient,
) -> None:
    err = error_of(client, "{ entity { id } }")
    assert err.code == "VALIDATION"


# -- history -----------------------------------------------------------------------------------


def test_history_gives_each_version_its_own_provenance_however_the_subject_is_spelled(
    client: GraphMemoryClient,
) -> None:
    a1, a2 = record(client, 2)
    (b1,) = record(client, 1, user="bob", scope=SCOPE)
    v1 = write(client, [cite(a1, "Alice", "lives_in", "Paris")])[0]
    v2 = write(client, [cite(b1, "alice", "lives_in", "Rome")])[0]
    write(client, [cite(a2, "ALICE", "lives_in", "Rome")])  # corroborates v2
    v3 = write(client, [cite(a2, "Alice", "lives_in", "Oslo")])[0]
    answers = [
        client.execute(HISTORY, {"s": s, "p": p, "scopes": [SCOPE]})["history"]
        for s, p in (("Alice", "lives_in"), ("  aLiCe ", " Lives In "), ("alice\t", "LIVES_IN"))
    ]
    assert answers[1] == answers[0] and answers[2] == answers[0]
    h = answers[0]
    assert (h["subject"], h["predicate"]) == ("alice", "lives_in")
    versions = h["versions"]
    assert [(v["id"], v["version"], v["status"]) for v in versions] == [
        (v1, 1, "SUPERSEDED"),
        (v2, 2, "SUPERSEDED"),
        (v3, 3, "ACTIVE"),
    ]
    assert versions[0]["supersededBy"] == v2 and versions[1]["supersededBy"] == v3
    assert versions[0]["supersededAt"] == versions[1]["recordedAt"]
    assert versions[1]["supersededAt"] == versions[2]["recordedAt"]
    prov = [[(p["episodeId"], p["userId"]) for p in v["provenance"]] for v in versions]
    assert prov[0] == [(a1, "alice")]
    assert sorted(prov[1]) == sorted([(b1, "bob"), (a2, "alice")])
    assert prov[2] == [(a2, "alice")]
    for v in versions:
        for p in v["provenance"]:
            assert p["weight"] > 0 and p["source"] == "user" and p["startedAt"]
            assert datetime.fromisoformat(p["linkedAt"]) >= datetime.fromisoformat(v["recordedAt"])
    nobody = client.execute(HISTORY, {"s": "nobody", "p": "lives_in", "scopes": [SCOPE]})
    assert nobody["history"]["versions"] == []


def test_history_as_of_shows_the_evidence_held_at_that_moment(client: GraphMemoryClient) -> None:
    (a1,) = record(client, 1)
    (b1,) = record(client, 1, user="bob")
    write(client, [cite(a1, "Alice", "lives_in", "Paris")])
    then = now()
    write(client, [cite(b1, "alice", "lives_in", "paris")])  # bob corroborates later
    past = client.execute(
        HISTORY, {"s": "alice", "p": "lives_in", "scopes": [SCOPE], "asOf": iso(then)}
    )
    assert [p["userId"] for p in past["history"]["versions"][0]["provenance"]] == ["alice"]


# -- nested fields for many facts at once (DataLoaders) --------------------------------------------

NESTED = """query($f: FactFilterInput!) { facts(filter: $f, first: 200) { nodes {
  id subject object
  provenance { episodeId userId sessionId }
  subjectEntity { id key }
  supersedes { id object provenance { episodeId userId } }
  dependsOn { id object }
  dependents { id object } } } }"""


def test_nested_fields_of_a_big_page_each_resolve_to_their_own_fact(
    client: GraphMemoryClient,
) -> None:
    n = 30
    team = "team:core"
    eps = record(client, 2 * n, user="", scope=team)  # episode i: user u<i>, its own session
    first = write(
        client, [cite(eps[i], f"Person {i}", "lives_in", f"City {i}", scope=team) for i in range(n)]
    )
    moved = write(
        client,
        [
            cite(eps[n + i], f"person {i}", "lives_in", f"Town {i}", scope=team)
            for i in range(0, n, 3)
        ],
    )
    current = list(first)
    for k, i in enumerate(range(0, n, 3)):
        current[i] = moved[k]
    roles = write(
        client,
        [
            cite(eps[i], f"Person {i}", "role", f"Mayor of {i}", scope=team, dependsOn=[current[i]])
            for i in range(1, n, 4)
        ],
    )
    nodes = {
        x["id"]: x for x in client.execute(NESTED, {"f": {"scopes": [team]}})["facts"]["nodes"]
    }
    assert set(nodes) == set(current) | set(roles)
    role_of = {f"person {i}": roles[k] for k, i in enumerate(range(1, n, 4))}
    for i in range(n):
        node = nodes[current[i]]
        key = f"person {i}"
        assert node["subject"] == key and node["subjectEntity"]["key"] == key
        cited = n + i if i % 3 == 0 else i
        assert node["provenance"] == [
            {
                "episodeId": eps[cited],
                "userId": f"u{cited}",
                "sessionId": node["provenance"][0]["sessionId"],
            }
        ]
        if i % 3 == 0:
            assert node["object"] == f"Town {i}"
            assert node["supersedes"] == {
                "id": first[i],
                "object": f"City {i}",
                "provenance": [{"episodeId": eps[i], "userId": f"u{i}"}],
            }
        else:
            assert node["supersedes"] is None
        assert node["dependsOn"] == []
        want = [{"id": role_of[key], "object": f"Mayor of {i}"}] if key in role_of else []
        assert node["dependents"] == want
    for k, i in enumerate(range(1, n, 4)):
        premise = nodes[current[i]]
        assert nodes[roles[k]]["dependsOn"] == [{"id": premise["id"], "object": premise["object"]}]
        assert nodes[roles[k]]["subjectEntity"] == nodes[current[i]]["subjectEntity"]
    sessions = [x["provenance"][0]["sessionId"] for x in nodes.values() if x["id"] in current]
    assert len(set(sessions)) == n


async def test_concurrent_requests_of_two_tenants_never_mix_their_nested_data(
    server: str, settings: Settings
) -> None:
    tenants = [f"t-{uuid.uuid4().hex[:10]}" for _ in range(2)]
    secrets = await asyncio.gather(
        *(asyncio.to_thread(keys, settings, t, "agent") for t in tenants)
    )
    clients = [AsyncGraphMemoryClient(server, s) for _, s in secrets]
    try:
        owned: list[set[str]] = []
        for k, c in enumerate(clients):
            (ep,) = [
                r["id"]
                for r in await c.record_episodes(
                    [
                        {
                            "userId": f"owner{k}",
                            "sessionId": "s1",
                            "summary": f"Tenant {k} owner talked about the shared names.",
                            "outcome": "SUCCESS",
                            "source": "user",
                            "scope": SCOPE,
                        }
                    ]
                )
            ]
            out = await c.assert_facts(
                [cite(ep, f"Person {i}", "lives_in", f"T{k} city {i}") for i in range(8)]
            )
            owned.append({r["factId"] for r in out["results"]})
        q = """query { facts(filter: {scopes: ["user:alice"]}) {
          nodes { id object provenance { userId } subjectEntity { id } } } }"""
        calls = [clients[i % 2].execute(q) for i in range(20)]
        for i, data in enumerate(await asyncio.gather(*calls)):
            k = i % 2
            nodes = data["facts"]["nodes"]
            assert {x["id"] for x in nodes} == owned[k]
            assert all(x["object"].startswith(f"T{k} ") for x in nodes)
            assert all(x["provenance"] == [{"userId": f"owner{k}"}] for x in nodes)
        # Same names, different tenants: different entities (ids are per tenant).
        ents = [await c.execute('{ entity(name: "person 1") { id } }') for c in clients]
        assert ents[0]["entity"]["id"] != ents[1]["entity"]["id"]
        foreign = await clients[1].execute(
            "query($id: ID) { entity(id: $id) { id } }", {"id": ents[0]["entity"]["id"]}
        )
        assert foreign == {"entity": None}
        facts0 = await clients[0].facts([SCOPE], first=1)
        assert await clients[1].fact(facts0["edges"][0]["node"]["id"]) is None
    finally:
        await asyncio.gather(*(c.aclose() for c in clients))


# -- authentication ----------------------------------------------------------------------------

PING = {"query": "{ tenantPolicy { version } }"}


def _refused(resp: httpx.Response) -> None:
    assert resp.status_code == 401, resp.text
    assert resp.headers.get("www-authenticate", "").lower().startswith("bearer")
    errors = resp.json()["errors"]
    assert errors and all(e["extensions"]["code"] == "UNAUTHENTICATED" for e in errors)
    assert "data" not in resp.json() or resp.json()["data"] is None


def test_missing_malformed_and_unknown_keys_get_http_401_before_any_work(
    server: str, client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    ep = record(client, 1)[0]
    people(client, ep, range(2))
    _, secret = keys(settings, tenant, "agent")
    read = {"query": 'query { facts(filter: {scopes: ["user:alice"]}) { nodes { id } } }'}
    for headers in (
        {},
        {"Authorization": "Basic " + base64.b64encode(b"alice:pw").decode()},
        {"Authorization": "Bearer gm_" + "x" * 43},
        {"Authorization": f"Bearer {secret}x"},
        {"Authorization": secret},  # no scheme
        {"X-Api-Key": "nope"},
    ):
        _refused(post(server, read, headers))
        _refused(post(server, {"query": "mutation { expireFacts { expired } }"}, headers))
    get = httpx.get(server, params={"query": "{ tenantPolicy { version } }"}, timeout=30)
    _refused(get)
    # The same key works in either header, and sees the tenant's facts.
    for headers in ({"Authorization": f"Bearer {secret}"}, {"X-Api-Key": secret}):
        ok = post(server, read, headers)
        assert ok.status_code == 200 and len(ok.json()["data"]["facts"]["nodes"]) == 2


def test_a_revoked_key_is_refused_within_the_documented_seconds(
    server: str, settings: Settings, tenant: str
) -> None:
    unused_id, unused = keys(settings, tenant, "agent")
    revoke(settings, unused_id)
    _refused(post(server, PING, {"Authorization": f"Bearer {unused}"}))
    used_id, used = keys(settings, tenant, "admin")
    assert post(server, PING, {"Authorization": f"Bearer {used}"}).status_code == 200
    revoke(settings, used_id)
    # Validated keys are cached for a few seconds (auth.py: "stops working within seconds").
    deadline = time.monotonic() + 15
    while True:
        resp = post(server, PING, {"Authorization": f"Bearer {used}"})
        if resp.status_code != 200 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    _refused(resp)


# -- roles -----------------------------------------------------------------------------------------

ANALYST_QUERIES = {
    "reviewQueue": 'query { reviewQueue(scopes: ["user:alice"]) { sessions } }',
    "auditLog": "query { auditLog { edges { cursor } } }",
    "alerts": "query { alerts { total } }",
}
ADMIN_MUTATIONS = {
    "forgetContributor": 'mutation { forgetContributor(userId: "alice") { receipt } }',
    "expireFacts": "mutation { expireFacts { expired } }",
    "configureTenant": "mutation { configureTenant(policy: {minTextChars: 60}) { version } }",
}


def _review_world(c: GraphMemoryClient) -> tuple[str, str, str]:
    ep = record(c, 1)[0]
    paris, tea, cats = write(
        c,
        [
            cite(ep, "Alice", "lives_in", "Paris"),
            cite(ep, "Alice", "likes", "tea", source="conversation"),
            cite(ep, "Alice", "dislikes", "cats", source="conversation"),
        ],
    )
    return paris, tea, cats


def test_an_agent_is_forbidden_what_the_schema_reserves_for_analysts_and_admins(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    paris, tea, cats = _review_world(client)
    version = client.execute("{ tenantPolicy { version } }")["tenantPolicy"]["version"]
    reserved = {
        **ANALYST_QUERIES,
        **ADMIN_MUTATIONS,
        "approveFact": f'mutation {{ approveFact(id: "{tea}") {{ id }} }}',
        "rejectFact": f'mutation {{ rejectFact(id: "{cats}") {{ id }} }}',
        "approveUnknown": 'mutation { approveFact(id: "fact_unknown") { id } }',
    }
    for name, q in reserved.items():
        err = error_of(client, q)
        assert err.code == "FORBIDDEN", name
        assert err.errors[0]["path"] and all("code" in e["extensions"] for e in err.errors)
    # Refused means nothing happened.
    assert client.fact(paris)["status"] == "ACTIVE"  # type: ignore[index]
    assert {client.fact(i)["status"] for i in (tea, cats)} == {"CANDIDATE"}  # type: ignore[index]
    assert len(client.execute('{ episodes(scopes: ["user:alice"]) { id } }')["episodes"]) == 1
    assert client.execute("{ tenantPolicy { version } }")["tenantPolicy"]["version"] == version
    actions = {e["node"]["action"] for e in analyst.audit_log(first=100)["edges"]}
    assert not actions & {"forget", "approve", "reject", "configure", "expire"}


def test_an_analyst_reviews_and_audits_but_may_not_do_admin_work(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    paris, tea, cats = _review_world(client)
    for name, q in ANALYST_QUERIES.items():
        assert analyst.execute(q) is not None, name
    assert analyst.approve_fact(tea)["status"] == "ACTIVE"
    assert analyst.reject_fact(cats, "not said")["status"] == "REJECTED"
    # Reviewing is the analyst's only write: retracting is the agent's (or the admin's).
    with pytest.raises(GraphMemoryClientError) as denied:
        analyst.retract_fact(paris, "audit finding")
    assert denied.value.code == "FORBIDDEN"
    assert client.retract_fact(paris, "audit finding")["status"] == "RETRACTED"
    for name, q in ADMIN_MUTATIONS.items():
        assert error_of(analyst, q).code == "FORBIDDEN", name
    assert len(client.execute('{ episodes(scopes: ["user:alice"]) { id } }')["episodes"]) == 1
    # What the analyst may not do, the admin may.
    assert admin.execute(ADMIN_MUTATIONS["configureTenant"])["configureTenant"]["version"] >= 1
    assert admin.execute(ADMIN_MUTATIONS["expireFacts"])["expireFacts"]["expired"] == 0
    for name, q in ANALYST_QUERIES.items():
        assert admin.execute(q) is not None, name


def test_every_role_reads_the_same_memory(
    client: GraphMemoryClient, analyst: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    ep = record(client, 1)[0]
    ids = write(client, [cite(ep, "Alice", "lives_in", "Paris"), cite(ep, "Alice", "likes", "tea")])
    reads: list[tuple[str, dict[str, Any]]] = [
        (FACTS, {"f": {"scopes": [SCOPE]}, "first": 10}),
        (FACT, {"id": ids[0]}),
        (HISTORY, {"s": "alice", "p": "lives_in", "scopes": [SCOPE]}),
        (ENTITY, {"name": "alice", "scopes": [SCOPE]}),
        ("query($id: ID!) { episode(id: $id) { id summary } }", {"id": ep}),
    ]
    for q, v in reads:
        answers = [c.execute(q, v) for c in (client, analyst, admin)]
        assert answers[0] == answers[1] == answers[2]
        assert all(v is not None for v in answers[0].values()), q


# -- tenants -----------------------------------------------------------------------------------


def test_two_tenants_share_nothing_not_even_names_keys_or_alerts(
    make_client: ClientFactory, tenant: str
) -> None:
    other = f"t-{uuid.uuid4().hex[:10]}"
    a, b = make_client(tenant, "agent"), make_client(other, "agent")
    a_admin, b_admin = make_client(tenant, "admin"), make_client(other, "admin")
    a_an, b_an = make_client(tenant, "analyst"), make_client(other, "analyst")
    a_ep, b_ep = record(a, 1)[0], record(b, 1)[0]
    # Tenant A: an admin-tier fact, an agent's failed override (an alert), a candidate.
    out = a_admin.assert_facts(
        [cite(a_ep, "Alice", "lives_in", "Paris", source="admin")], "import-1"
    )
    a_fact = out["results"][0]["factId"]
    conflict = a.assert_facts([cite(a_ep, "Alice", "lives_in", "Rome")])["results"][0]
    assert conflict["error"]["code"] == "TIER_CONFLICT"
    write(a, [cite(a_ep, "Alice", "likes", "tea", source="conversation")])
    assert a_an.alerts()["total"] == 1
    # Tenant B: the same names, the same idempotency key, a different truth.
    out = b.assert_facts([cite(b_ep, "Alice", "lives_in", "Oslo")], "import-1")
    assert out["results"][0]["ok"] and out["results"][0]["factId"] != a_fact
    assert objects(b, {"scopes": [SCOPE], "includeCandidates": True}) == ["Oslo"]
    assert objects(a, {"scopes": [SCOPE], "includeCandidates": True}) == ["Paris", "tea"]
    assert b.fact(a_fact) is None
    assert [v["object"] for v in b.history("alice", "lives_in", [SCOPE])["versions"]] == ["Oslo"]
    assert b.execute("query($id: ID!) { episode(id: $id) { id } }", {"id": a_ep}) == {
        "episode": None
    }
    assert [
        e["id"] for e in b.execute('{ episodes(scopes: ["user:alice"]) { id } }')["episodes"]
    ] == [b_ep]
    assert b_an.alerts()["total"] == 0
    assert b_an.review_queue([SCOPE]) == []
    assert b_an.audit_log(target=a_fact)["edges"] == []
    b_targets = {e["node"]["targetId"] for e in b_an.audit_log(first=200)["edges"]}
    a_targets = {e["node"]["targetId"] for e in a_an.audit_log(first=200)["edges"]}
    assert b_targets and a_targets and not b_targets & a_targets
    # B cannot cite A's episode or rest a fact on A's fact.
    cross = b.assert_facts(
        [
            cite(a_ep, "Bob", "lives_in", "Rome"),
            cite(b_ep, "Bob", "timezone", "CET", dependsOn=[a_fact]),
        ]
    )["results"]
    assert [r["error"]["code"] for r in cross] == ["NOT_FOUND", "NOT_FOUND"]
    # B's admin forgetting "alice" forgets B's alice only.
    assert b_admin.forget_contributor("alice")["episodesDeleted"] == 1
    assert objects(a, {"scopes": [SCOPE]}) == ["Paris"]
    assert a.execute("query($id: ID!) { episode(id: $id) { id } }", {"id": a_ep})["episode"]
    recall = b.recall("where does alice live", [SCOPE], min_score=0.0, min_relevance=0.0)
    assert recall["items"] == []


# -- errors --------------------------------------------------------------------------------------

KNOWN_CODES = {
    "VALIDATION",
    "GRAPHQL_VALIDATION",
    "NOT_FOUND",
    "FORBIDDEN",
    "CONFLICT",
    "TIER_CONFLICT",
}


def test_every_graphql_error_carries_a_machine_readable_code(
    server: str, settings: Settings, tenant: str
) -> None:
    _, secret = keys(settings, tenant, "agent")
    auth = {"Authorization": f"Bearer {secret}"}
    flt = "query($f: FactFilterInput!, $n: Int!) { facts(filter: $f, first: $n) { nodes { id } } }"
    bad = [
        {"query": "{ nope }"},
        {"query": "{ facts { nodes { id } } }"},
        {"query": flt, "variables": {"n": 5}},
        {"query": flt, "variables": {"f": {"scopes": [SCOPE]}, "n": "five"}},
        {"query": flt, "variables": {"f": {"scopes": [SCOPE], "colour": "red"}, "n": 5}},
        {"query": flt, "variables": {"f": {"scopes": ["everyone"]}, "n": 5}},
        {"query": '{ facts(filter: {scopes: ["tenant"]}, asOf: "yesterday") { nodes { id } } }'},
        {
            "query": '{ facts(filter: {scopes: ["tenant"]}, asOf: "2026-01-01T00:00:00")'
            " { nodes { id } } }"
        },
        {"query": '{ facts(filter: {scopes: ["user:alice"]}, after: "zzz") { nodes { id } } }'},
        {"query": 'mutation { retractFact(id: "fact_nope") { id } }'},
        {"query": "{ auditLog { edges { cursor } } }"},
        {"query": 'query { fact(id: "x") { id } auditLog { edges { cursor } } }'},
        {"query": 'query { history(subject: "a", predicate: "b", scopes: []) { subject } }'},
    ]
    for body in bad:
        resp = post(server, body, auth)
        assert resp.status_code == 200, (body, resp.text)
        errors = resp.json()["errors"]
        assert errors, body
        for e in errors:
            assert e.get("extensions", {}).get("code") in KNOWN_CODES, (body, e)


def test_a_syntax_error_also_carries_a_code(server: str, settings: Settings, tenant: str) -> None:
    _, secret = keys(settings, tenant, "agent")
    resp = post(
        server,
        {"query": '{ facts(filter: {scopes: ["user:alice"]}) { nodes { id } '},
        {"Authorization": f"Bearer {secret}"},
    )
    errors = resp.json()["errors"]
    assert errors and all(e.get("extensions", {}).get("code") for e in errors), errors


def test_two_operations_without_an_operation_name_run_nothing(
    server: str, settings: Settings, tenant: str
) -> None:
    _, secret = keys(settings, tenant, "admin")
    auth = {"Authorization": f"Bearer {secret}"}
    doc = (
        "mutation Tighten { configureTenant(policy: {minTextChars: 42}) { version } } "
        "query Read { tenantPolicy { minTextChars } }"
    )
    chosen = post(server, {"query": doc, "operationName": "Read"}, auth).json()
    assert chosen == {"data": {"tenantPolicy": {"minTextChars": 10}}}
    # Which one did the caller mean? The GraphQL spec says: neither, ask for operationName.
    resp = post(server, {"query": doc}, auth)
    body = (
        resp.json() if resp.headers.get("content-type", "").startswith("application/json") else {}
    )
    assert body.get("errors") and all(e.get("extensions", {}).get("code") for e in body["errors"])
    policy = post(server, {"query": "{ tenantPolicy { minTextChars } }"}, auth).json()
    assert policy["data"]["tenantPolicy"]["minTextChars"] == 10
