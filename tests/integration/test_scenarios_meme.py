"""MEME-style scenarios (Multi-entity & Evolving Memory Evaluation, arXiv 2605.12477), driven
through GraphQL only, as an agent would.

MEME's six tasks span single vs multi entity and static vs evolving: static retrieval,
single-entity update (the latest value wins), multi-entity lookup, Cascade (a fact derived from
another is not served as truth once its premise changed), Absence (after "Alice gave away her
dog Rex" nothing answers "Alice's dog" with Rex as current, while history still says she had
him) and Deletion (a retracted fact is gone from the present but answerable as "removed at T
by whom"; a forgotten contributor's facts are gone everywhere).

How the API expresses each operation (schema.graphql):
* an update: `assertFacts` with a new object of a single-valued predicate (SUPERSEDES);
* a derived fact: `assertFacts(dependsOn: [premise ids])`; the premise's supersession or
  retraction flags it `needsVerification` with a `verificationReason`; recall/context leave
  unverified facts out unless `includeUnverified`;
* ending a fact in the world ("gave Rex away in March"): a new version of the same triple with
  `validFrom` (its start, restated) and `validTo` (the end); or `retractFact` when the fact was
  never true / must leave belief now (history keeps it as RETRACTED, with who, when and why);
* a contributor's right to be forgotten: `forgetContributor` (admin).
Where the API cannot express a MEME operation the test says "GAP:"; a wrong answer "BUG:".
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient

C = GraphMemoryClient
US = timedelta(microseconds=1)
ALICE = ["user:alice"]
FLAT = ["team:flat"]

F = """id subject predicate object text status version recordedAt supersededAt supersededBy
  retractedAt retractedBy retractReason validFrom validTo needsVerification verificationReason
  confidence provenance { episodeId userId } dependsOn { id status }"""
RECORD = """mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) {
  ok id error { code message } } }"""
ASSERT = """mutation($f: [FactInput!]!) { assertFacts(facts: $f) {
  results { ok action factId version status confidence supersedes
            error { code message field } } } }"""
FACTS = f"""query($f: FactFilterInput!, $asOf: DateTime, $validAt: DateTime) {{
  facts(filter: $f, asOf: $asOf, validAt: $validAt, first: 100) {{ nodes {{ {F} }} }} }}"""
FACT = f"query($id: ID!) {{ fact(id: $id) {{ {F} }} }}"
HISTORY = f"""query($s: String!, $p: String!, $sc: [String!]!, $asOf: DateTime) {{
  history(subject: $s, predicate: $p, scopes: $sc, asOf: $asOf) {{ versions {{ {F} }} }} }}"""
ENTITY = """query($n: String!, $sc: [String!]!, $asOf: DateTime, $validAt: DateTime) {
  entity(name: $n) { name facts(scopes: $sc, asOf: $asOf, validAt: $validAt) {
    predicate object status needsVerification } } }"""
RECALL = """query($q: String!, $sc: [String!]!, $asOf: DateTime, $validAt: DateTime,
                  $unv: Boolean! = false) {
  recall(query: $q, scopes: $sc, k: 3, asOf: $asOf, validAt: $validAt,
         includeUnverified: $unv) {
    items { kind text fact { id object status needsVerification }
            provenance { contributors episodes { episodeId userId } } } } }"""
CONTEXT = """query($q: String!, $sc: [String!]!, $asOf: DateTime) {
  context(query: $q, tokenBudget: 400, scopes: $sc, k: 5, asOf: $asOf) {
    text tokens included { id kind } } }"""
RETRACT = """mutation($id: ID!, $r: String) { retractFact(id: $id, reason: $r) {
  id status retractedAt retractedBy retractReason } }"""
FORGET = """mutation($u: String!) { forgetContributor(userId: $u) {
  episodesDeleted factVersionsDeleted factsRecomputed dependentsFlagged } }"""


def d(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def iso(t: datetime | None) -> str | None:
    return t.isoformat() if t else None


def ep(c: C, user: str, when: datetime, summary: str, scope: str | None = None) -> str:
    """One session, told at `when` (a fact's validFrom defaults to its episode's start)."""
    payload = {
        "userId": user,
        "sessionId": f"s-{user}-{when:%Y%m%d}-{abs(hash(summary)) % 10_000}",
        "startedAt": iso(when),
        "summary": summary,
        "outcome": "SUCCESS",
        "source": "user",
        "confidence": 0.8,
        "scope": scope,
    }
    r = c.execute(RECORD, {"e": [payload]})["recordEpisodes"][0]
    assert r["ok"], r
    return str(r["id"])


def put(c: C, s: str, p: str, o: str, eps: list[str], **kw: Any) -> dict[str, Any]:
    for k in ("validFrom", "validTo"):
        if isinstance(kw.get(k), datetime):
            kw[k] = iso(kw[k])
    item = {
        "subject": s,
        "predicate": p,
        "object": o,
        "episodes": [{"episodeId": e} for e in eps],
        "source": "user",
        **kw,
    }
    r: dict[str, Any] = c.execute(ASSERT, {"f": [item]})["assertFacts"]["results"][0]
    assert r["ok"], r
    return r


def facts(
    c: C, sc: list[str], as_of: datetime | None = None, valid_at: datetime | None = None, **flt: Any
) -> list[dict[str, Any]]:
    v = {"f": {"scopes": sc, **flt}, "asOf": iso(as_of), "validAt": iso(valid_at)}
    return list(c.execute(FACTS, v)["facts"]["nodes"])


def objs(c: C, sc: list[str], s: str, p: str, **kw: Any) -> list[str]:
    return sorted(n["object"] for n in facts(c, sc, subject=s, predicate=p, **kw))


def get(c: C, fid: str) -> dict[str, Any] | None:
    out: dict[str, Any] | None = c.execute(FACT, {"id": fid})["fact"]
    return out


def history(
    c: C, s: str, p: str, sc: list[str], as_of: datetime | None = None
) -> list[dict[str, Any]]:
    v = {"s": s, "p": p, "sc": sc, "asOf": iso(as_of)}
    return list(c.execute(HISTORY, v)["history"]["versions"])


def entity_facts(c: C, name: str, sc: list[str], **kw: Any) -> list[tuple[str, str]]:
    v = {"n": name, "sc": sc, **{k: iso(t) for k, t in kw.items()}}
    ent = c.execute(ENTITY, v)["entity"]
    return sorted((x["predicate"], x["object"]) for x in ent["facts"]) if ent else []


def recall(c: C, q: str, sc: list[str], **kw: Any) -> list[dict[str, Any]]:
    v = {
        "q": q,
        "sc": sc,
        "asOf": iso(kw.get("as_of")),
        "validAt": iso(kw.get("valid_at")),
        "unv": kw.get("unverified", False),
    }
    return list(c.execute(RECALL, v)["recall"]["items"])


def recalled_facts(c: C, q: str, sc: list[str], **kw: Any) -> list[str]:
    """The objects of the facts recall serves as answers, best first."""
    return [i["fact"]["object"] for i in recall(c, q, sc, **kw) if i["kind"] == "FACT"]


def context(c: C, q: str, sc: list[str], as_of: datetime | None = None) -> str:
    text: str = c.execute(CONTEXT, {"q": q, "sc": sc, "asOf": iso(as_of)})["context"]["text"]
    return text


def facts_section(text: str) -> str:
    """The semantic part of a context block (episodes are history and may mention anything)."""
    return text.split("## Episodes")[0].split("## Procedures")[0]


def now() -> datetime:
    return datetime.now(UTC)


# -- static retrieval -----------------------------------------------------------------------


def test_static_fact_is_recalled_with_its_source(client: C) -> None:
    e = ep(client, "alice", d(2026, 9), "Alice told the nurse bot she is allergic to penicillin.")
    fid = put(
        client, "alice", "allergic_to", "penicillin", [e], text="Alice is allergic to penicillin"
    )["factId"]
    items = recall(client, "Which medicine is Alice allergic to?", ALICE)
    top = next(i for i in items if i["kind"] == "FACT")
    assert top["fact"] == {
        "id": fid,
        "object": "penicillin",
        "status": "ACTIVE",
        "needsVerification": False,
    }
    assert top["provenance"]["episodes"] == [{"episodeId": e, "userId": "alice"}]
    assert "Alice is allergic to penicillin" in facts_section(
        context(client, "What is Alice allergic to?", ALICE)
    )


def test_static_fact_reads_the_same_through_every_door(client: C) -> None:
    e = ep(client, "alice", d(2026, 5), "Alice said her timezone is Europe/Berlin for meetings.")
    fid = put(client, "alice", "timezone", "Europe/Berlin", [e])["factId"]
    assert objs(client, ALICE, "alice", "timezone") == ["Europe/Berlin"]
    assert entity_facts(client, "Alice", ALICE) == [("timezone", "Europe/Berlin")]
    assert [(v["id"], v["status"]) for v in history(client, "alice", "timezone", ALICE)] == [
        (fid, "ACTIVE")
    ]
    # Valid since the session it was said in, not before.
    assert objs(client, ALICE, "alice", "timezone", valid_at=d(2026, 4)) == []


# -- single-entity update: the latest value wins --------------------------------------------


def _move(c: C) -> tuple[str, str, datetime]:
    e1 = ep(c, "alice", d(2025, 3), "Alice mentioned she rents a flat in Berlin near the park.")
    e2 = ep(c, "alice", d(2026, 8), "Alice said she has just moved from Berlin to Munich.")
    berlin = put(c, "alice", "lives_in", "Berlin", [e1], text="Alice lives in Berlin")["factId"]
    moved_at = now()
    munich = put(c, "alice", "lives_in", "Munich", [e2], text="Alice lives in Munich")
    assert (munich["action"], munich["supersedes"]) == ("superseded", berlin)
    return berlin, munich["factId"], moved_at


def test_after_a_move_every_read_answers_the_new_city(client: C) -> None:
    _move(client)
    assert objs(client, ALICE, "alice", "lives_in") == ["Munich"]
    assert entity_facts(client, "Alice", ALICE) == [("lives_in", "Munich")]
    assert recalled_facts(client, "Which city does Alice live in?", ALICE) == ["Munich"]
    block = facts_section(context(client, "Where does Alice live now?", ALICE))
    assert "Alice lives in Munich" in block and "Alice lives in Berlin" not in block


def test_reads_from_before_the_move_still_answer_berlin(client: C) -> None:
    _, munich, moved_at = _move(client)
    assert objs(client, ALICE, "alice", "lives_in", as_of=moved_at) == ["Berlin"]
    assert objs(client, ALICE, "alice", "lives_in", valid_at=d(2025, 12)) == ["Berlin"]
    assert recalled_facts(client, "Which city does Alice live in?", ALICE, as_of=moved_at) == [
        "Berlin"
    ]
    assert "Alice lives in Berlin" in context(client, "Where does Alice live?", ALICE, moved_at)
    hist = history(client, "alice", "lives_in", ALICE)
    assert [(v["object"], v["status"], v["supersededBy"]) for v in hist] == [
        ("Berlin", "SUPERSEDED", munich),
        ("Munich", "ACTIVE", None),
    ]


def test_three_job_changes_leave_only_the_last_one_current(client: C) -> None:
    steps = [(d(2024, 2), "intern"), (d(2025, 2), "engineer"), (d(2026, 6), "team lead")]
    ids = []
    for when, title in steps:
        e = ep(client, "alice", when, f"Alice said her job title at the lab is now {title}.")
        ids.append(
            put(client, "alice", "role", title, [e], text=f"Alice's job title is {title}")["factId"]
        )
    assert objs(client, ALICE, "alice", "role") == ["team lead"]
    assert [objs(client, ALICE, "alice", "role", valid_at=d(y, 6)) for y in (2024, 2025)] == [
        ["intern"],
        ["engineer"],
    ]
    assert recalled_facts(client, "What is Alice's job title?", ALICE) == ["team lead"]
    hist = history(client, "alice", "role", ALICE)
    assert [(v["object"], v["version"], v["supersededBy"]) for v in hist] == [
        ("intern", 1, ids[1]),
        ("engineer", 2, ids[2]),
        ("team lead", 3, None),
    ]


def test_restating_the_current_value_is_evidence_not_a_new_version(client: C) -> None:
    _, munich, _ = _move(client)
    e3 = ep(client, "alice", d(2026, 10), "Alice confirmed she still lives in Munich.")
    again = put(client, "alice", "lives_in", "Munich", [e3])
    assert (again["action"], again["factId"]) == ("corroborated", munich)
    assert again["confidence"] > 0.8
    assert len(history(client, "alice", "lives_in", ALICE)) == 2


# -- multi-entity: two users, two pets, a team, never bleeding -------------------------------


def test_two_flatmates_updates_never_bleed_into_each_other(client: C) -> None:
    ea = ep(
        client, "alice", d(2026, 2), "Alice said she cycles to work at the hospital.", "team:flat"
    )
    eb = ep(
        client, "bob", d(2026, 2), "Bob said he takes the tram to work at the bank.", "team:flat"
    )
    put(
        client,
        "alice",
        "commutes_by",
        "bicycle",
        [ea],
        cardinality="ONE",
        text="Alice commutes by bicycle",
    )
    put(client, "bob", "commutes_by", "tram", [eb], cardinality="ONE", text="Bob commutes by tram")
    eb2 = ep(client, "bob", d(2026, 9), "Bob bought a car and now drives to the bank.", "team:flat")
    put(client, "bob", "commutes_by", "car", [eb2], text="Bob commutes by car")
    assert objs(client, FLAT, "alice", "commutes_by") == ["bicycle"]
    assert objs(client, FLAT, "bob", "commutes_by") == ["car"]
    assert [v["object"] for v in history(client, "alice", "commutes_by", FLAT)] == ["bicycle"]
    assert entity_facts(client, "Bob", FLAT) == [("commutes_by", "car")]
    assert recalled_facts(client, "How does Bob get to work?", FLAT)[0] == "car"
    assert "tram" not in recalled_facts(client, "How does Bob get to work?", FLAT)
    assert recalled_facts(client, "How does Alice get to work?", FLAT)[0] == "bicycle"


def test_two_pets_keep_their_own_vets_when_one_changes(client: C) -> None:
    e1 = ep(
        client,
        "alice",
        d(2026, 1),
        "Alice has a beagle Rex seen by Dr. Lee and a cat Milo seen by Dr. Park.",
    )
    put(client, "alice", "has_pet", "Rex", [e1], cardinality="MANY", objectIsEntity=True)
    put(client, "alice", "has_pet", "Milo", [e1], objectIsEntity=True)
    put(client, "Rex", "vet", "Dr. Lee", [e1], cardinality="ONE", text="Rex's vet is Dr. Lee")
    put(client, "Milo", "vet", "Dr. Park", [e1], text="Milo's vet is Dr. Park")
    e2 = ep(
        client, "alice", d(2026, 7), "Alice moved Rex to Dr. Shah's clinic after Dr. Lee retired."
    )
    put(client, "Rex", "vet", "Dr. Shah", [e2], text="Rex's vet is Dr. Shah")
    assert objs(client, ALICE, "alice", "has_pet") == ["Milo", "Rex"]
    assert entity_facts(client, "Rex", ALICE) == [("vet", "Dr. Shah")]
    assert entity_facts(client, "Milo", ALICE) == [("vet", "Dr. Park")]
    assert [v["object"] for v in history(client, "Milo", "vet", ALICE)] == ["Dr. Park"]
    assert recalled_facts(client, "Who is Milo's vet?", ALICE)[0] == "Dr. Park"
    assert recalled_facts(client, "Who is Rex's vet?", ALICE)[0] == "Dr. Shah"


def test_two_owners_of_dogs_with_the_same_name_stay_apart(client: C) -> None:
    """Both Alice and Bob call their dog Rex: one entity name, two stories."""
    ea = ep(client, "alice", d(2026, 3), "Alice walks her dog Rex, a beagle, every morning.")
    eb = ep(client, "bob", d(2026, 3), "Bob's dog Rex is an old greyhound who sleeps a lot.")
    a_rex = put(client, "alice", "has_dog", "Rex", [ea], cardinality="ONE")["factId"]
    put(client, "Rex", "breed", "beagle", [ea], cardinality="ONE")
    put(client, "bob", "has_dog", "Rex", [eb])
    put(client, "Rex", "breed", "greyhound", [eb])
    client.execute(RETRACT, {"id": a_rex, "r": "Rex was Alice's neighbour's dog"})
    assert objs(client, ALICE, "alice", "has_dog") == []
    assert objs(client, ["user:bob"], "bob", "has_dog") == ["Rex"]
    assert entity_facts(client, "Rex", ALICE) == [("breed", "beagle")]
    assert entity_facts(client, "Rex", ["user:bob"]) == [("breed", "greyhound")]


def test_team_roster_change_touches_only_the_leaving_member(client: C) -> None:
    e1 = ep(client, "alice", d(2026, 1), "The core team is Alice, Bob and Carol.", "team:core")
    ids = {
        who: put(
            client, "core team", "has_member", who, [e1], cardinality="MANY", objectIsEntity=True
        )["factId"]
        for who in ("Alice", "Bob", "Carol")
    }
    left = now()
    client.execute(RETRACT, {"id": ids["Carol"], "r": "Carol left the core team"})
    sc = ["team:core"]
    assert objs(client, sc, "core team", "has_member") == ["Alice", "Bob"]
    assert objs(client, sc, "core team", "has_member", as_of=left) == ["Alice", "Bob", "Carol"]
    assert [get(client, ids[w])["status"] for w in ("Alice", "Bob")] == ["ACTIVE", "ACTIVE"]  # type: ignore[index]


# -- cascade: a conclusion whose premise changed is not served as truth ----------------------


def _office_only(c: C) -> tuple[str, str, datetime]:
    """Alice lives in Berlin; the agent concluded her nearest office is Berlin HQ."""
    e1 = ep(c, "alice", d(2025, 3), "Alice mentioned she rents a flat in Berlin near the park.")
    home = put(c, "alice", "lives_in", "Berlin", [e1], text="Alice lives in Berlin")["factId"]
    e2 = ep(c, "alice", d(2025, 4), "Agent worked out which company office is closest to Alice.")
    office = put(
        c,
        "alice",
        "nearest_office",
        "Berlin HQ",
        [e2],
        cardinality="ONE",
        dependsOn=[home],
        text="Alice's nearest office is Berlin HQ",
    )["factId"]
    return home, office, now()


def _office(c: C) -> tuple[str, str, datetime]:
    """... and then she moved to Munich (the conclusion's premise changed)."""
    home, office, before = _office_only(c)
    e3 = ep(c, "alice", d(2026, 8), "Alice said she has just moved from Berlin to Munich.")
    put(c, "alice", "lives_in", "Munich", [e3], text="Alice lives in Munich")
    return home, office, before


def test_moving_flags_the_derived_office_with_the_reason(client: C) -> None:
    home, office, _ = _office(client)
    got = get(client, office)
    assert got is not None and got["needsVerification"] is True
    assert home in got["verificationReason"] and "superseded" in got["verificationReason"]
    flagged = facts(client, ALICE, needsVerification=True)
    assert [n["id"] for n in flagged] == [office]


def test_flagged_conclusion_is_not_served_by_recall_or_context(client: C) -> None:
    _, office, _ = _office(client)
    q = "Which company office is nearest to Alice?"
    assert "Berlin HQ" not in recalled_facts(client, q, ALICE)
    assert "Berlin HQ" not in facts_section(context(client, q, ALICE))
    # Asked for explicitly, it comes with its doubt attached.
    items = [i for i in recall(client, q, ALICE, unverified=True) if i["kind"] == "FACT"]
    assert {"id": office, "object": "Berlin HQ", "status": "ACTIVE", "needsVerification": True} in [
        i["fact"] for i in items
    ]


def test_before_the_move_the_conclusion_was_unflagged_truth(client: C) -> None:
    _, office, before = _office(client)
    then = facts(client, ALICE, as_of=before, subject="alice", predicate="nearest_office")
    assert [(n["id"], n["needsVerification"]) for n in then] == [(office, False)]
    q = "Which company office is nearest to Alice?"
    assert recalled_facts(client, q, ALICE, as_of=before)[0] == "Berlin HQ"


def test_rederiving_from_the_new_premise_serves_the_new_conclusion(client: C) -> None:
    _, office, _ = _office(client)
    munich = objs(client, ALICE, "alice", "lives_in")
    assert munich == ["Munich"]
    munich_id = facts(client, ALICE, subject="alice", predicate="lives_in")[0]["id"]
    e = ep(client, "alice", d(2026, 9), "Agent rechecked which office is closest to Alice.")
    new = put(
        client,
        "alice",
        "nearest_office",
        "Munich Hub",
        [e],
        dependsOn=[munich_id],
        text="Alice's nearest office is Munich Hub",
    )
    assert new["supersedes"] == office
    assert facts(client, ALICE, needsVerification=True) == []
    assert recalled_facts(client, "Which company office is nearest to Alice?", ALICE) == [
        "Munich Hub"
    ]


def test_shared_conclusion_is_flagged_when_either_persons_premise_changes(client: C) -> None:
    ea = ep(
        client, "alice", d(2026, 1), "Alice lives in Pankow and drives to the plant.", "team:flat"
    )
    eb = ep(
        client,
        "bob",
        d(2026, 1),
        "Bob lives in Pankow too and works at the same plant.",
        "team:flat",
    )
    a = put(client, "alice", "lives_in", "Pankow", [ea])["factId"]
    b = put(client, "bob", "lives_in", "Pankow", [eb])["factId"]
    pool = put(
        client,
        "alice",
        "carpools_with",
        "Bob",
        [ea, eb],
        cardinality="ONE",
        dependsOn=[a, b],
        text="Alice and Bob carpool to the plant",
    )["factId"]
    eb2 = ep(client, "bob", d(2026, 6), "Bob moved to Potsdam last month.", "team:flat")
    put(client, "bob", "lives_in", "Potsdam", [eb2])
    got = get(client, pool)
    assert got is not None and got["needsVerification"] and b in got["verificationReason"]
    assert get(client, a)["needsVerification"] is False  # type: ignore[index]
    assert "Bob" not in recalled_facts(client, "Who does Alice carpool with?", FLAT)


def test_retracted_premise_keeps_its_conclusion_out_of_context(client: C) -> None:
    e1 = ep(client, "alice", d(2026, 2), "Alice said she is vegetarian and avoids meat.")
    veg = put(client, "alice", "diet", "vegetarian", [e1], cardinality="ONE")["factId"]
    e2 = ep(client, "alice", d(2026, 2), "Agent planned a team dinner that suits Alice.")
    menu = put(
        client,
        "alice",
        "dinner_pick",
        "Green Garden",
        [e2],
        cardinality="ONE",
        dependsOn=[veg],
        text="Book Green Garden vegetarian restaurant for Alice",
    )["factId"]
    client.execute(RETRACT, {"id": veg, "r": "misheard: Alice is not vegetarian"})
    got = get(client, menu)
    assert got is not None and got["needsVerification"] and "retracted" in got["verificationReason"]
    block = facts_section(context(client, "Which restaurant should we book for Alice?", ALICE))
    assert "Green Garden" not in block


def test_back_filled_past_does_not_doubt_the_present(client: C) -> None:
    """Alice reminisces that she lived in Paris 2018-2020. Nothing about today changed: Berlin
    is still where she lives and the office worked out from it is still good."""
    home, office, _ = _office_only(client)
    e = ep(
        client, "alice", d(2026, 5), "Alice reminisced that she lived in Paris from 2018 to 2020."
    )
    put(client, "alice", "lives_in", "Paris", [e], validFrom=d(2018), validTo=d(2020))
    assert objs(client, ALICE, "alice", "lives_in", valid_at=d(2019)) == ["Paris"]
    assert [
        (n["id"], n["status"]) for n in facts(client, ALICE, subject="alice", predicate="lives_in")
    ] == [(home, "ACTIVE")]
    assert get(client, office)["needsVerification"] is False  # type: ignore[index]
    q = "Which company office is nearest to Alice?"
    assert recalled_facts(client, q, ALICE)[0] == "Berlin HQ"


def test_a_conclusion_of_a_doubted_conclusion_is_not_served_as_truth(client: C) -> None:
    _, office, _ = _office(client)
    e = ep(client, "alice", d(2025, 5), "Agent chose a commute plan for Alice's office trips.")
    put(
        client,
        "alice",
        "commute_plan",
        "S-Bahn line S5",
        [e],
        cardinality="ONE",
        dependsOn=[office],
        text="Alice's commute plan to the office is S-Bahn line S5",
    )
    # Its premise (the Berlin HQ office) now needs verification: so does the plan.
    assert "S-Bahn line S5" not in recalled_facts(client, "What is Alice's commute plan?", ALICE)


def test_a_conclusion_outlives_not_its_premises_validity(client: C) -> None:
    e = ep(client, "alice", d(2026, 1), "Alice started a premium trial that runs until March.")
    trial = put(
        client,
        "alice",
        "plan",
        "premium",
        [e],
        cardinality="ONE",
        validTo=d(2026, 3),
        text="Alice is on the premium plan",
    )["factId"]
    put(
        client,
        "alice",
        "support_level",
        "priority",
        [e],
        cardinality="ONE",
        dependsOn=[trial],
        text="Alice gets priority support because she is premium",
    )
    assert objs(client, ALICE, "alice", "plan") == []  # the trial is over...
    assert objs(client, ALICE, "alice", "support_level", valid_at=d(2026, 2)) == ["priority"]
    # ...so what followed from it is not current truth any more.
    assert "priority" not in recalled_facts(client, "What support level does Alice get?", ALICE)


# -- absence: reasoning over removed entities ------------------------------------------------


def _rex(c: C) -> tuple[str, str, str]:
    """Alice adopted Rex in June 2025; Sam walks him. In March 2026 she gave him away."""
    e1 = ep(c, "alice", d(2025, 6), "Alice adopted a beagle puppy named Rex from the shelter.")
    rex = put(
        c,
        "alice",
        "has_dog",
        "Rex",
        [e1],
        cardinality="ONE",
        objectIsEntity=True,
        text="Alice has a beagle named Rex",
    )["factId"]
    walk = put(
        c,
        "alice",
        "dog_walker",
        "Sam",
        [e1],
        cardinality="ONE",
        dependsOn=[rex],
        text="Sam walks Alice's dog Rex every morning",
    )["factId"]
    e2 = ep(c, "alice", d(2026, 3), "Alice gave her dog Rex to her sister when she moved abroad.")
    return rex, walk, e2


def test_gave_away_dog_is_not_alices_dog_any_more(client: C) -> None:
    rex, _, e2 = _rex(client)
    ended = put(
        client,
        "alice",
        "has_dog",
        "Rex",
        [e2],
        validFrom=d(2025, 6),
        validTo=d(2026, 3),
        text="Alice had a beagle named Rex until March 2026",
    )
    assert ended["supersedes"] == rex
    assert objs(client, ALICE, "alice", "has_dog") == []
    assert ("has_dog", "Rex") not in entity_facts(client, "Alice", ALICE)
    assert "Rex" not in recalled_facts(client, "What is the name of Alice's dog?", ALICE)


def test_gave_away_dog_is_still_her_dog_in_the_past(client: C) -> None:
    rex, _, e2 = _rex(client)
    ended = put(client, "alice", "has_dog", "Rex", [e2], validFrom=d(2025, 6), validTo=d(2026, 3))
    assert objs(client, ALICE, "alice", "has_dog", valid_at=d(2025, 12)) == ["Rex"]
    assert objs(client, ALICE, "alice", "has_dog", valid_at=d(2025, 5)) == []
    hist = history(client, "alice", "has_dog", ALICE)
    assert [(v["id"], v["status"], v["validTo"]) for v in hist] == [
        (rex, "SUPERSEDED", None),
        (ended["factId"], "ACTIVE", iso(d(2026, 3))),
    ]
    assert "Rex" in recalled_facts(
        client, "What is the name of Alice's dog?", ALICE, valid_at=d(2025, 12)
    )


def test_facts_that_hung_on_the_dog_are_flagged_when_he_leaves(client: C) -> None:
    rex, walk, e2 = _rex(client)
    put(client, "alice", "has_dog", "Rex", [e2], validFrom=d(2025, 6), validTo=d(2026, 3))
    got = get(client, walk)
    assert got is not None and got["needsVerification"] and rex in got["verificationReason"]
    assert "Sam" not in recalled_facts(client, "Who walks Alice's dog?", ALICE)


def test_retract_plus_bounded_restatement_expresses_absence_today(client: C) -> None:
    """The mechanism that works now: end belief in the open-ended version (retractFact) and
    restate the past as a bounded version. Current reads are empty, the past still says Rex."""
    rex, walk, e2 = _rex(client)
    client.execute(RETRACT, {"id": rex, "r": "Alice gave Rex to her sister in March 2026"})
    put(
        client,
        "alice",
        "has_dog",
        "Rex",
        [e2],
        validFrom=d(2025, 6),
        validTo=d(2026, 3),
        text="Alice had a beagle named Rex until March 2026",
    )
    assert objs(client, ALICE, "alice", "has_dog") == []
    assert ("has_dog", "Rex") not in entity_facts(client, "Alice", ALICE)
    assert "Rex" not in recalled_facts(client, "What is the name of Alice's dog?", ALICE)
    assert "Rex" not in facts_section(context(client, "Tell me about Alice's dog", ALICE))
    assert objs(client, ALICE, "alice", "has_dog", valid_at=d(2025, 12)) == ["Rex"]
    assert get(client, walk)["needsVerification"] is True  # type: ignore[index]
    assert [v["status"] for v in history(client, "alice", "has_dog", ALICE)] == [
        "RETRACTED",
        "ACTIVE",
    ]


def test_ending_a_fact_needs_only_the_end_date(client: C) -> None:
    _, _, e2 = _rex(client)
    put(client, "alice", "has_dog", "Rex", [e2], validTo=d(2026, 3))
    assert objs(client, ALICE, "alice", "has_dog", valid_at=d(2025, 12)) == ["Rex"]


def test_one_pet_leaving_keeps_the_other(client: C) -> None:
    e1 = ep(client, "alice", d(2025, 6), "Alice has two pets: a beagle Rex and a cat Bella.")
    rex = put(client, "alice", "has_pet", "Rex", [e1], cardinality="MANY")["factId"]
    put(client, "alice", "has_pet", "Bella", [e1])
    e2 = ep(client, "alice", d(2026, 3), "Alice gave her dog Rex to her sister.")
    client.execute(RETRACT, {"id": rex, "r": "gave Rex to her sister"})
    put(client, "alice", "has_pet", "Rex", [e2], validFrom=d(2025, 6), validTo=d(2026, 3))
    assert objs(client, ALICE, "alice", "has_pet") == ["Bella"]
    assert objs(client, ALICE, "alice", "has_pet", valid_at=d(2025, 12)) == ["Bella", "Rex"]


# -- deletion: the state after removal ---------------------------------------------------------


def test_retracted_fact_is_gone_now_but_answerable_as_removed_at_by_whom(
    client: C, admin: C
) -> None:
    e = ep(client, "alice", d(2026, 4), "Alice said her emergency contact is her brother Tom.")
    fid = put(
        client,
        "alice",
        "emergency_contact",
        "Tom",
        [e],
        cardinality="ONE",
        text="Alice's emergency contact is her brother Tom",
    )["factId"]
    out = admin.execute(RETRACT, {"id": fid, "r": "Tom asked to be removed"})["retractFact"]
    at = datetime.fromisoformat(out["retractedAt"])
    assert objs(client, ALICE, "alice", "emergency_contact") == []
    assert entity_facts(client, "Alice", ALICE) == []
    assert recalled_facts(client, "Who is Alice's emergency contact?", ALICE) == []
    assert "Tom" not in facts_section(context(client, "Alice's emergency contact", ALICE))
    assert objs(client, ALICE, "alice", "emergency_contact", as_of=at - US) == ["Tom"]
    (v,) = history(client, "alice", "emergency_contact", ALICE)
    assert (v["status"], v["retractedAt"], v["retractedBy"], v["retractReason"]) == (
        "RETRACTED",
        out["retractedAt"],
        out["retractedBy"],
        "Tom asked to be removed",
    )
    assert out["retractedBy"] and "admin" in out["retractedBy"]


def _flat_with_bob(c: C) -> dict[str, str]:
    ea = ep(
        c, "alice", d(2026, 2), "Alice said the flat's wifi router is in the hallway.", "team:flat"
    )
    eb = ep(
        c,
        "bob",
        d(2026, 2),
        "Bob said the flat's wifi password is tangerine42 and the router is in the hallway.",
        "team:flat",
    )
    ids = {
        "pw": put(
            c,
            "flat",
            "wifi_password",
            "tangerine42",
            [eb],
            cardinality="ONE",
            text="The flat's wifi password is tangerine42",
        )["factId"],
        "router": put(
            c,
            "flat",
            "router_location",
            "hallway",
            [ea, eb],
            cardinality="ONE",
            text="The flat's wifi router is in the hallway",
        )["factId"],
    }
    ea2 = ep(
        c, "alice", d(2026, 3), "Agent wrote the guest wifi note for Alice's visitors.", "team:flat"
    )
    ids["note"] = put(
        c,
        "flat",
        "guest_note",
        "password on fridge",
        [ea2],
        cardinality="ONE",
        dependsOn=[ids["pw"]],
        text="Guest note: the wifi password is on the fridge",
    )["factId"]
    return ids


def test_forgotten_contributor_facts_are_gone_from_every_read(client: C, admin: C) -> None:
    ids = _flat_with_bob(client)
    before = now()
    admin.execute(FORGET, {"u": "bob"})
    assert get(client, ids["pw"]) is None
    assert objs(client, FLAT, "flat", "wifi_password") == []
    assert objs(client, FLAT, "flat", "wifi_password", as_of=before) == []
    assert history(client, "flat", "wifi_password", FLAT) == []
    assert ("wifi_password", "tangerine42") not in entity_facts(client, "flat", FLAT)
    q = "What is the flat's wifi password?"
    assert all("tangerine42" not in i["text"] for i in recall(client, q, FLAT))
    assert "tangerine42" not in context(client, q, FLAT)
    assert "tangerine42" not in context(client, q, FLAT, as_of=before)


def test_forgetting_keeps_shared_facts_and_doubts_what_followed(client: C, admin: C) -> None:
    ids = _flat_with_bob(client)
    out = admin.execute(FORGET, {"u": "bob"})["forgetContributor"]
    assert out["dependentsFlagged"] == 1
    router = get(client, ids["router"])
    assert router is not None and router["status"] == "ACTIVE"
    assert [p["userId"] for p in router["provenance"]] == ["alice"]
    assert objs(client, FLAT, "flat", "router_location") == ["hallway"]
    note = get(client, ids["note"])
    assert note is not None and note["needsVerification"] is True
    assert "fridge" not in facts_section(context(client, "Where is the guest wifi note?", FLAT))
