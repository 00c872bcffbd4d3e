"""Held-out scenarios for bitemporal writes and reads, driven only through raw GraphQL.

Each story mixes back-filled history, in-order moves, corrections, candidates, retraction,
forgetting and replays; the answers at every (asOf, validAt) must stay a coherent timeline and
the past must be reconstructible: what the API answered at T is what it answers later asOf T.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient

US = timedelta(microseconds=1)
Y = {y: datetime(y, 1, 1, tzinfo=UTC) for y in range(2015, 2031)}
MID = {y: datetime(y, 7, 1, tzinfo=UTC) for y in range(2015, 2031)}

RECORD = """mutation($eps: [EpisodeInput!]!) {
  recordEpisodes(episodes: $eps) { index ok id error { code field } } }"""
ASSERT = """mutation($facts: [FactInput!]!, $key: String) {
  assertFacts(facts: $facts, idempotencyKey: $key) {
    accepted rejected
    results { index ok action factId version status confidence supersedes
              error { code message field } } } }"""
FACTS = """query($f: FactFilterInput!, $asOf: DateTime, $validAt: DateTime) {
  facts(filter: $f, asOf: $asOf, validAt: $validAt, first: 100) {
    edges { node { id object status version validFrom validTo } } } }"""
ENTITY = """query($n: String!, $scopes: [String!]!, $asOf: DateTime, $validAt: DateTime) {
  entity(name: $n) { facts(scopes: $scopes, asOf: $asOf, validAt: $validAt) { object } } }"""
HISTORY = """query($s: String!, $p: String!, $scopes: [String!]!, $asOf: DateTime) {
  history(subject: $s, predicate: $p, scopes: $scopes, asOf: $asOf) {
    versions { id object status version recordedAt supersededAt supersededBy retractedAt
               validFrom validTo confidence provenance { sessionId userId } } } }"""
RETRACT = """mutation($id: ID!) { retractFact(id: $id, reason: "wrong") { id status } }"""
APPROVE = """mutation($id: ID!) { approveFact(id: $id) { id status } }"""
REJECT = """mutation($id: ID!) { rejectFact(id: $id, reason: "no") { id status } }"""
FORGET = """mutation($u: String!) { forgetContributor(userId: $u) { receipt } }"""
DEFINE = """mutation($p: [PredicateInput!]!) { definePredicates(predicates: $p) { name } }"""
SCOPE = ["user:alice"]


def iso(d: datetime) -> str:
    return d.isoformat()


def episodes(
    c: GraphMemoryClient,
    *sessions: str,
    user: str = "alice",
    start: datetime | None = None,
    scope: str = "user:alice",
) -> list[str]:
    eps = [
        {
            "userId": user,
            "sessionId": s,
            "startedAt": iso(start or Y[2026]),
            "summary": f"{user} chatted with the assistant about where she lived and worked.",
            "outcome": "SUCCESS",
            "source": "user",
            "confidence": 0.8,
            "scope": scope,
        }
        for s in sessions
    ]
    out = c.execute(RECORD, {"eps": eps})["recordEpisodes"]
    assert all(r["ok"] for r in out), out
    return [r["id"] for r in out]


def f(o: str, eps: list[str], p: str = "lives_in", **kw: Any) -> dict[str, Any]:
    for k in ("validFrom", "validTo"):
        if isinstance(kw.get(k), datetime):
            kw[k] = iso(kw[k])
    cites = [{"episodeId": e, "weight": kw.pop("w", 0.5)} for e in eps]
    return {"subject": "alice", "predicate": p, "object": o, "episodes": cites, **kw}


def write(
    c: GraphMemoryClient, items: list[dict[str, Any]], key: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = c.execute(ASSERT, {"facts": items, "key": key})["assertFacts"]
    return out


def one(c: GraphMemoryClient, item: dict[str, Any]) -> dict[str, Any]:
    r: dict[str, Any] = write(c, [item])["results"][0]
    assert r["ok"], r
    return r


def at(
    c: GraphMemoryClient,
    valid: datetime | None = None,
    as_of: datetime | None = None,
    p: str = "lives_in",
    **flt: Any,
) -> list[str]:
    v = {
        "f": {"scopes": SCOPE, "subject": "alice", "predicate": p, **flt},
        "asOf": iso(as_of) if as_of else None,
        "validAt": iso(valid) if valid else None,
    }
    return sorted(e["node"]["object"] for e in c.execute(FACTS, v)["facts"]["edges"])


def history(c: GraphMemoryClient, p: str = "lives_in", **kw: Any) -> list[dict[str, Any]]:
    h = c.execute(HISTORY, {"s": "alice", "p": p, "scopes": SCOPE, **kw})["history"]
    return list(h["versions"])


GRID = [Y[2016], MID[2018], MID[2019], MID[2021], MID[2023], MID[2026], Y[2030]]


def timeline(c: GraphMemoryClient, as_of: datetime | None = None, p: str = "lives_in") -> list[Any]:
    return [at(c, g, as_of, p=p) for g in GRID]


def tl(spec: str) -> list[list[str]]:
    """'- Paris London+Rome' -> [[], ['Paris'], ['London', 'Rome']]: one cell per GRID moment."""
    return [[] if cell == "-" else sorted(cell.split("+")) for cell in spec.split()]


def by_entity(c: GraphMemoryClient, valid: datetime, as_of: datetime | None = None) -> list[str]:
    v = {"n": "Alice", "scopes": SCOPE, "validAt": iso(valid), "asOf": as_of and iso(as_of)}
    ent = c.execute(ENTITY, v)["entity"]
    return sorted(x["object"] for x in ent["facts"]) if ent else []


def moment() -> datetime:
    """A belief moment strictly after the last committed write (same host clock)."""
    return datetime.now(UTC)


# -- a story told out of order, replayed from its recorded answers ---------------------------


def test_every_recorded_answer_is_reconstructible_with_as_of(client: GraphMemoryClient) -> None:
    eps = episodes(client, *[f"s{i}" for i in range(7)])
    steps: list[tuple[datetime, list[Any]]] = []
    ids: dict[str, str] = {}

    def step() -> None:
        now = moment()
        tl = timeline(client)
        # entity(id){facts} reads the same rule as facts(filter)
        assert [by_entity(client, g) for g in GRID] == tl
        steps.append((now, tl))

    ids["Berlin"] = one(client, f("Berlin", [eps[0]], validFrom=Y[2023]))["factId"]
    step()
    ids["Paris"] = one(client, f("Paris", [eps[1]], validFrom=Y[2018]))["factId"]  # back-filled
    step()
    london = one(client, f("London", [eps[2]], validFrom=Y[2020]))  # in-order inside history
    assert (london["action"], london["supersedes"]) == ("superseded", ids["Paris"])
    ids["London"] = london["factId"]
    step()
    munich = one(client, f("Munich", [eps[3]], validFrom=Y[2023]))  # correction, same start
    assert (munich["action"], munich["supersedes"]) == ("superseded", ids["Berlin"])
    ids["Munich"] = munich["factId"]
    step()
    r = write(
        client,
        [
            f("Rome", [eps[4]], validFrom=Y[2015], validTo=Y[2018]),
            f("Vienna", [eps[5]], validFrom=Y[2028]),
        ],
    )["results"]
    assert [(x["action"], x["supersedes"]) for x in r] == [
        ("created", None),
        ("superseded", ids["Munich"]),
    ]
    ids["Rome"], ids["Vienna"] = r[0]["factId"], r[1]["factId"]
    step()
    client.execute(RETRACT, {"id": ids["London"]})  # London never happened: Paris again
    step()
    assert [tl for _, tl in steps] == [
        tl("- - - - Berlin Berlin Berlin"),
        tl("- Paris Paris Paris Berlin Berlin Berlin"),
        tl("- Paris Paris London Berlin Berlin Berlin"),
        tl("- Paris Paris London Munich Munich Munich"),
        tl("Rome Paris Paris London Munich Munich Vienna"),
        tl("Rome Paris Paris Paris Munich Munich Vienna"),
    ]
    # Later, asOf each recording moment answers exactly what was answered then.
    for when, answered in steps:
        assert timeline(client, when) == answered, when
        assert [by_entity(client, g, when) for g in GRID] == answered
    vs = history(client)
    assert [(v["object"], v["version"], v["status"]) for v in vs] == [
        ("Berlin", 1, "SUPERSEDED"),
        ("Paris", 2, "SUPERSEDED"),
        ("London", 3, "RETRACTED"),
        ("Munich", 4, "SUPERSEDED"),
        ("Rome", 5, "ACTIVE"),
        ("Vienna", 6, "ACTIVE"),
    ]
    links = {v["object"]: v["supersededBy"] for v in vs}
    assert links == {
        "Berlin": ids["Munich"],
        "Paris": ids["London"],
        "London": None,
        "Munich": ids["Vienna"],
        "Rome": None,
        "Vienna": None,
    }
    valid = {v["object"]: (v["validFrom"][:4], (v["validTo"] or "open")[:4]) for v in vs}
    # Stored validity is what each write said; reads decide who answers where.
    assert valid["Paris"] == ("2018", "open") and valid["Rome"] == ("2015", "2018")
    assert valid["London"] == ("2020", "open") and valid["Vienna"] == ("2028", "open")
    recorded = [v["recordedAt"] for v in vs]
    assert recorded == sorted(recorded) and recorded[4] == recorded[5]  # one batch, one clock
    # history asOf a recording moment lists only what was recorded by then
    assert [v["object"] for v in history(client, asOf=iso(steps[2][0]))] == [
        "Berlin",
        "Paris",
        "London",
    ]


def test_backfill_does_not_overwrite_a_superseded_version_still_in_force(
    client: GraphMemoryClient,
) -> None:
    """Paris from 2018, then London from 2020 (in order), then 'Rome from 2015': Rome is
    history before Paris. Told in order (Rome, Paris, London) 2019 answers Paris; told in this
    order it must too."""
    (e1, e2, e3) = episodes(client, "s1", "s2", "s3")
    one(client, f("Paris", [e1], validFrom=Y[2018]))
    one(client, f("London", [e2], validFrom=Y[2020]))
    one(client, f("Rome", [e3], validFrom=Y[2015]))
    assert timeline(client) == tl("Rome Paris Paris London London London London")


# -- re-assertions of the same object ---------------------------------------------------------


def test_same_object_reassertions_corroborate_or_version(client: GraphMemoryClient) -> None:
    early = episodes(client, "e1", start=Y[2017])
    eps = episodes(client, *[f"s{i}" for i in range(7)])
    paris = one(client, f("Paris", [eps[0]], validFrom=Y[2020]))["factId"]
    # no validity, told now (2026): Paris from 2020 is valid then -> evidence
    r = one(client, f("paris", [eps[1]]))
    assert (r["action"], r["factId"]) == ("corroborated", paris)
    # no validity, told in an episode of 2017: older evidence for the open-ended version
    r = one(client, f("Paris", early))
    assert (r["action"], r["factId"]) == ("corroborated", paris)
    # an explicit start inside the version: the same claim
    r = one(client, f("Paris", [eps[2]], validFrom=Y[2022]))
    assert (r["action"], r["factId"]) == ("corroborated", paris)
    # an explicit start before it: new back-filled version that ends where Paris begins
    r = one(client, f("Paris", [eps[3]], validFrom=Y[2018]))
    assert (r["action"], r["supersedes"]) == ("created", None)
    assert at(client, MID[2019]) == ["Paris"] and at(client) == ["Paris"]
    # a bounded claim inside [2020, open) states an end the version does not have
    r = one(client, f("Paris", [eps[4]], validFrom=Y[2021], validTo=Y[2024]))
    assert (r["action"], r["supersedes"]) == ("superseded", paris)
    bounded = r["factId"]
    # the exact same bounded claim again is evidence, not another version
    r = one(client, f("Paris", [eps[5]], validFrom=Y[2022], validTo=Y[2024]))
    assert (r["action"], r["factId"], r["confidence"]) == ("corroborated", bounded, 0.75)
    assert len(history(client)) == 3
    assert [at(client, g) for g in (Y[2016], MID[2018], MID[2020], MID[2022])] == [
        [],
        ["Paris"],
        ["Paris"],
        ["Paris"],
    ]


def test_a_confidence_read_at_a_moment_stays_what_it_was_after_more_corroboration(
    client: GraphMemoryClient,
) -> None:
    """Two sessions at 0.7 make 0.91 (noisy-OR): the value read as of then is the same once a
    third session has corroborated it, to the last digit (the stored value and the one rebuilt
    from the evidence held then are rounded alike; 0.9099999999999999 became 0.91)."""
    eps = episodes(client, "c1", "c2", "c3")
    one(client, f("Porto", [eps[0]], w=0.7))
    one(client, f("Porto", [eps[1]], w=0.7))
    then = moment()
    before = [v["confidence"] for v in history(client, asOf=iso(then))]
    one(client, f("Porto", [eps[2]], w=0.7))
    assert before == [0.91]
    assert [v["confidence"] for v in history(client, asOf=iso(then))] == before
    assert [v["confidence"] for v in history(client)] == [0.95]  # the user tier's cap


def test_repeating_a_back_filled_claim_corroborates_and_promotes(client: GraphMemoryClient) -> None:
    eps = episodes(client, *[f"s{i}" for i in range(7)])
    # control: without a later version, three sessions of the claim promote it
    for e in eps[:3]:
        r = one(
            client,
            f(
                "Gym",
                [e],
                p="member_of",
                cardinality="MANY",
                validFrom=Y[2018],
                validTo=Y[2025],
                source="conversation",
            ),
        )
    assert (r["action"], r["version"], r["status"]) == ("corroborated", 1, "ACTIVE")
    # Berlin since 2023 is stated; "Paris 2018-2025" is back-filled history (Berlin wins 2023+) ...
    one(client, f("Berlin", [eps[3]], validFrom=Y[2023]))
    results = [
        one(client, f("Paris", [e], validFrom=Y[2018], validTo=Y[2025], source="conversation"))
        for e in eps[4:7]
    ]
    # ... and the same claim from two more sessions is evidence for that one version
    assert [(x["action"], x["version"]) for x in results] == [
        ("created", 2),
        ("corroborated", 2),
        ("corroborated", 2),
    ]
    assert results[-1]["status"] == "ACTIVE"
    assert at(client, MID[2019]) == ["Paris"]


# -- candidates, review and activation ----------------------------------------------------------


def test_candidate_backfill_is_served_only_from_its_promotion(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    eps = episodes(client, *[f"s{i}" for i in range(5)])
    one(client, f("ACME", [eps[0]], validFrom=Y[2023]))
    r = one(client, f("Initech", [eps[1]], validFrom=Y[2018], source="conversation"))
    assert (r["action"], r["status"]) == ("created", "CANDIDATE")
    pending = moment()
    assert timeline(client) == tl("- - - - ACME ACME ACME")
    assert at(client, MID[2019], includeCandidates=True) == ["Initech"]
    r = one(client, f("initech", [eps[2]], validFrom=Y[2019], source="conversation"))
    assert (r["action"], r["status"]) == ("corroborated", "CANDIDATE")
    r = one(client, f("Initech", [eps[3]], source="conversation", validFrom=Y[2018]))
    assert (r["action"], r["status"], r["version"]) == ("corroborated", "ACTIVE", 2)
    promoted = moment()
    assert at(client, MID[2019]) == ["Initech"] and at(client) == ["ACME"]
    assert at(client, MID[2019], pending) == [] and at(client, MID[2019], promoted) == ["Initech"]
    # a candidate approved by a reviewer is served from the approval on, not before
    c = one(client, f("Globex", [eps[4]], validFrom=Y[2016], source="conversation"))
    before = moment()
    analyst.execute(APPROVE, {"id": c["factId"]})
    assert at(client, MID[2016]) == ["Globex"] and at(client, MID[2016], before) == []
    assert at(client, Y[2016] - US) == [] and at(client, Y[2018] - US) == ["Globex"]
    assert at(client, Y[2018]) == ["Initech"]


def test_rejected_candidate_does_not_cut_a_users_statement(
    client: GraphMemoryClient, analyst: GraphMemoryClient
) -> None:
    (e1, e2) = episodes(client, "s1", "s2")
    c = one(client, f("Berlin", [e1], validFrom=Y[2023], source="conversation"))
    one(client, f("Paris", [e2], validFrom=Y[2018]))  # the user: Paris since 2018, no end
    analyst.execute(REJECT, {"id": c["factId"]})
    assert at(client) == ["Paris"]
    assert history(client)[1]["validTo"] is None


# -- many-valued predicates, TTL ----------------------------------------------------------------


def test_many_valued_objects_keep_their_own_timelines(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    admin.execute(DEFINE, {"p": [{"name": "speaks", "cardinality": "MANY"}]})
    eps = episodes(client, *[f"s{i}" for i in range(5)])
    one(client, f("German", [eps[0]], p="speaks", validFrom=Y[2020]))
    one(client, f("French", [eps[0]], p="speaks", validFrom=Y[2018], validTo=Y[2022]))
    # German back-filled before 2020; French's earlier start does not clip German
    r = one(client, f("German", [eps[1]], p="speaks", validFrom=Y[2015], validTo=Y[2017]))
    assert (r["action"], r["supersedes"]) == ("created", None)
    assert timeline(client, p="speaks") == tl(
        "German French French French+German German German German"
    )
    mid = moment()
    r = one(client, f("French", [eps[2]], p="speaks", validFrom=Y[2024]))
    assert r["action"] == "superseded"
    r = one(client, f("French", [eps[3]], p="speaks", validFrom=MID[2019]))
    assert r["action"] == "created"  # its own back-fill up to 2024
    assert timeline(client, p="speaks") == tl(
        "German French French " + " ".join(["French+German"] * 4)
    )
    assert timeline(client, mid, p="speaks")[4:] == [["German"]] * 3


def test_expired_version_is_not_truth_and_resurrects_nothing(client: GraphMemoryClient) -> None:
    eps = episodes(client, "s1", "s2", "s3")
    one(client, f("Paris", [eps[0]], validFrom=Y[2018]))
    one(client, f("Berlin", [eps[1]], validFrom=Y[2023], ttlDays=1))
    one(client, f("London", [eps[2]], validFrom=Y[2020]))  # back-filled under the TTL version
    later = moment() + timedelta(days=2)
    assert timeline(client) == tl("- Paris Paris London Berlin Berlin Berlin")
    assert timeline(client, later) == tl("- Paris Paris London - - -")
    assert at(client, MID[2026], later, includeExpired=True) == ["Berlin"]


# -- forgetting a contributor inside a back-filled chain ------------------------------------------


def test_forgetting_a_contributor_rewrites_the_chain_at_every_moment(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    (a1, a2) = episodes(client, "a1", "a2")
    (b1, b2) = episodes(client, "b1", "b2", user="bob")
    moments = []
    berlin = one(client, f("Berlin", [a1], validFrom=Y[2023]))["factId"]
    moments.append(moment())
    one(client, f("Paris", [b1], validFrom=Y[2018]))  # bob's back-fill
    moments.append(moment())
    london = one(client, f("London", [a2], validFrom=Y[2020]))  # supersedes bob's Paris
    moments.append(moment())
    one(client, f("Munich", [b2], validFrom=Y[2023]))  # bob's correction of Berlin
    moments.append(moment())
    assert timeline(client)[1:5] == [["Paris"], ["Paris"], ["London"], ["Munich"]]
    admin.execute(FORGET, {"u": "bob"})
    only_berlin = tl("- - - - Berlin Berlin Berlin")
    with_london = tl("- - - London Berlin Berlin Berlin")
    # as if bob had never spoken: every past moment, and now
    for when, want in zip(
        [*moments, moment()],
        [only_berlin, only_berlin, with_london, with_london, with_london],
        strict=True,
    ):
        assert timeline(client, when) == want, when
        assert [by_entity(client, g, when) for g in GRID] == want
    vs = history(client)
    assert [(v["object"], v["status"], v["supersededBy"]) for v in vs] == [
        ("Berlin", "ACTIVE", None),
        ("London", "ACTIVE", None),
    ]
    assert {p["userId"] for v in vs for p in v["provenance"]} == {"alice"}
    assert vs[0]["id"] == berlin and vs[1]["id"] == london["factId"]


def test_forgetting_the_version_that_cut_a_backfill_leaves_no_trace(
    client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    (a1,) = episodes(client, "a1")
    (b1,) = episodes(client, "b1", user="bob")
    one(client, f("ACME", [b1], p="works_at", validFrom=Y[2023]))
    one(client, f("Initech", [a1], p="works_at", validFrom=Y[2018]))
    admin.execute(FORGET, {"u": "bob"})
    # Had bob never spoken, Initech (since 2018, no end) would be where she works now.
    assert [v["validTo"] for v in history(client, p="works_at")] == [None]
    assert at(client, p="works_at") == ["Initech"]


# -- batches: in-batch order, idempotent replay ----------------------------------------------------


def test_mixed_backfill_batch_equals_one_by_one_and_replays_idempotently(
    client: GraphMemoryClient,
) -> None:
    eps = episodes(client, *[f"s{i}" for i in range(6)])
    told = [
        f("Berlin", [eps[0]], validFrom=Y[2023]),
        f("Paris", [eps[1]], validFrom=Y[2018]),
        f("Paris", [eps[3]], validFrom=MID[2018]),  # evidence for the back-filled Paris
        f("London", [eps[2]], validFrom=Y[2020]),
        f("Rome", [eps[4]], validFrom=Y[2015], validTo=Y[2018]),
    ]
    first = write(client, told, key="k-mixed")
    assert [(x["action"], x["version"]) for x in first["results"]] == [
        ("created", 1),
        ("created", 2),
        ("corroborated", 2),
        ("superseded", 3),
        ("created", 4),
    ]
    batch_tl = timeline(client)
    assert batch_tl == tl("Rome Paris Paris London Berlin Berlin Berlin")
    # the same story told one write at a time in another scope lands the same timeline (told
    # in that user's own sessions: a fact cites only evidence its readers may see)
    own = episodes(client, *[f"s{i}" for i in range(6)], user="alice2", scope="user:alice2")
    for item, e in zip(told, [own[0], own[1], own[3], own[2], own[4]], strict=True):
        cites = [{"episodeId": e, "weight": 0.5}]
        one(client, {**item, "scope": "user:alice2", "episodes": cites})
    v = {"f": {"scopes": ["user:alice2"], "subject": "alice", "predicate": "lives_in"}}
    other = [
        sorted(
            e["node"]["object"]
            for e in client.execute(FACTS, {**v, "validAt": iso(g)})["facts"]["edges"]
        )
        for g in GRID
    ]
    assert other == batch_tl
    replayed_at = moment()
    assert write(client, told, key="k-mixed") == first
    one(client, f("Munich", [eps[5]], validFrom=Y[2023]))  # the world moves on
    assert write(client, told, key="k-mixed") == first
    assert len(history(client)) == 5
    assert timeline(client, replayed_at) == batch_tl
    assert timeline(client)[4:] == [["Munich"]] * 3
