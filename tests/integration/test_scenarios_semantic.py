"""Held-out style scenarios for semantic memory, driven only through raw GraphQL text.

Each test is a story a user of the service would live through (moving city, correcting a
memory, replaying a batch, paging a long list) with exact expected answers.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import ClientFactory

US = timedelta(microseconds=1)
D2018 = datetime(2018, 2, 1, tzinfo=UTC)
D2020 = datetime(2020, 3, 15, 12, 30, tzinfo=UTC)
D2023 = datetime(2023, 7, 1, tzinfo=UTC)

RECORD = """mutation($eps: [EpisodeInput!]!) {
  recordEpisodes(episodes: $eps) { index ok id error { code field } } }"""
ASSERT = """mutation($facts: [FactInput!]!, $key: String) {
  assertFacts(facts: $facts, idempotencyKey: $key) {
    accepted rejected
    results { index ok action factId version status confidence supersedes
              error { code message field } } } }"""
FACTS = """query($f: FactFilterInput!, $asOf: DateTime, $validAt: DateTime, $first: Int!,
               $after: String) {
  facts(filter: $f, asOf: $asOf, validAt: $validAt, first: $first, after: $after) {
    edges { cursor node { id object status version recordedAt } }
    pageInfo { hasNextPage endCursor } } }"""
ENTITY_FACTS = """query($id: ID!, $scopes: [String!]!, $asOf: DateTime, $validAt: DateTime) {
  entity(id: $id) { key facts(scopes: $scopes, asOf: $asOf, validAt: $validAt) { id object } } }"""
HISTORY = """query($s: String!, $p: String!, $scopes: [String!]!, $asOf: DateTime) {
  history(subject: $s, predicate: $p, scopes: $scopes, asOf: $asOf) {
    subject predicate
    versions { id object status version recordedAt supersededAt supersededBy retractedAt
               retractedBy retractReason validFrom validTo confidence
               provenance { episodeId sessionId userId weight } } } }"""
FACT = """query($id: ID!) { fact(id: $id) { id object status version confidence
  recordedAt supersededAt retractedAt subjectEntity { id key name } } }"""
RETRACT = """mutation($id: ID!, $reason: String) {
  retractFact(id: $id, reason: $reason) { id status retractedAt retractedBy retractReason } }"""
DEFINE = (
    """mutation($p: [PredicateInput!]!) { definePredicates(predicates: $p) { name cardinality } }"""
)


def iso(d: datetime) -> str:
    return d.isoformat()


def ts(s: str) -> datetime:
    return datetime.fromisoformat(s)


def code_of(c: GraphMemoryClient, query: str, variables: dict[str, Any]) -> str:
    with pytest.raises(GraphMemoryClientError) as ei:
        c.execute(query, variables)
    return ei.value.code


def episodes(c: GraphMemoryClient, *sessions: str, user: str = "alice", **kw: Any) -> list[str]:
    eps = [
        {
            "userId": user,
            "sessionId": s,
            "startedAt": iso(D2018 - timedelta(days=30)),
            "summary": f"{user} chatted with the assistant about moving and languages.",
            "outcome": "SUCCESS",
            "source": "user",
            "confidence": 0.8,
            **kw,
        }
        for s in sessions
    ]
    out = c.execute(RECORD, {"eps": eps})["recordEpisodes"]
    assert all(r["ok"] for r in out), out
    return [r["id"] for r in out]


def f(s: str, p: str, o: str, eps: list[str], *, w: float | None = None, **kw: Any) -> dict:
    cites = [{"episodeId": e, **({"weight": w} if w is not None else {})} for e in eps]
    return {"subject": s, "predicate": p, "object": o, "episodes": cites, **kw}


def write(c: GraphMemoryClient, items: list[dict], key: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = c.execute(ASSERT, {"facts": items, "key": key})["assertFacts"]
    return out


def one(c: GraphMemoryClient, item: dict) -> dict[str, Any]:
    r: dict[str, Any] = write(c, [item])["results"][0]
    assert r["ok"], r
    return r


def objects(c: GraphMemoryClient, scopes: list[str], **kw: Any) -> list[str]:
    v = {"f": {"scopes": scopes, **kw.pop("flt", {})}, "first": 100, **kw}
    return sorted(e["node"]["object"] for e in c.execute(FACTS, v)["facts"]["edges"])


def history(c: GraphMemoryClient, s: str, p: str, scopes: list[str], **kw: Any) -> list[dict]:
    h = c.execute(HISTORY, {"s": s, "p": p, "scopes": scopes, **kw})["history"]
    return list(h["versions"])


# -- time ----------------------------------------------------------------------------------


def _move_three_times(c: GraphMemoryClient) -> list[dict[str, Any]]:
    (e1, e2, e3) = episodes(c, "s1", "s2", "s3")
    one(c, f("Alice", "lives_in", "Paris", [e1], validFrom=iso(D2018)))
    one(c, f("alice", "lives_in", "London", [e2], validFrom=iso(D2020)))
    one(c, f(" ALICE ", "lives_in", "Berlin", [e3], validFrom=iso(D2023)))
    return history(c, "alice", "lives_in", ["user:alice"])


def test_three_moves_in_order_answer_every_moment(client: GraphMemoryClient) -> None:
    vs = _move_three_times(client)
    assert [(v["object"], v["version"], v["status"]) for v in vs] == [
        ("Paris", 1, "SUPERSEDED"),
        ("London", 2, "SUPERSEDED"),
        ("Berlin", 3, "ACTIVE"),
    ]
    r1, r2, r3 = (ts(v["recordedAt"]) for v in vs)
    # Belief ends exactly when the next version's belief starts, and says who replaced it.
    assert [v["supersededAt"] for v in vs] == [vs[1]["recordedAt"], vs[2]["recordedAt"], None]
    assert [v["supersededBy"] for v in vs] == [vs[1]["id"], vs[2]["id"], None]
    now = datetime.now(UTC) + timedelta(seconds=1)
    table: list[tuple[datetime, datetime, list[str]]] = [
        # before anything was recorded nothing was believed, whatever the validity moment
        (r1 - US, now, []),
        (r1 - US, D2018, []),
        # believed right after the first write: Paris from 2018 on, nothing before
        (r1, now, ["Paris"]),
        (r1, D2018 - US, []),
        (r1, D2018, ["Paris"]),
        (r2 - US, D2023, ["Paris"]),
        # after the second write: London from 2020-03-15T12:30 on
        (r2, D2020 - US, ["Paris"]),
        (r2, D2020, ["London"]),
        (r2, now, ["London"]),
        (r3 - US, D2023 + timedelta(days=1), ["London"]),
        # after the third write, the full timeline
        (r3, D2018 - US, []),
        (r3, D2018, ["Paris"]),
        (r3, D2020 - US, ["Paris"]),
        (r3, D2020, ["London"]),
        (r3, D2023 - US, ["London"]),
        (r3, D2023, ["Berlin"]),
        (now, now, ["Berlin"]),
        (now, datetime(2100, 1, 1, tzinfo=UTC), ["Berlin"]),
    ]
    ent = client.execute(FACT, {"id": vs[0]["id"]})["fact"]["subjectEntity"]
    assert ent["key"] == "alice"
    for as_of, valid_at, want in table:
        v = {"asOf": iso(as_of), "validAt": iso(valid_at)}
        got = objects(client, ["user:alice"], flt={"subject": "Alice"}, **v)
        assert got == want, (as_of, valid_at, got)
        slot = objects(
            client, ["user:alice"], flt={"subject": "alice", "predicate": "lives_in"}, **v
        )
        assert slot == want
        by_ent = client.execute(ENTITY_FACTS, {"id": ent["id"], "scopes": ["user:alice"], **v})
        assert sorted(x["object"] for x in by_ent["entity"]["facts"]) == want, (as_of, valid_at)
    # history asOf: only the versions recorded by then
    assert [
        v["object"] for v in history(client, "alice", "lives_in", ["user:alice"], asOf=iso(r2 - US))
    ] == ["Paris"]
    assert history(client, "alice", "lives_in", ["user:alice"], asOf=iso(r1 - US)) == []


def test_three_moves_recorded_out_of_order_keep_the_timeline(client: GraphMemoryClient) -> None:
    """Told about the moves out of order (Berlin 2023, then Paris 2018, then London 2020):
    the world timeline is still Paris -> London -> Berlin, and she lives in Berlin now."""
    (e1, e2, e3) = episodes(client, "s1", "s2", "s3")
    one(client, f("alice", "lives_in", "Berlin", [e1], validFrom=iso(D2023)))
    one(client, f("alice", "lives_in", "Paris", [e2], validFrom=iso(D2018)))
    one(client, f("alice", "lives_in", "London", [e3], validFrom=iso(D2020)))
    got = {
        label: objects(client, ["user:alice"], flt={"subject": "alice"}, validAt=iso(at))
        for label, at in (
            ("2019", D2018 + timedelta(days=365)),
            ("2021", D2020 + timedelta(days=365)),
            ("2024", D2023 + timedelta(days=200)),
        )
    }
    assert got == {"2019": ["Paris"], "2021": ["London"], "2024": ["Berlin"]}
    assert objects(client, ["user:alice"], flt={"subject": "alice"}) == ["Berlin"]


def test_backfilled_past_residence_does_not_erase_the_current_one(
    client: GraphMemoryClient,
) -> None:
    """She lives in Berlin since 2023; later we learn she lived in Paris [2018, 2020).
    That is history, not a change: Berlin must still be where she lives."""
    (e1, e2) = episodes(client, "s1", "s2")
    one(client, f("alice", "lives_in", "Berlin", [e1], validFrom=iso(D2023)))
    one(client, f("alice", "lives_in", "Paris", [e2], validFrom=iso(D2018), validTo=iso(D2020)))
    assert objects(
        client, ["user:alice"], flt={"subject": "alice"}, validAt=iso(D2018 + timedelta(days=10))
    ) == ["Paris"]
    assert objects(client, ["user:alice"], flt={"subject": "alice"}) == ["Berlin"]


# -- cardinality and corroboration ------------------------------------------------------------


def test_many_valued_predicate_corroborates_variants_with_noisy_or(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    defined = admin.execute(
        DEFINE,
        {
            "p": [
                {"name": "speaks_language", "cardinality": "MANY"},
                {"name": "home_airport", "cardinality": "ONE"},
            ]
        },
    )
    assert {(p["name"], p["cardinality"]) for p in defined["definePredicates"]} >= {
        ("speaks_language", "MANY"),
        ("home_airport", "ONE"),
    }
    (a1, a2, b1, c1) = episodes(client, "sa", "sa", "sb", "sc")
    r = write(
        client,
        [
            f("alice", "speaks_language", "French", [a1], w=0.5),
            f("alice", "speaks_language", "German", [a1], w=0.5),
        ],
    )
    french = r["results"][0]["factId"]
    assert [x["action"] for x in r["results"]] == ["created", "created"]
    assert r["results"][0]["confidence"] == pytest.approx(0.5)
    # Same session, another episode, stronger: the session's best weight counts, once.
    same = one(client, f("Alice", "speaks_language", "  french ", [a2], w=0.7))
    assert (same["action"], same["factId"]) == ("corroborated", french)
    assert same["confidence"] == pytest.approx(0.7)
    # Another session: noisy-OR 1 - 0.3 * 0.6
    other = one(client, f("alice", "Speaks Language", "FRENCH", [b1], w=0.4))
    assert (other["action"], other["factId"], other["version"]) == ("corroborated", french, 1)
    assert other["confidence"] == pytest.approx(0.82)
    # Citing the same episode again is not new evidence.
    again = one(client, f("alice", "speaks_language", "French", [b1], w=0.9))
    assert again["confidence"] == pytest.approx(0.82)
    # A third strong session is capped by the user tier (0.95).
    capped = one(client, f("alice", "speaks_language", "French", [c1], w=0.99))
    assert capped["confidence"] == pytest.approx(0.95)
    stored = client.execute(FACT, {"id": french})["fact"]
    assert (stored["object"], stored["confidence"], stored["version"]) == ("French", 0.95, 1)
    assert objects(client, ["user:alice"], flt={"predicate": "speaks_language"}) == [
        "French",
        "German",
    ]
    assert len(history(client, "alice", "speaks_language", ["user:alice"])) == 2
    # Single-valued custom predicate: a new object supersedes, a variant corroborates.
    one(client, f("alice", "home_airport", "CDG", [a1]))
    assert one(client, f("alice", "home_airport", " cdg", [b1]))["action"] == "corroborated"
    sup = one(client, f("alice", "home_airport", "TXL", [c1]))
    assert (sup["action"], sup["version"]) == ("superseded", 2)
    assert objects(client, ["user:alice"], flt={"predicate": "home_airport"}) == ["TXL"]
    # The registry is final: redefining, or declaring the other cardinality, is a CONFLICT.
    assert code_of(admin, DEFINE, {"p": [{"name": "home_airport", "cardinality": "MANY"}]}) == (
        "CONFLICT"
    )
    bad = write(client, [f("alice", "home_airport", "BER", [a1], cardinality="MANY")])
    assert bad["results"][0]["error"]["code"] == "CONFLICT"
    assert objects(client, ["user:alice"], flt={"predicate": "home_airport"}) == ["TXL"]


def test_define_predicates_is_admin_only(client: GraphMemoryClient) -> None:
    q = {"p": [{"name": "nickname", "cardinality": "ONE"}]}
    assert code_of(client, DEFINE, q) == "FORBIDDEN"


# -- retraction ------------------------------------------------------------------------------


def test_retract_superseded_then_current_then_reassert(client: GraphMemoryClient) -> None:
    (e1, e2, e3) = episodes(client, "s1", "s2", "s3")
    paris = one(client, f("alice", "lives_in", "Paris", [e1], validFrom=iso(D2018)))["factId"]
    berlin = one(client, f("alice", "lives_in", "Berlin", [e2], validFrom=iso(D2023)))["factId"]
    before_retract = datetime.now(UTC)
    # Retracting the already superseded Paris: it was never true, history says so.
    gone = client.execute(RETRACT, {"id": paris, "reason": "she never lived there"})["retractFact"]
    assert gone["status"] == "RETRACTED" and gone["retractedBy"].startswith("agent:")
    assert gone["retractReason"] == "she never lived there"
    assert objects(client, ["user:alice"], validAt=iso(D2020)) == []
    # What we believed before the retraction about 2020 is still answerable.
    assert objects(client, ["user:alice"], asOf=iso(before_retract), validAt=iso(D2020)) == [
        "Paris"
    ]
    assert objects(client, ["user:alice"]) == ["Berlin"]
    # Now Berlin is retracted too: nothing is served, nothing resurrected.
    out = client.execute(RETRACT, {"id": berlin, "reason": "mixed up with her sister"})
    at = ts(out["retractFact"]["retractedAt"])
    assert objects(client, ["user:alice"], asOf=iso(at - US)) == ["Berlin"]
    assert objects(client, ["user:alice"], asOf=iso(at)) == []
    assert objects(client, ["user:alice"]) == []
    assert objects(client, ["user:alice"], validAt=iso(D2020)) == []
    # Retracting twice is a CONFLICT, an unknown id is NOT_FOUND.
    assert code_of(client, RETRACT, {"id": berlin}) == "CONFLICT"
    assert code_of(client, RETRACT, {"id": "fact_nope"}) == "NOT_FOUND"
    # Re-asserting Berlin later serves it again as a new version of the chain.
    again = one(client, f("alice", "lives_in", "Berlin", [e3], validFrom=iso(D2023)))
    assert again["version"] == 3 and again["factId"] not in (paris, berlin)
    assert objects(client, ["user:alice"]) == ["Berlin"]
    vs = history(client, "alice", "lives_in", ["user:alice"])
    assert [(v["object"], v["status"], v["retractReason"]) for v in vs] == [
        ("Paris", "RETRACTED", "she never lived there"),
        ("Berlin", "RETRACTED", "mixed up with her sister"),
        ("Berlin", "ACTIVE", None),
    ]
    assert all(v["retractedAt"] and v["retractedBy"] for v in vs[:2])
    assert vs[0]["supersededAt"] is not None  # retraction keeps when belief was replaced
    assert [p["sessionId"] for v in vs for p in v["provenance"]] == ["s1", "s2", "s3"]


# -- idempotency and batches -----------------------------------------------------------------


def test_idempotent_replay_and_conflicting_reuse(
    client: GraphMemoryClient, make_client: ClientFactory
) -> None:
    (e1,) = episodes(client, "s1")
    batch = [
        f("alice", "lives_in", "Paris", [e1]),
        f("alice", "likes", "jazz", [e1]),
        f("alice", "likes", "tea", ["ep_missing"]),
    ]
    first = write(client, batch, key="k-1")
    assert (first["accepted"], first["rejected"]) == (2, 1)
    replay = write(client, batch, key="k-1")
    assert replay == first
    assert len(history(client, "alice", "lives_in", ["user:alice"])) == 1
    assert len(history(client, "alice", "likes", ["user:alice"])) == 1
    stored = client.execute(FACT, {"id": first["results"][1]["factId"]})["fact"]
    assert stored["confidence"] == pytest.approx(first["results"][1]["confidence"])
    changed = [*batch[:2], f("alice", "likes", "coffee", [e1])]
    assert code_of(client, ASSERT, {"facts": changed, "key": "k-1"}) == "CONFLICT"
    assert objects(client, ["user:alice"], flt={"predicate": "likes"}) == ["jazz"]
    # A replay after the world moved on returns the old answer and re-applies nothing.
    (e2,) = episodes(client, "s2")
    moved = one(client, f("alice", "lives_in", "Berlin", [e2]))
    assert write(client, batch, key="k-1") == first
    assert objects(client, ["user:alice"], flt={"predicate": "lives_in"}) == ["Berlin"]
    assert moved["version"] == 2
    assert len(history(client, "alice", "lives_in", ["user:alice"])) == 2
    # Keys are per tenant: another tenant's identical key is a fresh write.
    other = make_client(f"t-{uuid.uuid4().hex[:10]}", "agent")
    (o1,) = episodes(other, "s1")
    r = write(other, [f("alice", "likes", "coffee", [o1])], key="k-1")
    assert r["results"][0]["action"] == "created"


def test_mixed_batch_types_each_bad_item_and_lands_the_rest(client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    items = [
        f("alice", "likes", "jazz", [e1]),
        f("alice", "likes", "opera", ["ep_unknown"]),
        f("alice", "likes", "rock", [e1], validFrom="2020-01-01T00:00:00"),
        f("alice", "likes", "blues", [e1], validFrom=iso(D2023), validTo=iso(D2020)),
        f("alice", "likes", "punk", [e1], validFrom=iso(D2020), validTo=iso(D2020)),
        f("", "likes", "folk", [e1]),
        f("   ", "likes", "folk", [e1]),
        f("alice", "likes", "", [e1]),
        f("alice", "likes", "ska", [e1], w=0.0),
        f("alice", "likes", "reggae", [e1], source="rumour"),
        f("alice", "likes", "soul", [e1], validFrom=iso(D2020), validTo=iso(D2023)),
    ]
    r = write(client, items)
    got = [
        (x["ok"], (x["error"] or {}).get("code"), (x["error"] or {}).get("field"))
        for x in r["results"]
    ]
    assert got == [
        (True, None, None),
        (False, "NOT_FOUND", "episodes"),
        (False, "VALIDATION", "validFrom"),
        (False, "VALIDATION", "validFrom"),
        (False, "VALIDATION", "validFrom"),
        (False, "VALIDATION", "subject"),
        (False, "VALIDATION", "subject"),
        (False, "VALIDATION", "object"),
        (False, "VALIDATION", "weight"),
        (False, "VALIDATION", "source"),
        (True, None, None),
    ]
    assert [x["index"] for x in r["results"]] == list(range(len(items)))
    assert (r["accepted"], r["rejected"]) == (2, 9)
    # jazz holds from the episode's start (2018) on; soul only inside [2020, 2023).
    assert objects(client, ["user:alice"], validAt=iso(D2020)) == ["jazz", "soul"]
    assert objects(client, ["user:alice"], validAt=iso(D2023)) == ["jazz"]


def test_oversize_batch_is_refused_whole(client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    items = [f("alice", "likes", f"item {i}", [e1]) for i in range(1001)]
    assert code_of(client, ASSERT, {"facts": items, "key": None}) == "VALIDATION"
    assert objects(client, ["user:alice"]) == []
    ok = write(client, items[:1000])
    assert ok["accepted"] == 1000


# -- pagination --------------------------------------------------------------------------------


def _walk(c: GraphMemoryClient, first: int, **kw: Any) -> list[str]:
    seen: list[str] = []
    after: str | None = None
    for _ in range(100):
        page = c.execute(
            FACTS, {"f": {"scopes": ["user:alice"]}, "first": first, "after": after, **kw}
        )["facts"]
        seen += [e["node"]["object"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            assert page["pageInfo"]["endCursor"] == (
                page["edges"][-1]["cursor"] if page["edges"] else None
            )
            return seen
        after = page["pageInfo"]["endCursor"]
    raise AssertionError("pagination never ended")


def test_pagination_is_complete_stable_and_respects_as_of(client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    write(client, [f("alice", "likes", f"a{i:02d}", [e1]) for i in range(23)])
    between = datetime.now(UTC)
    write(client, [f("alice", "likes", f"b{i:02d}", [e1]) for i in range(7)])
    everything = _walk(client, 30)
    assert sorted(everything) == sorted(
        [f"a{i:02d}" for i in range(23)] + [f"b{i:02d}" for i in range(7)]
    )
    # newest batch first
    assert set(everything[:7]) == {f"b{i:02d}" for i in range(7)}
    for size in (1, 4, 5, 7, 29):
        assert _walk(client, size) == everything, size
    past = _walk(client, 4, asOf=iso(between))
    assert past == [x for x in everything if x.startswith("a")]
    # Supersession between pages does not duplicate what was already read at a fixed asOf.
    now = iso(datetime.now(UTC))
    page1 = client.execute(FACTS, {"f": {"scopes": ["user:alice"]}, "first": 10, "asOf": now})[
        "facts"
    ]
    write(client, [f("alice", "likes", f"c{i}", [e1]) for i in range(3)])
    rest = _walk(client, 10, asOf=now)
    assert [e["node"]["object"] for e in page1["edges"]] == rest[:10]
    for bad in (0, -1, 501):
        assert code_of(client, FACTS, {"f": {"scopes": ["user:alice"]}, "first": bad}) == (
            "VALIDATION"
        )


# -- tenants, scopes, errors ---------------------------------------------------------------


def test_two_tenants_never_meet(client: GraphMemoryClient, make_client: ClientFactory) -> None:
    other = make_client(f"t-{uuid.uuid4().hex[:10]}", "agent")
    (mine,) = episodes(client, "s1")
    (theirs,) = episodes(other, "s1")
    fid = one(other, f("alice", "lives_in", "Oslo", [theirs]))["factId"]
    one(client, f("alice", "lives_in", "Rome", [mine]))
    assert objects(client, ["user:alice"]) == ["Rome"]
    assert objects(other, ["user:alice"]) == ["Oslo"]
    assert client.execute(FACT, {"id": fid})["fact"] is None
    assert [v["object"] for v in history(client, "alice", "lives_in", ["user:alice"])] == ["Rome"]
    ent = other.execute(FACT, {"id": fid})["fact"]["subjectEntity"]
    assert (
        client.execute(ENTITY_FACTS, {"id": ent["id"], "scopes": ["user:alice"]})["entity"] is None
    )
    assert code_of(client, RETRACT, {"id": fid}) == "NOT_FOUND"
    # Citing the other tenant's episode is an unknown episode, not a cross-tenant link.
    r = write(client, [f("alice", "likes", "skiing", [theirs])])
    assert r["results"][0]["error"]["code"] == "NOT_FOUND"
    assert objects(other, ["user:alice"]) == ["Oslo"]


def test_scopes_are_separate_slots_and_filters(client: GraphMemoryClient) -> None:
    (a,) = episodes(client, "sa", user="alice")
    (b,) = episodes(client, "sb", user="bob")
    (t,) = episodes(client, "st", user="carol", scope="team:support")
    (g,) = episodes(client, "sg", user="dave", scope="tenant")
    one(client, f("acme", "works_at", "alice view", [a]))
    one(client, f("acme", "works_at", "bob view", [b]))
    one(client, f("acme", "works_at", "team view", [t]))
    one(client, f("acme", "works_at", "tenant view", [g]))
    # Same subject/predicate in another scope does not supersede.
    assert objects(client, ["user:alice"]) == ["alice view"]
    assert objects(client, ["user:bob"]) == ["bob view"]
    assert objects(client, ["team:support"]) == ["team view"]
    assert objects(client, ["user:alice", "tenant"]) == ["alice view", "tenant view"]
    assert objects(client, ["team:other"]) == []
    assert len(history(client, "acme", "works_at", ["user:alice"])) == 1
    assert len(history(client, "acme", "works_at", ["user:alice", "user:bob", "tenant"])) == 3
    assert code_of(client, FACTS, {"f": {"scopes": ["group:x"]}, "first": 5}) == "VALIDATION"


def test_empty_scope_list_is_a_validation_error(client: GraphMemoryClient) -> None:
    assert code_of(client, FACTS, {"f": {"scopes": []}, "first": 5}) == "VALIDATION"


def test_roles_and_auth(server: str, analyst: GraphMemoryClient, client: GraphMemoryClient) -> None:
    (e1,) = episodes(client, "s1")
    assert code_of(analyst, ASSERT, {"facts": [f("alice", "likes", "jazz", [e1])]}) == ("FORBIDDEN")
    assert (
        code_of(
            analyst,
            RECORD,
            {
                "eps": [
                    {
                        "userId": "alice",
                        "sessionId": "x",
                        "summary": "a long enough summary of things",
                        "outcome": "SUCCESS",
                    }
                ]
            },
        )
        == "FORBIDDEN"
    )
    assert objects(analyst, ["user:alice"]) == []  # analysts read
    assert (
        code_of(client, FACTS, {"f": {"scopes": ["user:alice"]}, "first": 5, "asOf": "yesterday"})
        == "VALIDATION"
    )
    assert (
        code_of(
            client,
            FACTS,
            {"f": {"scopes": ["user:alice"]}, "first": 5, "validAt": "2020-01-01T00:00:00"},
        )
        == "VALIDATION"
    )
    assert (
        code_of(client, FACTS, {"f": {"scopes": ["user:alice"]}, "first": 5, "after": "garbage"})
        == "VALIDATION"
    )
    r = httpx.post(server, json={"query": "{ predicates { name } }"})
    assert r.status_code == 401


# -- validity on re-assertion, sessions, normalisation ---------------------------------------


def test_returning_to_a_former_employer_is_served_now(client: GraphMemoryClient) -> None:
    """Alice worked at ACME [2018, 2020-03-15); in 2023 she went back. Both statements are
    accepted, so ACME must be where she works now and not in 2021."""
    (e1, e2) = episodes(client, "s1", "s2")
    one(client, f("alice", "works_at", "ACME", [e1], validFrom=iso(D2018), validTo=iso(D2020)))
    back = one(client, f("alice", "works_at", "acme", [e2], validFrom=iso(D2023)))
    assert back["ok"]
    assert objects(client, ["user:alice"], validAt=iso(D2018 + timedelta(days=1))) == ["ACME"]
    assert objects(client, ["user:alice"], validAt=iso(D2020 + timedelta(days=365))) == []
    assert objects(client, ["user:alice"]) in (["acme"], ["ACME"])


def test_valid_to_before_the_default_valid_from_is_refused(client: GraphMemoryClient) -> None:
    """Only validTo is given and it lies before the cited episode's start (validFrom's
    default): the claim can never hold. It must be refused per item, not stored silently
    and, for a single-valued predicate, wipe out the current value."""
    (e1, e2) = episodes(client, "s1", "s2")  # episodes start 2018-01-02
    one(client, f("alice", "lives_in", "Berlin", [e1], validFrom=iso(D2018)))
    r = write(client, [f("alice", "lives_in", "Paris", [e2], validTo="2010-01-01T00:00:00+00:00")])
    assert objects(client, ["user:alice"]) == ["Berlin"]
    assert r["results"][0]["ok"] is False
    assert r["results"][0]["error"]["code"] == "VALIDATION"


def test_two_users_sessions_with_the_same_id_are_independent(client: GraphMemoryClient) -> None:
    """Runtimes often number sessions per user ("s1", "s2" ...). Alice's s1 and Bob's s1 are
    different conversations: noisy-OR 1 - 0.5 * 0.5 = 0.75."""
    (a,) = episodes(client, "s1", user="alice", scope="tenant")
    (b,) = episodes(client, "s1", user="bob", scope="tenant")
    r = write(
        client, [f("acme", "likes", "tea", [a], w=0.5), f("acme", "likes", "tea", [b], w=0.5)]
    )
    assert [x["action"] for x in r["results"]] == ["created", "corroborated"]
    assert r["results"][1]["confidence"] == pytest.approx(0.75)


def test_whitespace_and_case_variants_are_one_fact_and_one_entity(
    client: GraphMemoryClient,
) -> None:
    (e1, e2) = episodes(client, "s1", "s2")
    r = write(
        client,
        [
            f("Alice", "lives_in", "New   York", [e1], w=0.5),
            f(" ALICE\t", "Lives In", " new york\n", [e2], w=0.5),
        ],
    )
    assert [x["action"] for x in r["results"]] == ["created", "corroborated"]
    assert r["results"][0]["factId"] == r["results"][1]["factId"]
    assert [x["confidence"] for x in r["results"]] == pytest.approx([0.75, 0.75])
    q = """query($n: String!) { entity(name: $n) { key name
             facts(scopes: ["user:alice"]) { object confidence version } } }"""
    ent = client.execute(q, {"n": "  aLiCe "})["entity"]
    assert ent["key"] == "alice" and ent["name"] == "Alice"
    assert ent["facts"] == [{"object": "New   York", "confidence": 0.75, "version": 1}]
    assert client.execute(q, {"n": "bob"})["entity"] is None
    vs = history(client, " ALICE ", "lives in", ["user:alice"])
    assert [(v["object"], v["version"]) for v in vs] == [("New   York", 1)]
    assert sorted(p["sessionId"] for p in vs[0]["provenance"]) == ["s1", "s2"]
