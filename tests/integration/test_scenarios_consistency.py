"""Model-based consistency of the bitemporal read paths, driven only through GraphQL.

The rule "in force at (asOf, validAt)" lives in several queries: facts by slot, by subject, by
predicate and by scope (cypher/fact/in_force_*.cypher), `entity{facts}`, `recall`
(cypher/recall/facts.cypher) and, as statuses as they stood then, `history(asOf)`. Histories of
episodes (told in and out of order), assertions with and without validity, re-assertions and
retractions are replayed (seeded random ones and hand-written ones); after every operation a
belief moment is noted. Then, for every noted moment as asOf and every validity boundary (at it
and a microsecond before), every path must give the same answer, the answer of a small
reference model of the README ("Time", "Facts") and services/facts/validity.py, and the answer the
API gave live at that moment. A single-valued slot with a version believed and valid at
(asOf, validAt) must answer with exactly one object: "one rule answers every read".
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.limits import Limits
from graph_memory.settings import Settings
from tests.integration.conftest import serving
from tests.unit.time_reference import MANY, Model, V


@pytest.fixture(scope="module")
def server(settings: Settings) -> Iterator[str]:
    """Each check reads every path at every moment in one document (hundreds of aliased
    `facts`, `entity`, `recall` and `history` reads): far past what the service lets an agent
    ask (graph_memory.limits), so this suite gets a server of its own with the limits lifted."""
    lifted = Limits(
        max_depth=100, max_aliases=10**5, max_cost=10**12, max_tokens=10**6, max_query_chars=10**7
    )
    with serving(replace(settings, limits=lifted)) as url:
        yield url


SCOPE = "user:alice"
US = timedelta(microseconds=1)


def d(y: int, m: int = 1, day: int = 1) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


def iso(t: datetime | None) -> str | None:
    return None if t is None else t.isoformat()


EP_STARTS = [d(2024, 2), d(2024, 8), d(2025, 3), d(2025, 9), d(2026, 4)]
VFROM = [d(2019), d(2021), d(2023), d(2024, 8), d(2025, 6)]
VTO = [d(2020), d(2022), d(2024), d(2025, 6), d(2026)]
OBJECTS = {"lives_in": ["Paris", "Berlin", "Rome"], "likes": ["tea", "jazz", "chess"]}

FIELDS = """fragment F on Fact { id subject predicate object status version validFrom validTo
  supersededAt supersededBy retractedAt provenance { episodeId } }"""
RECORD = """mutation($e: EpisodeInput!) { recordEpisode(episode: $e) }"""
ASSERT = """mutation($f: [FactInput!]!) { assertFacts(facts: $f) {
  results { ok action factId version supersedes error { code field } } } }"""
RETRACT = """mutation($id: ID!) { retractFact(id: $id, reason: "wrong") { id status } }"""
PAGE = """query($asOf: DateTime, $after: String) {
  facts(filter: {scopes: ["user:alice"]}, asOf: $asOf, first: 1, after: $after) {
    edges { node { id } } pageInfo { hasNextPage endCursor } } }"""


# -- a story: operations through GraphQL, mirrored in the model ----------------------------


@dataclass(repr=False)
class Story:
    c: GraphMemoryClient
    subjects: list[str]
    model: Model = field(default_factory=Model)
    episodes: list[tuple[str, datetime]] = field(default_factory=list)
    moments: list[datetime] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    live: list[dict[str, set[tuple[str, str]]]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def valid_ats(self) -> list[datetime | None]:
        edges = {s for _, s in self.episodes}
        for v in self.model.versions:
            edges |= {v.vf} | ({v.vt} if v.vt else set())
        return [*sorted({p for e in edges for p in (e - US, e)} | {d(2010)}), None]  # None: now

    def _note(self) -> None:
        """A belief moment strictly between this operation and the next, and what the API
        answers right now (no asOf) at every boundary known so far."""
        time.sleep(0.002)
        self.moments.append(datetime.now(UTC))
        time.sleep(0.002)
        ats = self.valid_ats()
        data = self.c.execute(_facts_doc([("x", "")], len(ats), with_as_of=False), _vars(ats))
        self.live.append(
            {
                iso(v) or "now": {(n["id"], n["status"]) for n in _nodes(data[f"x_{i}"])}
                for i, v in enumerate(ats)
            }
        )

    def episode(self, start: datetime, spelled: str | None = None) -> int:
        ep = {
            "userId": "alice",
            "sessionId": f"s-{uuid.uuid4().hex[:8]}",
            "startedAt": spelled or iso(start),
            "outcome": "SUCCESS",
            "source": "user",
            "summary": "Alice talked with the assistant about where she lives and what she likes.",
            "confidence": 0.8,
            "scope": SCOPE,
        }
        self.episodes.append((self.c.execute(RECORD, {"e": ep})["recordEpisode"], start))
        self.log.append(f"op{len(self.moments)}: ep{len(self.episodes) - 1} started {iso(start)}")
        self._note()
        return len(self.episodes) - 1

    def tell(
        self,
        subject: str,
        predicate: str,
        obj: str,
        cites: list[int],
        vf: datetime | None = None,
        vt: datetime | None = None,
        **spelled: str,
    ) -> dict[str, Any]:
        j = len(self.moments)
        eps = [self.episodes[i] for i in cites]
        told = max(s for _, s in eps)  # when it was last said
        start = vf or min(s for _, s in eps)  # undated: true since it was first said
        item = {
            "subject": subject,
            "predicate": predicate,
            "object": obj,
            "source": "user",
            "episodes": [{"episodeId": e, "weight": 0.6} for e, _ in eps],
            "validFrom": iso(vf),
            "validTo": iso(vt),
            **spelled,
        }
        self.log.append(
            f"op{j}: {subject} {predicate} {obj} validFrom={iso(vf)} "
            f"validTo={iso(vt)} citing ep{cites}"
        )
        r: dict[str, Any] = self.c.execute(ASSERT, {"f": [item]})["assertFacts"]["results"][0]
        self._mirror(
            r,
            j,
            V(
                "",
                j,
                subject,
                predicate,
                obj,
                start,
                vf is not None,
                vt,
                0,
                links={e: (j, s) for e, s in eps},
            ),
            told,
        )
        self._note()
        return r

    def tell_batch(self, items: list[tuple[str, str, str, int]]) -> list[dict[str, Any]]:
        """Several undated (subject, predicate, object, episode) claims in one assertFacts."""
        j = len(self.moments)
        facts = [
            {
                "subject": su,
                "predicate": p,
                "object": o,
                "source": "user",
                "episodes": [{"episodeId": self.episodes[e][0], "weight": 0.6}],
            }
            for su, p, o, e in items
        ]
        self.log.append(f"op{j}: one batch of {items}")
        rs: list[dict[str, Any]] = self.c.execute(ASSERT, {"f": facts})["assertFacts"]["results"]
        for r, (su, p, o, e) in zip(rs, items, strict=True):
            ep, start = self.episodes[e]
            self._mirror(
                r, j, V("", j, su, p, o, start, False, None, 0, links={ep: (j, start)}), start
            )
        self._note()
        return rs

    def _mirror(self, r: dict[str, Any], j: int, n: V, told: datetime) -> None:
        m = self.model
        if n.vt is not None and n.vt <= n.vf:
            if r["ok"] or r["error"]["code"] != "VALIDATION":
                self.problems.append(f"WRITE op{j}: validTo <= validFrom accepted: {r}")
            return
        same, prior = m.place(n, told, n.stated or n.vt is not None, j)
        want = (
            ("corroborated", same.id, None)
            if same
            else ("superseded" if prior else "created", None, prior.id if prior else None)
        )
        got = (r["action"], r["factId"] if r["action"] == "corroborated" else None, r["supersedes"])
        if not r["ok"] or got != want:
            self.problems.append(f"WRITE op{j}: model {want} API {got} {r.get('error')}")
        if not r["ok"]:
            return
        # From here the model follows what the API did, so read checks judge the reads alone.
        if r["action"] == "corroborated":
            v = next(v for v in m.versions if v.id == r["factId"])
            for e, link in n.links.items():
                v.links.setdefault(e, link)
            return
        if r["supersedes"]:
            next(v for v in m.versions if v.id == r["supersedes"]).sup_op = j
        n.id, n.version = r["factId"], r["version"]
        m.versions.append(n)

    def retract(self, v: V) -> None:
        self.log.append(f"op{len(self.moments)}: retract {v.obj} v{v.version}")
        self.c.execute(RETRACT, {"id": v.id})
        v.ret_op = len(self.moments)
        self._note()

    def version(self, obj: str, n: int = -1) -> V:
        return [v for v in self.model.versions if v.obj == obj][n]

    def objects(
        self,
        at: datetime | None = None,
        as_of: datetime | None = None,
        subject: str = "Alice",
        predicate: str = "lives_in",
    ) -> list[str]:
        q = """query($f: FactFilterInput!, $a: DateTime, $v: DateTime) {
          facts(filter: $f, asOf: $a, validAt: $v) { edges { node { object } } } }"""
        flt = {"scopes": [SCOPE], "subject": subject, "predicate": predicate}
        data = self.c.execute(q, {"f": flt, "a": iso(as_of), "v": iso(at)})
        return sorted(n["object"] for n in _nodes(data["facts"]))


def play(c: GraphMemoryClient, seed: int, n_ops: int | None = None) -> Story:
    rng = random.Random(seed)
    story = Story(c, ["Alice", "Bob"][: rng.choice([1, 1, 2])])
    for j in range(n_ops or rng.randint(6, 12)):
        m = story.model
        open_ = [v for v in m.versions if v.ret_op is None]
        kind = (
            "episode"
            if j == 0
            else rng.choices(
                ["episode", "assert", "reassert", "retract"],
                [2, 5, 2 if m.versions else 0, 1 if open_ else 0],
            )[0]
        )
        if kind == "episode":
            story.episode(rng.choice(EP_STARTS))
        elif kind == "retract":
            story.retract(rng.choice(open_))
        else:
            n = len(story.episodes)
            cites = {n - 1 if rng.random() < 0.5 else rng.randrange(n)}
            if n > 1 and rng.random() < 0.2:
                cites.add(rng.randrange(n))
            if kind == "reassert":
                v = rng.choice(m.versions)
                subject, predicate, obj = v.subject, v.predicate, v.obj
                vf, vt = (v.vf, v.vt) if v.stated and rng.random() < 0.5 else (None, None)
            else:
                subject = rng.choice(story.subjects)
                predicate = "lives_in" if rng.random() < 0.7 else "likes"
                obj = rng.choice(OBJECTS[predicate])
                vf = rng.choice(VFROM) if rng.random() < 0.5 else None
                later = [t for t in VTO if t > (vf or d(2000))]
                vt = rng.choice(later) if later and rng.random() < 0.2 else None
            story.tell(subject, predicate, obj, sorted(cites), vf, vt)
    return story


# -- reading every path -------------------------------------------------------------------


def _nodes(conn: Any) -> list[dict[str, Any]]:
    return [e["node"] for e in conn["edges"]] if isinstance(conn, dict) else list(conn)


def _vars(ats: list[datetime | None]) -> dict[str, Any]:
    return {f"v{i}": iso(v) for i, v in enumerate(ats)}


def _facts_doc(paths: list[tuple[str, str]], n: int, *, with_as_of: bool = True) -> str:
    """One document: every (alias, facts filter) for each validAt $v0..$v{n-1}."""
    head = ", ".join([*(f"$v{i}: DateTime" for i in range(n)), "$asOf: DateTime"][: n + with_as_of])
    as_of = "asOf: $asOf, " if with_as_of else ""
    body = []
    for alias, flt in paths:
        for i in range(n):
            if alias.startswith("ent"):  # entity(name){facts}
                body.append(
                    f'{alias}_{i}: entity(name: "{flt}") {{ facts(scopes: ["{SCOPE}"], '
                    f"{as_of}validAt: $v{i}, first: 100) {{ ...F }} }}"
                )
            else:
                body.append(
                    f'{alias}_{i}: facts(filter: {{scopes: ["{SCOPE}"]{flt}}}, {as_of}'
                    f"validAt: $v{i}, first: 100) {{ edges {{ node {{ ...F }} }} }}"
                )
    return f"query({head}) {{\n" + "\n".join(body) + "\n}\n" + FIELDS


def _recall_doc(n: int) -> str:
    head = ", ".join([*(f"$v{i}: DateTime" for i in range(n)), "$asOf: DateTime"])
    body = [
        f'r_{i}: recall(query: "where does Alice live and what does she like", '
        f'scopes: ["{SCOPE}"], asOf: $asOf, validAt: $v{i}, k: 100, overRecall: 100, '
        "kinds: [FACT], minScore: 0, minConfidence: 0, minRelevance: 0, relativeRelevance: 0)"
        " { items { fact { ...F } } }"
        for i in range(n)
    ]
    return f"query({head}) {{\n" + "\n".join(body) + "\n}\n" + FIELDS


def _row(n: dict[str, Any]) -> tuple[Any, ...]:
    prov = tuple(sorted(p["episodeId"] for p in n["provenance"]))
    return (
        n["id"],
        n["status"],
        n["version"],
        n["validFrom"],
        n["validTo"],
        n["supersededAt"],
        n["supersededBy"],
        n["retractedAt"],
        prov,
    )


def _paths(subjects: list[str]) -> list[tuple[str, str, tuple[str | None, str | None]]]:
    """(alias, extra filter, which of the scope-wide rows it must return)."""
    out: list[tuple[str, str, tuple[str | None, str | None]]] = []
    for k, s in enumerate(subjects):
        out.append((f"sub{k}", f', subject: "{s}"', (s.lower(), None)))
        out.append((f"ent{k}", s, (s.lower(), None)))
        for q, p in enumerate(MANY):
            out.append((f"slot{k}{q}", f', subject: "{s}", predicate: "{p}"', (s.lower(), p)))
    return out + [(f"pred{q}", f', predicate: "{p}"', (None, p)) for q, p in enumerate(MANY)]


def _paged(c: GraphMemoryClient, as_of: datetime) -> set[str]:
    ids: set[str] = set()
    after = None
    for _ in range(50):
        page = c.execute(PAGE, {"asOf": iso(as_of), "after": after})["facts"]
        ids |= {n["id"] for n in _nodes(page)}
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    return ids


def check(story: Story) -> list[str]:
    """Every path, at every noted moment and boundary, against each other and the model."""
    c, m, out = story.c, story.model, list(story.problems)
    known = {v.id: v for v in m.versions}
    names = {v.id: f"{v.subject}.{v.obj}.v{v.version}@op{v.op}" for v in m.versions}

    def ids(rows: Any) -> list[str]:
        return sorted(names.get(r if isinstance(r, str) else r[0], "?") for r in rows)

    ats = story.valid_ats()
    paths = _paths(story.subjects)
    facts_q = _facts_doc([("scope", ""), *((a, f) for a, f, _ in paths)], len(ats))
    recall_q = _recall_doc(len(ats))
    hist_q = (
        "query($asOf: DateTime) {\n"
        + "\n".join(
            f'h{k}{q}: history(subject: "{s}", predicate: "{p}", scopes: ["{SCOPE}"], asOf: $asOf)'
            " { versions { ...F } }"
            for k, s in enumerate(story.subjects)
            for q, p in enumerate(MANY)
        )
        + "\n}\n"
        + FIELDS
    )
    for j, moment in enumerate(story.moments):
        var = _vars(ats) | {"asOf": iso(moment)}
        data, recalled = c.execute(facts_q, var), c.execute(recall_q, var)
        hist = c.execute(hist_q, {"asOf": iso(moment)})
        by_id = {r["id"]: _row(r) for h in hist.values() for r in h["versions"]}
        if set(by_id) != {v.id for v in m.versions if v.op <= j}:
            out.append(f"HISTORY asOf op{j}: {ids(by_id)} != model")
        out += [
            f"HISTORY asOf op{j}: {ids([v.id])} is {by_id[v.id][1]}, model {v.status(j)}"
            for v in m.versions
            if v.id in by_id and by_id[v.id][1] != v.status(j)
        ]
        if _paged(c, moment) != {_row(x)[0] for x in _nodes(data[f"scope_{len(ats) - 1}"])}:
            out.append(f"PAGES asOf op{j}: pages of one do not add up to the answer")
        for i, at in enumerate(ats):
            when, tag = at or datetime.now(UTC), f"asOf op{j} validAt {iso(at) or 'now'}"
            nodes = _nodes(data[f"scope_{i}"])
            scope = {_row(x) for x in nodes}
            served = {x["id"] for x in nodes}
            meta = {x["id"]: (x["subject"], x["predicate"]) for x in nodes}
            for alias, flt, (s, p) in paths:
                x = data[f"{alias}_{i}"]
                if alias.startswith("ent"):  # an entity nothing was said about yet: null
                    x = (x or {}).get("facts", [])
                got = {_row(n) for n in _nodes(x)}
                want = {
                    r for r in scope if s in (None, meta[r[0]][0]) and p in (None, meta[r[0]][1])
                }
                if got != want:
                    out.append(f"PATHS {tag}: {alias}{flt} {ids(got)} != scope {ids(want)}")
            rec = {_row(it["fact"]) for it in recalled[f"r_{i}"]["items"]}
            if rec != scope:
                out.append(f"RECALL {tag}: {ids(rec)} != facts {ids(scope)}")
            out += [
                f"HISTORY-ROW {tag}: facts {r} != history {by_id.get(r[0])}"
                for r in scope
                if by_id.get(r[0]) != r
            ]
            if m.in_force(j, when) != served:
                out.append(f"MODEL {tag}: model {ids(m.in_force(j, when))} != facts {ids(served)}")
            # One rule answers every read: a single-valued slot (a many-valued slot's object)
            # with a version believed and valid there answers with exactly one version.
            groups = [known[x].group() for x in served if x in known]
            out += [
                f"ONE-ANSWER {tag}: {'.'.join(g)} answered {groups.count(g)} times"
                for g in {v.group() for v in m.candidates(j, when)}
                if groups.count(g) != 1
            ]
            for r in scope:
                held = tuple(sorted(e for e, (op, _) in known[r[0]].links.items() if op <= j))
                if r[8] != held:
                    out.append(f"PROVENANCE {tag}: {ids([r])} {r[8]} != model {held}")
            live = story.live[j].get(iso(at) or "now")
            if live is not None and live != {(r[0], r[1]) for r in scope}:
                out.append(f"ASOF-REPLAY {tag}: live {ids(live)} != asOf {ids(scope)}")
    return out


def consistent(story: Story) -> None:
    problems = check(story)
    assert not problems, "\n".join([*story.log, "---", *problems[:20]])


# -- seeded random histories --------------------------------------------------------------


@pytest.mark.parametrize(
    "seed",
    [
        1,
        2,
        3,
        4,
        49,
        70,
        7,
        145,
    ],
)
def test_random_history_reads_agree_on_every_path_and_with_the_model(
    client: GraphMemoryClient, seed: int
) -> None:
    consistent(play(client, seed))


# -- hand-written histories ---------------------------------------------------------------


def alice(client: GraphMemoryClient) -> Story:
    return Story(client, ["Alice"])


@pytest.mark.parametrize("sessions", ["one session", "three sessions in order"])
def test_three_claims_about_where_alice_lives_still_give_one_answer(
    client: GraphMemoryClient, sessions: str
) -> None:
    s = alice(client)
    if sessions == "one session":
        e = s.episode(d(2025, 9))
        rome, paris, berlin = e, e, e
    else:
        rome, paris, berlin = s.episode(d(2024, 1)), s.episode(d(2025, 6)), s.episode(d(2025, 9))
    s.tell("Alice", "lives_in", "Rome", [rome], vf=d(2023))
    s.tell("Alice", "lives_in", "Paris", [paris])  # undated
    s.tell("Alice", "lives_in", "Berlin", [berlin], vf=d(2019))
    assert s.objects(d(2020, 6)) == ["Berlin"]
    # Three open-ended claims, none retracted: "where does Alice live?" has an answer.
    assert len(s.objects()) == 1, "facts/recall/entity answer nothing for now"
    assert len(s.objects(d(2025, 10))) == 1
    consistent(s)


def test_an_older_session_replayed_late_does_not_replace_an_answer_retold_since(
    client: GraphMemoryClient,
) -> None:
    s = alice(client)
    feb, mar, replay = s.episode(d(2024, 2)), s.episode(d(2025, 3)), s.episode(d(2024, 2, 15))
    s.tell("Alice", "lives_in", "Paris", [feb])
    s.tell("Alice", "lives_in", "Paris", [mar])  # corroborates: said again in March 2025
    # Said on 15 Feb 2024, before Paris was said again (README: "when something was said is
    # the latest start of the episodes it cites"); today the replay supersedes Paris.
    s.tell("Alice", "lives_in", "Rome", [replay])
    assert s.objects() == ["Paris"]
    consistent(s)


def test_retelling_an_answer_in_a_new_session_makes_it_current(client: GraphMemoryClient) -> None:
    s = alice(client)
    aug, feb, apr = s.episode(d(2024, 8)), s.episode(d(2024, 2)), s.episode(d(2026, 4))
    s.tell("Alice", "lives_in", "Berlin", [aug])
    s.tell("Alice", "lives_in", "Paris", [feb])  # an older session, replayed late
    assert s.objects() == ["Berlin"]
    before = s.moments[-1]
    s.tell("Alice", "lives_in", "Paris", [apr])  # corroborates the current Paris version
    assert s.objects(as_of=before) == ["Berlin"]
    assert s.objects() == ["Paris"], "said again in April 2026, after Berlin (August 2024)"
    consistent(s)


def test_validity_is_half_open_on_every_path(client: GraphMemoryClient) -> None:
    s = alice(client)
    e = s.episode(d(2025, 3))
    s.tell("Alice", "lives_in", "Paris", [e], vf=d(2021), vt=d(2024))
    s.tell("Alice", "lives_in", "Berlin", [e], vf=d(2024))
    assert [s.objects(t) for t in (d(2021) - US, d(2021), d(2024) - US, d(2024))] == [
        [],
        ["Paris"],
        ["Paris"],
        ["Berlin"],
    ]
    consistent(s)


def test_back_filled_history_stays_earlier_history_on_every_path(
    client: GraphMemoryClient,
) -> None:
    s = alice(client)
    s.tell("Alice", "lives_in", "Berlin", [s.episode(d(2024, 8))], vf=d(2023))
    s.tell("Alice", "lives_in", "Paris", [s.episode(d(2025, 3))], vf=d(2019))
    assert [s.objects(t) for t in (d(2019) - US, d(2021), d(2023) - US, d(2023), None)] == [
        [],
        ["Paris"],
        ["Paris"],
        ["Berlin"],
        ["Berlin"],
    ]
    consistent(s)


def test_an_undated_answer_yields_to_a_dated_one_said_later(client: GraphMemoryClient) -> None:
    s = alice(client)
    s.tell("Alice", "lives_in", "Paris", [s.episode(d(2025, 3))])
    told_paris = s.moments[-1]
    s.tell("Alice", "lives_in", "Berlin", [s.episode(d(2025, 9))], vf=d(2024))
    assert s.objects() == ["Berlin"]
    assert s.objects(d(2025, 4)) == ["Berlin"]  # Paris' start was only when it was heard
    assert s.objects(as_of=told_paris) == ["Paris"]
    consistent(s)


def test_a_march_session_replayed_after_september_keeps_september(
    client: GraphMemoryClient,
) -> None:
    s = alice(client)
    sep, mar = s.episode(d(2025, 9)), s.episode(d(2025, 3))
    s.tell("Alice", "lives_in", "Berlin", [sep])
    s.tell("Alice", "lives_in", "Paris", [mar])
    assert s.objects() == ["Berlin"]
    assert s.objects(d(2025, 4)) == ["Paris"]  # what March said, until September
    consistent(s)


def test_retracting_the_current_version_brings_back_the_one_before(
    client: GraphMemoryClient,
) -> None:
    s = alice(client)
    e = s.episode(d(2025, 3))
    s.tell("Alice", "lives_in", "Paris", [e], vf=d(2020))
    s.tell("Alice", "lives_in", "Berlin", [e], vf=d(2024))
    believed_berlin = s.moments[-1]
    s.retract(s.version("Berlin"))
    assert s.objects() == ["Paris"]
    assert s.objects(as_of=believed_berlin) == ["Berlin"]
    consistent(s)


def test_many_valued_objects_accumulate_each_answered_once(client: GraphMemoryClient) -> None:
    s = alice(client)
    e1, e2 = s.episode(d(2024, 8)), s.episode(d(2025, 3))
    s.tell("Alice", "likes", "tea", [e1])
    s.tell("Alice", "likes", "jazz", [e1])
    assert s.tell("Alice", "likes", "tea", [e2])["action"] == "corroborated"
    s.tell("Alice", "likes", "tea", [e2], vf=d(2019))  # a new version of the same object
    assert s.objects(predicate="likes") == ["jazz", "tea"]
    assert s.objects(d(2020), predicate="likes") == ["tea"]
    consistent(s)


def test_evidence_shows_only_from_when_it_was_linked(client: GraphMemoryClient) -> None:
    s = alice(client)
    e1, e2 = s.episode(d(2024, 8)), s.episode(d(2025, 3))
    s.tell("Alice", "lives_in", "Paris", [e1])
    s.tell("Alice", "lives_in", "Paris", [e2])
    assert len(s.model.versions) == 1
    consistent(s)  # PROVENANCE: one episode as of before the second telling, two after


def test_before_the_first_fact_every_path_is_empty(client: GraphMemoryClient) -> None:
    s = alice(client)
    e = s.episode(d(2024, 8))
    s.tell("Alice", "lives_in", "Paris", [e], vf=d(2019))
    assert s.objects(d(2020), as_of=s.moments[0]) == []
    assert s.objects(d(2020)) == ["Paris"]
    consistent(s)


def test_a_valid_to_not_after_the_defaulted_start_is_refused(client: GraphMemoryClient) -> None:
    s = alice(client)
    e = s.episode(d(2025, 3))
    r = s.tell("Alice", "lives_in", "Paris", [e], vt=d(2025, 3))  # ends where it would start
    assert (r["ok"], r["error"]["code"], r["error"]["field"]) == (False, "VALIDATION", "validTo")
    assert s.objects(d(2025, 2)) == [] and s.model.versions == []
    consistent(s)


def test_times_spelled_with_offsets_are_the_same_instants(client: GraphMemoryClient) -> None:
    s = alice(client)
    e = s.episode(d(2025, 3), spelled="2025-03-01T02:00:00+02:00")
    s.tell(
        "Alice",
        "lives_in",
        "Paris",
        [e],
        vf=d(2024),
        vt=d(2026),
        validFrom="2024-01-01T01:00:00+01:00",
        validTo="2025-12-31T19:00:00-05:00",
    )
    s.tell("Alice", "lives_in", "Berlin", [e])  # undated: from the episode's start
    assert [s.objects(t) for t in (d(2024) - US, d(2024), d(2025, 3) - US, d(2025, 3))] == [
        [],
        ["Paris"],
        ["Paris"],
        ["Berlin"],
    ]
    consistent(s)


def test_a_batch_said_in_one_session_ends_on_its_last_claim(client: GraphMemoryClient) -> None:
    s = alice(client)
    e = s.episode(d(2025, 3))
    rs = s.tell_batch([("Alice", "lives_in", "Paris", e), ("Alice", "lives_in", "Berlin", e)])
    assert [r["ok"] for r in rs] == [True, True]
    assert s.objects() == ["Berlin"]
    consistent(s)
