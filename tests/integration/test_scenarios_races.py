"""Held-out-style race scenarios: several agents hit the same memory at the same moment.

A production memory service is called by many agents at once. Each story fires its calls with
``asyncio.gather`` through the async client (the server is a real uvicorn over a real Neo4j)
and then asserts invariants that must hold whatever order the server picked: one current
version, a linear SUPERSEDES chain, no lost evidence, one final review state, no surviving
trace of a forgotten contributor, tenants that never see each other. Races are repeated a few
rounds so a lost update has a chance to show; nothing here depends on timing.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError
from tests.integration.conftest import ClientFactory, episode, fact

ROUNDS = 3
USER_CAP = 0.95  # a user-tier fact's confidence never exceeds this (TIER_CAP)
TEAM = "team:core"

Q_HIST = """query($s: String!, $p: String!, $scopes: [String!]!, $asOf: DateTime) {
  history(subject: $s, predicate: $p, scopes: $scopes, asOf: $asOf) {
    versions { id object text status version confidence recordedAt supersededAt supersededBy
               retractedAt supersedes { id version }
               provenance { episodeId sessionId userId weight } } } }"""
Q_IN_FORCE = """query($f: FactFilterInput!, $asOf: DateTime) {
  facts(filter: $f, asOf: $asOf, first: 200) {
    nodes { id subject predicate object text status version confidence
            provenance { episodeId userId weight } } } }"""
Q_RETRIEVALS = "query($id: ID!) { fact(id: $id) { id retrievalCount lastRetrievedAt } }"
Q_PREDICATES = "{ predicates { name cardinality } }"
Q_ENTITY = """query($n: String!, $scopes: [String!]!) {
  entity(name: $n) { facts(scopes: $scopes) { id object } } }"""

Agents = Callable[..., Awaitable[list[AsyncGraphMemoryClient]]]


def _dt(s: str) -> datetime:
    return datetime.fromisoformat(s)


def _uid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


@pytest.fixture
async def agents() -> AsyncIterator[Agents]:
    """Async twins of sync clients (same API key): each is one concurrent caller."""
    made: list[AsyncGraphMemoryClient] = []

    async def twin(*clients: GraphMemoryClient) -> list[AsyncGraphMemoryClient]:
        out = []
        for c in clients:
            key = c._http.headers["Authorization"].split(" ", 1)[1]
            out.append(AsyncGraphMemoryClient(c.url, key))
        made.extend(out)
        return out

    yield twin
    for a in made:
        await a.aclose()


@pytest.fixture
def other_agent(make_client: ClientFactory, tenant: str) -> GraphMemoryClient:
    """A second agent key of the test's tenant (made before the test's event loop runs)."""
    return make_client(tenant, "agent")


@pytest.fixture
def two_tenants(
    make_client: ClientFactory,
) -> list[tuple[str, GraphMemoryClient, GraphMemoryClient]]:
    """Two fresh tenants, each with (tenant id, agent, analyst)."""
    out = []
    for _ in range(2):
        t = _uid("t")
        out.append((t, make_client(t, "agent"), make_client(t, "analyst")))
    return out


def _eps(c: GraphMemoryClient, user: str, n: int, **kw: Any) -> list[str]:
    """n episodes of ``user`` in distinct sessions, all begun at the same instant (so no write
    is a back-fill of another: the later recorded claim always wins its slot)."""
    sid = uuid.uuid4().hex[:6]
    out = c.record_episodes([episode(user, f"s-{sid}-{i}", **kw) for i in range(n)])
    assert all(r["ok"] for r in out), out
    return [str(r["id"]) for r in out]


def _hist(c: GraphMemoryClient, s: str, p: str, scopes: list[str], as_of: str | None = None) -> Any:
    return c.execute(Q_HIST, {"s": s, "p": p, "scopes": scopes, "asOf": as_of})["history"][
        "versions"
    ]


def _in_force(c: GraphMemoryClient, scopes: list[str], as_of: str | None = None, **flt: Any) -> Any:
    return c.execute(Q_IN_FORCE, {"f": {"scopes": scopes, **flt}, "asOf": as_of})["facts"]["nodes"]


def _audit(c: GraphMemoryClient, **flt: Any) -> list[dict[str, Any]]:
    """Every audit event matching the filter (all pages)."""
    out: list[dict[str, Any]] = []
    after: str | None = None
    while True:
        page = c.audit_log(first=200, after=after, **flt)
        out += [e["node"] for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return out
        after = page["pageInfo"]["endCursor"]


def _actions(c: GraphMemoryClient, target: str) -> Counter[str]:
    return Counter(e["action"] for e in _audit(c, target=target))


def _noisy_or(weights: list[float], cap: float = USER_CAP) -> float:
    return min(cap, 1.0 - math.prod(1.0 - w for w in weights))


def _outcomes(results: list[Any]) -> tuple[list[dict[str, Any]], list[GraphMemoryClientError]]:
    ok = [r for r in results if not isinstance(r, BaseException)]
    errs = [r for r in results if isinstance(r, BaseException)]
    unexpected = [e for e in errs if not isinstance(e, GraphMemoryClientError)]
    assert not unexpected, unexpected
    return ok, [e for e in errs if isinstance(e, GraphMemoryClientError)]


def _assert_linear_chain(versions: list[dict[str, Any]]) -> None:
    """One current version; versions 1..n; each supersedes exactly its predecessor; belief
    intervals tile the time line in version order."""
    assert versions, "no version at all"
    by_v = sorted(versions, key=lambda v: v["version"])
    assert [v["version"] for v in by_v] == list(range(1, len(by_v) + 1)), "version gap/dup"
    current = [v for v in by_v if v["supersededAt"] is None]
    assert [v["id"] for v in current] == [by_v[-1]["id"]], "not exactly one current version"
    assert by_v[-1]["status"] == "ACTIVE"
    assert by_v[0]["supersedes"] is None
    for older, newer in itertools.pairwise(by_v):
        assert older["status"] == "SUPERSEDED", older
        assert older["supersededBy"] == newer["id"], "chain is not linear"
        assert newer["supersedes"] is not None and newer["supersedes"]["id"] == older["id"]
        assert _dt(older["recordedAt"]) < _dt(newer["recordedAt"]), "recordedAt out of order"
        # The old belief ends exactly when the new one begins: no gap, no overlap.
        assert _dt(older["supersededAt"]) == _dt(newer["recordedAt"])


# -- supersession races -------------------------------------------------------------------------
async def test_many_agents_moving_one_user_leave_one_linear_chain(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Six agents each learn a different city for alice at the same moment, three times over:
    no write is lost, exactly one city is current, and history is one linear chain."""
    n = 6
    eps = _eps(client, "alice", n)
    client.assert_facts([fact("alice", "lives_in", "Lyon", [eps[0]], cardinality="ONE")])
    runners = await agents(*([client] * n))
    asserted = {"Lyon"}
    for r in range(ROUNDS):
        cities = [f"City {r}-{i}" for i in range(n)]
        asserted |= set(cities)
        outs = await asyncio.gather(
            *(
                a.assert_facts([fact("alice", "lives_in", c, [e])])
                for a, c, e in zip(runners, cities, eps, strict=True)
            )
        )
        for out in outs:
            (res,) = out["results"]
            assert res["ok"] and res["action"] == "superseded", res
    versions = _hist(client, "alice", "lives_in", ["user:alice"])
    assert len(versions) == 1 + ROUNDS * n, "a concurrent write was lost or doubled"
    assert {v["object"] for v in versions} == asserted
    _assert_linear_chain(versions)
    newest = max(versions, key=lambda v: v["version"])
    assert [f["object"] for f in _in_force(client, ["user:alice"], predicate="lives_in")] == [
        newest["object"]
    ]
    # Every version answers "what did we believe then" alone, at the instant it was recorded.
    for v in versions:
        held = _in_force(client, ["user:alice"], v["recordedAt"], predicate="lives_in")
        assert [f["id"] for f in held] == [v["id"]], (v["version"], held)


async def test_racing_same_and_different_objects_never_chain_a_value_to_itself(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Two agents say Paris while one says Berlin, all at once: a repeat of the current object
    corroborates instead of writing a new version, so neighbours in the chain always differ."""
    for r in range(ROUNDS):
        subj = f"pal{r}"
        eps = _eps(client, "alice", 3)
        a, b, c = await agents(client, client, client)
        outs = await asyncio.gather(
            a.assert_facts([fact(subj, "lives_in", "Paris", [eps[0]], cardinality="ONE")]),
            b.assert_facts([fact(subj, "lives_in", "Berlin", [eps[1]], cardinality="ONE")]),
            c.assert_facts([fact(subj, "lives_in", "Paris", [eps[2]], cardinality="ONE")]),
        )
        assert all(o["results"][0]["ok"] for o in outs), outs
        versions = sorted(
            _hist(client, subj, "lives_in", ["user:alice"]), key=lambda v: v["version"]
        )
        _assert_linear_chain(versions)
        objs = [v["object"] for v in versions]
        assert all(x != y for x, y in itertools.pairwise(objs)), objs
        assert 2 <= len(versions) <= 3
        evidence = sum(len(v["provenance"]) for v in versions)
        assert evidence == 3, "an agent's evidence was dropped"


# -- corroboration races -------------------------------------------------------------------------
WEIGHTS = [0.3, 0.45, 0.5, 0.2, 0.35]


async def test_concurrent_first_tellings_make_one_version_with_all_the_evidence(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Five sessions state the same new fact at once: the slot gets one version (not five),
    created once and corroborated four times; confidence is the noisy-OR of all five."""
    for r in range(ROUNDS):
        eps = _eps(client, "alice", len(WEIGHTS))
        pred = f"drinks_{r}"
        runners = await agents(*([client] * len(WEIGHTS)))
        outs = await asyncio.gather(
            *(
                a.assert_facts(
                    [
                        {
                            **fact("alice", pred, "green tea", [], cardinality="ONE"),
                            "episodes": [{"episodeId": e, "weight": w}],
                        }
                    ]
                )
                for a, e, w in zip(runners, eps, WEIGHTS, strict=True)
            )
        )
        res = [o["results"][0] for o in outs]
        assert all(x["ok"] for x in res), res
        assert sorted(x["action"] for x in res) == ["corroborated"] * 4 + ["created"]
        assert len({x["factId"] for x in res}) == 1
        (v,) = _hist(client, "alice", pred, ["user:alice"])
        assert sorted(p["episodeId"] for p in v["provenance"]) == sorted(eps)
        assert v["confidence"] == pytest.approx(_noisy_or(WEIGHTS), abs=1e-6)


async def test_concurrent_corroborations_of_a_known_fact_lose_no_evidence(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """A fact already held gets re-told by five sessions at once: every telling lands as
    evidence and the confidence is recomputed from all of it (no lost update)."""
    base = _eps(client, "alice", 1)
    created = client.assert_facts(
        [
            {
                **fact("alice", "employer", "ACME", [], cardinality="ONE"),
                "episodes": [{"episodeId": base[0], "weight": 0.25}],
            }
        ]
    )["results"][0]
    for r in range(ROUNDS):
        eps = _eps(client, "alice", len(WEIGHTS))
        runners = await agents(*([client] * len(WEIGHTS)))
        outs = await asyncio.gather(
            *(
                a.assert_facts(
                    [
                        {
                            **fact("alice", "employer", "ACME", []),
                            "episodes": [{"episodeId": e, "weight": w}],
                        }
                    ]
                )
                for a, e, w in zip(runners, eps, WEIGHTS, strict=True)
            )
        )
        assert all(o["results"][0]["action"] == "corroborated" for o in outs), outs
        (v,) = _hist(client, "alice", "employer", ["user:alice"])
        assert v["id"] == created["factId"] and v["version"] == 1
        assert len(v["provenance"]) == 1 + (r + 1) * len(WEIGHTS)
        expected = _noisy_or([0.25] + WEIGHTS * (r + 1))
        assert v["confidence"] == pytest.approx(expected, abs=1e-6), r
    assert _actions(analyst, created["factId"])["corroborated"] == ROUNDS * len(WEIGHTS)


async def test_inferred_fact_corroborated_by_three_sessions_at_once_is_promoted_once(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """Three conversations infer the same thing simultaneously: one version, active (the
    threshold is distinct sessions, however they arrive), promoted by exactly one audit event."""
    for r in range(ROUNDS):
        eps = _eps(client, "alice", 3)
        pred = f"diet_{r}"
        runners = await agents(client, client, client)
        outs = await asyncio.gather(
            *(
                a.assert_facts(
                    [
                        fact(
                            "alice",
                            pred,
                            "vegetarian",
                            [e],
                            source="conversation",
                            cardinality="ONE",
                        )
                    ]
                )
                for a, e in zip(runners, eps, strict=True)
            )
        )
        ids = {o["results"][0]["factId"] for o in outs}
        assert len(ids) == 1, outs
        (v,) = _hist(client, "alice", pred, ["user:alice"])
        assert v["status"] == "ACTIVE"
        assert v["confidence"] == pytest.approx(_noisy_or([0.8] * 3, cap=0.8), abs=1e-6)
        assert _actions(analyst, v["id"])["promote"] == 1


# -- idempotency races ---------------------------------------------------------------------------
async def test_same_idempotency_key_replayed_concurrently_writes_once(
    client: GraphMemoryClient,
    other_agent: GraphMemoryClient,
    analyst: GraphMemoryClient,
    agents: Agents,
) -> None:
    """A flaky network makes an agent (and its retrying sidecar, with another key of the same
    tenant) send one keyed batch six times at once: one write, six identical answers, one
    audit trail."""
    other = other_agent
    for r in range(ROUNDS):
        eps = _eps(client, "alice", 2)
        batch = [
            fact("alice", "lives_in", f"Town {r}", [eps[0]], cardinality="ONE"),
            fact("alice", f"hobby_{r}", "chess", [eps[1]], cardinality="MANY"),
            fact("alice", "lives_in", "Nowhere", ["ep_missing"]),
        ]
        runners = await agents(client, client, client, other, other, other)
        key = _uid("retry")
        outs = await asyncio.gather(*(a.assert_facts(batch, key) for a in runners))
        assert all(o == outs[0] for o in outs), [o["results"][0] for o in outs]
        assert [x["ok"] for x in outs[0]["results"]] == [True, True, False]
        assert outs[0]["results"][2]["error"]["code"] == "NOT_FOUND"
        town = _hist(client, "alice", "lives_in", ["user:alice"])
        assert sum(v["object"] == f"Town {r}" for v in town) == 1
        assert len(_hist(client, "alice", f"hobby_{r}", ["user:alice"])) == 1
        for res in outs[0]["results"][:2]:
            acts = _actions(analyst, res["factId"])
            assert sum(acts[a] for a in ("created", "superseded", "corroborated")) == 1, acts


async def test_one_key_two_different_batches_at_once_one_wins_the_other_conflicts(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Two agents wrongly share an idempotency key for different batches, sent at once:
    exactly one batch is written and every caller of the other gets CONFLICT."""
    for r in range(ROUNDS):
        eps = _eps(client, "alice", 1)
        key = _uid("shared")
        a_batch = [fact("alice", f"pet_{r}", "cat", eps, cardinality="ONE")]
        b_batch = [fact("alice", f"pet_{r}", "dog", eps, cardinality="ONE")]
        runners = await agents(client, client, client, client)
        results = await asyncio.gather(
            runners[0].assert_facts(a_batch, key),
            runners[1].assert_facts(b_batch, key),
            runners[2].assert_facts(a_batch, key),
            runners[3].assert_facts(b_batch, key),
            return_exceptions=True,
        )
        ok, errs = _outcomes(list(results))
        assert {e.code for e in errs} == {"CONFLICT"} and len(errs) == 2, results
        assert len(ok) == 2 and ok[0] == ok[1]
        (v,) = _hist(client, "alice", f"pet_{r}", ["user:alice"])
        assert v["id"] == ok[0]["results"][0]["factId"]


async def test_same_key_in_two_tenants_at_once_writes_in_both(
    two_tenants: list[tuple[str, GraphMemoryClient, GraphMemoryClient]], agents: Agents
) -> None:
    """Idempotency keys belong to a tenant: two customers that happen to pick the same key at
    the same moment each get their own write."""
    tenants = [t for t, _, _ in two_tenants]
    clients = [c for _, c, _ in two_tenants]
    eps = [_eps(c, "alice", 1) for c in clients]
    runners = await agents(*clients)
    outs = await asyncio.gather(
        *(
            a.assert_facts(
                [fact("alice", "lives_in", f"City of {t}", e, cardinality="ONE")],
                "nightly-import-1",
            )
            for a, t, e in zip(runners, tenants, eps, strict=True)
        )
    )
    assert outs[0]["results"][0]["factId"] != outs[1]["results"][0]["factId"]
    for c, t in zip(clients, tenants, strict=True):
        assert [v["object"] for v in _hist(c, "alice", "lives_in", ["user:alice"])] == [
            f"City of {t}"
        ]


# -- forgetting races ----------------------------------------------------------------------------
def _everything_visible(
    c: GraphMemoryClient, analyst: GraphMemoryClient, as_ofs: list[str | None], query: str
) -> dict[str, str]:
    """All a reader can get at, as JSON text by where it came from: in-force facts at several
    asOf, recall, and each audit event."""
    parts: dict[str, Any] = {}
    for at in as_ofs:
        parts[f"facts asOf {at}"] = _in_force(
            c, [TEAM], at, includeCandidates=True, includeExpired=True
        )
    parts["recall"] = c.recall(
        query,
        [TEAM],
        min_score=0.0,
        min_relevance=0.0,
        k=20,
        include_candidates=True,
        include_expired=True,
    )
    for e in _audit(analyst):
        parts[f"audit {e['action']} {e['targetType']} {e['targetId']}"] = e
    return {k: json.dumps(v) for k, v in parts.items()}


async def test_forget_racing_an_assert_that_cites_the_user_leaves_no_trace(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    agents: Agents,
) -> None:
    """An admin forgets a user while an agent is writing facts drawn from that user's
    sessions. Whichever lands first, afterwards nothing cites the user's episodes and none
    of their words survive; an assert that lost the race fails per item with NOT_FOUND (the
    episode is gone) or CONTRIBUTOR_FORGOTTEN (its contributor is forgotten, purge running)."""
    bob = _eps(client, "bob", 1, scope=TEAM)
    shared = client.assert_facts(
        [
            {
                **fact("core team", "chat_tool", "Slack", [], scope=TEAM, cardinality="ONE"),
                "episodes": [{"episodeId": bob[0], "weight": 0.6}],
            }
        ]
    )["results"][0]
    for r in range(ROUNDS):
        user, secret = f"carol{r}", f"Quixotl{r}{uuid.uuid4().hex[:4]}"
        mine = _eps(
            client,
            user,
            2,
            scope=TEAM,
            summary=f"{user} confided her codename {secret} to the support agent.",
        )
        before = datetime.now(UTC).isoformat()
        a_agent, a_admin = await agents(client, admin)
        batch = [
            fact(
                user,
                "codename",
                secret,
                [mine[0]],
                scope=TEAM,
                cardinality="ONE",
                text=f"{user} goes by the codename {secret}",
            ),
            {
                **fact("core team", "chat_tool", "Slack", [], scope=TEAM),
                "episodes": [{"episodeId": mine[1], "weight": 0.5}],
            },
            fact(
                "core team",
                f"motto_{r}",
                "ship it",
                [mine[0], bob[0]],
                scope=TEAM,
                cardinality="ONE",
                text=f"{secret} says the core team motto is ship it",
            ),
            fact("bob", f"likes_{r}", "tea", bob, scope=TEAM, cardinality="MANY"),
        ]
        wrote, forgot = await asyncio.gather(
            a_agent.assert_facts(batch), a_admin.forget_contributor(user)
        )
        res = wrote["results"]
        assert res[3]["ok"], res[3]
        for x in res[:3]:
            assert x["ok"] or x["error"]["code"] in ("NOT_FOUND", "CONTRIBUTOR_FORGOTTEN"), x
        assert forgot["episodesDeleted"] == 2
        # Nothing of the user's: no version of their codename at any belief time.
        assert _hist(client, user, "codename", [TEAM]) == []
        assert _hist(client, user, "codename", [TEAM], before) == []
        chat = _hist(client, "core team", "chat_tool", [TEAM])
        assert [v["id"] for v in chat] == [shared["factId"]]
        assert {p["episodeId"] for p in chat[0]["provenance"]} == {bob[0]}
        assert chat[0]["confidence"] == pytest.approx(0.6, abs=1e-6)
        for v in _hist(client, "core team", f"motto_{r}", [TEAM]):
            assert {p["episodeId"] for p in v["provenance"]} == {bob[0]}, v
            assert secret not in v["text"], v
        seen = _everything_visible(client, analyst, [None, before], f"codename {secret}")
        assert [k for k, v in seen.items() if secret in v] == [], f"round {r}: words survived"
        # Redacted audit events keep their target id by design (who/when/what, no content).
        cites = [(k, v) for k, v in seen.items() for e in mine if e in v and "audit" not in k]
        assert cites == [], f"round {r}: a deleted episode is still named"


async def test_forget_racing_a_corroboration_recomputes_from_what_remains(
    client: GraphMemoryClient, admin: GraphMemoryClient, agents: Agents
) -> None:
    """The user being forgotten is, at that very moment, corroborating a fact two others
    support: afterwards the fact stands on the others' evidence alone."""
    others = _eps(client, "dan", 1, scope=TEAM) + _eps(client, "erin", 1, scope=TEAM)
    made = client.assert_facts(
        [
            {
                **fact("core team", "standup", "9am", [], scope=TEAM, cardinality="ONE"),
                "episodes": [
                    {"episodeId": others[0], "weight": 0.4},
                    {"episodeId": others[1], "weight": 0.3},
                ],
            }
        ]
    )["results"][0]
    for r in range(ROUNDS):
        user = f"frank{r}"
        mine = _eps(client, user, 3, scope=TEAM)
        a_agents = await agents(client, client, client)
        (a_admin,) = await agents(admin)
        results = await asyncio.gather(
            *(
                a.assert_facts(
                    [
                        {
                            **fact("core team", "standup", "9am", [], scope=TEAM),
                            "episodes": [{"episodeId": e, "weight": 0.9}],
                        }
                    ]
                )
                for a, e in zip(a_agents, mine, strict=True)
            ),
            a_admin.forget_contributor(user),
        )
        for out in results[:3]:
            x = out["results"][0]
            assert x["ok"] or x["error"]["code"] in ("NOT_FOUND", "CONTRIBUTOR_FORGOTTEN"), x
        (v,) = _hist(client, "core team", "standup", [TEAM])
        assert v["id"] == made["factId"]
        assert sorted(p["episodeId"] for p in v["provenance"]) == sorted(others)
        assert v["confidence"] == pytest.approx(_noisy_or([0.4, 0.3]), abs=1e-6), r


# -- review races --------------------------------------------------------------------------------
def _candidate(client: GraphMemoryClient, subj: str, pred: str) -> str:
    eps = _eps(client, subj, 1, scope=TEAM)
    res = client.assert_facts(
        [fact(subj, pred, "maybe", eps, source="conversation", scope=TEAM, cardinality="ONE")]
    )["results"][0]
    assert res["status"] == "CANDIDATE", res
    return str(res["factId"])


async def test_approve_and_reject_racing_on_one_candidate_settle_once(
    client: GraphMemoryClient,
    analyst: GraphMemoryClient,
    admin: GraphMemoryClient,
    agents: Agents,
) -> None:
    """Two reviewers click approve and reject on the same candidate at once: one decision
    wins, the other gets CONFLICT, and the fact, the queue and the audit log all agree."""
    for r in range(ROUNDS + 1):
        fid = _candidate(client, "gina", f"team_{r}")
        a_an, a_ad = await agents(analyst, admin)
        pair = [a_an.approve_fact(fid), a_ad.reject_fact(fid, "not confirmed")]
        if r % 2:
            pair.reverse()
        results = await asyncio.gather(*pair, return_exceptions=True)
        ok, errs = _outcomes(list(results))
        assert len(ok) == 1 and [e.code for e in errs] == ["CONFLICT"], results
        final = client.fact(fid)
        assert final is not None and final["status"] == ok[0]["status"]
        assert final["status"] in ("ACTIVE", "REJECTED")
        acts = _actions(analyst, fid)
        decided = {"ACTIVE": "approve", "REJECTED": "reject"}[final["status"]]
        assert acts[decided] == 1 and acts["approve"] + acts["reject"] == 1, acts
        queued = [q["fact"]["id"] for q in analyst.review_queue([TEAM])]
        assert fid not in queued


async def test_double_approve_is_decided_once(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """A reviewer double-clicks approve: one approval, one CONFLICT, one audit event."""
    for r in range(ROUNDS):
        fid = _candidate(client, "hank", f"club_{r}")
        a1, a2, a3 = await agents(analyst, analyst, analyst)
        results = await asyncio.gather(
            a1.approve_fact(fid),
            a2.approve_fact(fid),
            a3.approve_fact(fid),
            return_exceptions=True,
        )
        ok, errs = _outcomes(list(results))
        assert len(ok) == 1 and [e.code for e in errs] == ["CONFLICT", "CONFLICT"], results
        assert _actions(analyst, fid)["approve"] == 1


async def test_approve_racing_the_promoting_corroboration_ends_active_and_consistent(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """The third session that would promote a candidate arrives as a reviewer approves it:
    it ends active, with its three sessions, either approved or promoted, never both."""
    for r in range(ROUNDS):
        eps = _eps(client, "ivy", 3, scope=TEAM)
        pred = f"editor_{r}"
        fid = client.assert_facts(
            [
                fact(
                    "ivy",
                    pred,
                    "vim",
                    eps[:2],
                    source="conversation",
                    scope=TEAM,
                    cardinality="ONE",
                )
            ]
        )["results"][0]["factId"]
        a_ag, a_an = await agents(client, analyst)
        results = await asyncio.gather(
            a_ag.assert_facts(
                [fact("ivy", pred, "vim", eps[2:], source="conversation", scope=TEAM)]
            ),
            a_an.approve_fact(fid),
            return_exceptions=True,
        )
        ok, errs = _outcomes(list(results))
        assert all(e.code == "CONFLICT" for e in errs), errs
        assert ok[0]["results"][0]["factId"] == fid
        (v,) = _hist(client, "ivy", pred, [TEAM])
        assert v["status"] == "ACTIVE" and len(v["provenance"]) == 3
        acts = _actions(analyst, fid)
        assert acts["approve"] + acts["promote"] == 1, acts
        assert acts["approve"] == (len(errs) == 0)


# -- retraction races ----------------------------------------------------------------------------
async def test_retract_racing_a_supersession_keeps_one_truth(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """One agent retracts alice's employer as another records her new one: whatever the
    order, the new employer is the only current answer and history tells a coherent story."""
    for r in range(ROUNDS + 1):
        eps = _eps(client, "alice", 2)
        pred = f"works_for_{r}"
        old = client.assert_facts([fact("alice", pred, "Initech", eps[:1], cardinality="ONE")])[
            "results"
        ][0]["factId"]
        before = datetime.now(UTC).isoformat()
        a1, a2 = await agents(client, client)
        pair: list[Awaitable[Any]] = [
            a1.retract_fact(old, "wrong employer"),
            a2.assert_facts([fact("alice", pred, "Globex", eps[1:])]),
        ]
        if r % 2:
            pair.reverse()
        await asyncio.gather(*pair)
        now_held = _in_force(client, ["user:alice"], predicate=pred)
        assert [f["object"] for f in now_held] == ["Globex"]
        assert [f["object"] for f in _in_force(client, ["user:alice"], before, predicate=pred)] == [
            "Initech"
        ]
        versions = {v["object"]: v for v in _hist(client, "alice", pred, ["user:alice"])}
        assert set(versions) == {"Initech", "Globex"}
        ini, glo = versions["Initech"], versions["Globex"]
        assert ini["retractedAt"] is not None and ini["status"] == "RETRACTED"
        assert glo["status"] == "ACTIVE" and glo["version"] == 2
        # Either Globex replaced Initech (then the link runs both ways) or it arrived after
        # the retraction (then nothing links them).
        if ini["supersededBy"] is not None:
            assert ini["supersededBy"] == glo["id"] and glo["supersedes"]["id"] == ini["id"]
        else:
            assert glo["supersedes"] is None
        assert _actions(analyst, old)["retract"] == 1


async def test_double_retract_is_recorded_once(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """Two agents retract the same fact at once: one succeeds, the other gets CONFLICT; one
    retraction in the audit log with the reason of the winner."""
    for r in range(ROUNDS):
        eps = _eps(client, "alice", 1)
        fid = client.assert_facts([fact("alice", f"nickname_{r}", "Al", eps, cardinality="ONE")])[
            "results"
        ][0]["factId"]
        a1, a2 = await agents(client, client)
        results = await asyncio.gather(
            a1.retract_fact(fid, "first"),
            a2.retract_fact(fid, "second"),
            return_exceptions=True,
        )
        ok, errs = _outcomes(list(results))
        assert len(ok) == 1 and [e.code for e in errs] == ["CONFLICT"], results
        events = [e for e in _audit(analyst, target=fid) if e["action"] == "retract"]
        assert len(events) == 1 and events[0]["reason"] == ok[0]["retractReason"]


# -- procedure races -----------------------------------------------------------------------------
async def test_concurrent_procedure_outcomes_are_all_counted(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """Six agents report how a procedure went at once (four successes, two failures): all six
    are counted, it is promoted, and exactly one promotion is audited."""
    for r in range(ROUNDS):
        proc = client.upsert_procedure(
            f"reset password {r}", "support", ["verify id", "reset"], TEAM
        )["procedure"]
        assert proc["status"] == "candidate"
        eps = _eps(client, "alice", 6, scope=TEAM)
        verdicts = [True, False, True, True, False, True]
        runners = await agents(*([client] * 6))
        await asyncio.gather(
            *(
                a.record_procedure_outcome(proc["id"], ok, e)
                for a, ok, e in zip(runners, verdicts, eps, strict=True)
            )
        )
        (now,) = client.procedures(f"reset password {r}", [TEAM], include_candidates=True)
        assert (now["successCount"], now["failureCount"]) == (4, 2), now
        assert now["status"] == "active"
        acts = _actions(analyst, proc["id"])
        assert acts["outcome"] == 6 and acts["promote"] == 1, acts
        seen = [
            json.loads(e["after"])
            for e in _audit(analyst, target=proc["id"])
            if e["action"] == "outcome"
        ]
        assert sorted(a["success_count"] + a["failure_count"] for a in seen) == [1, 2, 3, 4, 5, 6]


async def test_concurrent_failures_demote_a_procedure_once(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """Five failures reported at once against one success: demoted (failures outnumber
    successes by 3), counts exact, one demotion audited."""
    for r in range(ROUNDS):
        intent = f"close account {r}"
        proc = client.upsert_procedure(intent, "support", ["confirm", "close"], TEAM)["procedure"]
        eps = _eps(client, "alice", 6, scope=TEAM)
        client.record_procedure_outcome(proc["id"], True, eps[0])
        runners = await agents(*([client] * 5))
        await asyncio.gather(
            *(
                a.record_procedure_outcome(proc["id"], False, e)
                for a, e in zip(runners, eps[1:], strict=True)
            )
        )
        assert client.procedures(intent, [TEAM], include_candidates=True) == []
        acts = _actions(analyst, proc["id"])
        assert acts["outcome"] == 6 and acts["demote"] == 1, acts
        # Serialised outcomes: each failure saw all the ones before it (1, 2, ... 5 failures).
        seen = [
            json.loads(e["after"])
            for e in _audit(analyst, target=proc["id"])
            if e["action"] == "outcome"
        ]
        assert sorted(a["failure_count"] for a in seen if not a["success"]) == [1, 2, 3, 4, 5]


async def test_one_episode_reported_twice_at_once_counts_once(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Two agents report the same episode's outcome with opposite verdicts at once: one
    piece of evidence, whichever verdict won."""
    for r in range(ROUNDS):
        intent = f"refund order {r}"
        proc = client.upsert_procedure(intent, "support", ["check", "refund"], TEAM)["procedure"]
        (ep,) = _eps(client, "alice", 1, scope=TEAM)
        a1, a2 = await agents(client, client)
        await asyncio.gather(
            a1.record_procedure_outcome(proc["id"], True, ep),
            a2.record_procedure_outcome(proc["id"], False, ep),
        )
        (now,) = client.procedures(intent, [TEAM], include_candidates=True)
        assert now["successCount"] + now["failureCount"] == 1, now


# -- tenants ------------------------------------------------------------------------------------
async def test_two_tenants_writing_the_same_subject_at_once_stay_apart(
    two_tenants: list[tuple[str, GraphMemoryClient, GraphMemoryClient]], agents: Agents
) -> None:
    """Two customers' agents write about 'alice' at the same moment, three each per round:
    each tenant's history, entity, recall and audit log hold only its own data, and each
    tenant's versions are numbered on their own."""
    tenants = [t for t, _, _ in two_tenants]
    clients = [c for _, c, _ in two_tenants]
    analysts = [a for _, _, a in two_tenants]
    eps = [_eps(c, "alice", 3) for c in clients]
    runners = [await agents(c, c, c) for c in clients]
    for r in range(ROUNDS):
        await asyncio.gather(
            *(
                a.assert_facts(
                    [fact("alice", "lives_in", f"{t} city {r}-{i}", [e], cardinality="ONE")]
                )
                for t, rs, es in zip(tenants, runners, eps, strict=True)
                for i, (a, e) in enumerate(zip(rs, es, strict=True))
            )
        )
    for t, c, an in zip(tenants, clients, analysts, strict=True):
        versions = _hist(c, "alice", "lives_in", ["user:alice"])
        assert len(versions) == 3 * ROUNDS
        assert all(v["object"].startswith(f"{t} city") for v in versions)
        _assert_linear_chain(versions)
        ent = c.execute(Q_ENTITY, {"n": "alice", "scopes": ["user:alice"]})["entity"]
        assert [f["object"] for f in ent["facts"]] == [
            max(versions, key=lambda v: v["version"])["object"]
        ]
        got = c.recall(
            "where does alice live city", ["user:alice"], min_score=0.0, min_relevance=0.0, k=20
        )
        assert all(t in i["text"] for i in got["items"] if i["kind"] == "FACT"), got
        ids = {v["id"] for v in versions} | set(eps[tenants.index(t)])
        foreign = [
            e
            for e in _audit(an)
            if e["targetType"] in ("fact", "episode") and e["targetId"] not in ids
        ]
        assert not foreign, foreign[:3]


async def test_racing_predicate_registrations_register_one_cardinality(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Two agents introduce a new predicate at once, one as ONE and one as MANY: it is
    registered once; the loser's item gets CONFLICT on its cardinality, not a silent flip."""
    for r in range(ROUNDS):
        pred = f"speaks_{r}"
        (ep,) = _eps(client, "alice", 1)
        a1, a2 = await agents(client, client)
        outs = await asyncio.gather(
            a1.assert_facts([fact("alice", pred, "French", [ep], cardinality="ONE")]),
            a2.assert_facts([fact("alice", pred, "German", [ep], cardinality="MANY")]),
        )
        res = [o["results"][0] for o in outs]
        assert sorted(x["ok"] for x in res) == [False, True], res
        loser = next(x for x in res if not x["ok"])
        assert loser["error"]["code"] == "CONFLICT" and loser["error"]["field"] == "cardinality"
        registered = [p for p in client.execute(Q_PREDICATES)["predicates"] if p["name"] == pred]
        winner = "ONE" if res[0]["ok"] else "MANY"
        assert registered == [{"name": pred, "cardinality": winner}]


# -- retrieval bookkeeping -----------------------------------------------------------------------
async def test_concurrent_recalls_count_every_retrieval(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Eight agents recall the same memory at once: its retrieval count (which feeds decay
    and garbage collection) ends at exactly eight once bookkeeping has flushed."""
    (ep,) = _eps(client, "alice", 1)
    fid = client.assert_facts(
        [
            fact(
                "alice",
                "allergy",
                "peanuts",
                [ep],
                cardinality="MANY",
                text="alice is allergic to peanuts",
            )
        ]
    )["results"][0]["factId"]
    runners = await agents(*([client] * 8))
    outs = await asyncio.gather(
        *(a.recall("alice peanut allergy", ["user:alice"], kinds=["FACT"]) for a in runners)
    )
    assert all(fid in [i["id"] for i in o["items"]] for o in outs)
    count = 0
    for _ in range(30):  # bookkeeping flushes about once a second, off the hot path
        count = client.execute(Q_RETRIEVALS, {"id": fid})["fact"]["retrievalCount"]
        if count >= 8:
            break
        await asyncio.sleep(0.2)
    assert count == 8


# -- clocks under contention ---------------------------------------------------------------------
async def _later(delay: float, call: Awaitable[Any]) -> Any:
    await asyncio.sleep(delay)
    return await call


async def test_retraction_time_follows_commit_order_against_a_concurrent_writer(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Busy tenant: on each of eight facts, one agent retracts the fact while another
    replaces it, all at once. Belief time is the order the memory changed in: where the
    replacement landed first, the retraction cannot be dated before it (else 'what did we
    believe at T' shows a hole at a moment the API was in fact answering the old value)."""
    n = 8
    eps = _eps(client, "alice", 2)
    for r in range(ROUNDS):
        preds = [f"title_{r}_{i}" for i in range(n)]
        olds = [
            x["factId"]
            for x in client.assert_facts(
                [fact("alice", p, "engineer", eps[:1], cardinality="ONE") for p in preds]
            )["results"]
        ]
        runners = await agents(*([client] * (2 * n)))
        calls = [
            a.assert_facts([fact("alice", p, "manager", eps[1:])])
            for a, p in zip(runners[:n], preds, strict=True)
        ] + [
            _later(0.003 * i, a.retract_fact(old, "wrong title"))
            for i, (a, old) in enumerate(zip(runners[n:], olds, strict=True))
        ]
        await asyncio.gather(*calls)
        for p in preds:
            versions = {v["object"]: v for v in _hist(client, "alice", p, ["user:alice"])}
            eng, mgr = versions["engineer"], versions["manager"]
            if eng["supersededBy"] is not None:  # the replacement committed first
                assert _dt(eng["retractedAt"]) >= _dt(eng["supersededAt"]), (
                    f"{p}: retracted at {eng['retractedAt']}, before the supersession it "
                    f"followed at {eng['supersededAt']}"
                )
            else:
                assert _dt(mgr["recordedAt"]) >= _dt(eng["retractedAt"])


async def test_procedure_rewritten_by_several_agents_at_once_keeps_a_timeline(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Four agents rewrite the same procedure's steps at once: versions 1..n, each
    supersedes its predecessor, and createdAt/supersededAt follow version order, so 'which
    steps did we follow at T' answers each version at the moment it was written."""
    for r in range(ROUNDS):
        intent = f"onboard customer {r}"
        client.upsert_procedure(intent, "support", ["greet"], TEAM)
        runners = await agents(*([client] * 4))
        outs = await asyncio.gather(
            *(
                a.upsert_procedure(intent, "support", ["greet", f"variant {i}"] * (i + 1), TEAM)
                for i, a in enumerate(runners)
            )
        )
        assert sorted(o["action"] for o in outs) == ["new_version"] * 4
        procs = sorted([o["procedure"] for o in outs], key=lambda p: p["version"])
        assert [p["version"] for p in procs] == [2, 3, 4, 5]
        for older, newer in itertools.pairwise(procs):
            assert newer["supersedes"] == older["id"]
            assert _dt(newer["createdAt"]) >= _dt(older["createdAt"]), (
                f"v{newer['version']} created {newer['createdAt']} before "
                f"v{older['version']} ({older['createdAt']})"
            )
        for p in procs:
            held = client.procedures(intent, [TEAM], include_candidates=True, as_of=p["createdAt"])
            assert [h["id"] for h in held] == [p["id"]], (p["version"], held)


async def test_identical_procedure_upserts_at_once_write_one_version(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Five agents save the same steps for a new procedure at once: one version, created
    once, the others told 'unchanged'."""
    for r in range(ROUNDS):
        intent = f"escalate ticket {r}"
        runners = await agents(*([client] * 5))
        outs = await asyncio.gather(
            *(
                a.upsert_procedure(intent, "support", ["triage", "page oncall"], TEAM)
                for a in runners
            )
        )
        assert sorted(o["action"] for o in outs) == ["created"] + ["unchanged"] * 4
        assert len({o["procedure"]["id"] for o in outs}) == 1
        held = client.procedures(intent, [TEAM], include_candidates=True)
        assert [h["version"] for h in held] == [1]


# -- more races ----------------------------------------------------------------------------------
async def test_capacity_holds_when_many_agents_fill_one_user_at_once(
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
    analyst: GraphMemoryClient,
    agents: Agents,
) -> None:
    """With a per-user capacity of 5, four agents each store three memories for alice at
    once: five stay live, the other seven are evicted (retracted, one audit event each)."""
    admin.execute(
        "mutation($p: TenantPolicyInput) { configureTenant(policy: $p) { version } }",
        {"p": {"userCapacity": 5}},
    )
    eps = _eps(client, "alice", 4)
    runners = await agents(*([client] * 4))
    outs = await asyncio.gather(
        *(
            a.assert_facts(
                [
                    fact("alice", "likes", f"thing {i}-{k}", [e], cardinality="MANY")
                    for k in range(3)
                ]
            )
            for i, (a, e) in enumerate(zip(runners, eps, strict=True))
        )
    )
    ids = [x["factId"] for o in outs for x in o["results"]]
    assert len(ids) == 12
    live = _in_force(client, ["user:alice"], includeCandidates=True)
    assert len(live) == 5, [f["object"] for f in live]
    evicted = [e for e in _audit(analyst, action="evict") if e["targetId"] in ids]
    assert len(evicted) == 7
    assert {e["targetId"] for e in evicted}.isdisjoint({f["id"] for f in live})


async def test_double_forget_at_once_counts_each_deletion_once(
    client: GraphMemoryClient, admin: GraphMemoryClient, agents: Agents
) -> None:
    """Two admins forget the same user at once: both calls succeed (forgetting is
    idempotent), the user's three episodes are deleted once between them, not twice: the
    second call joins the first one's purge job (and reports its counts), or, when that job
    had already finished, finds nothing left."""
    for r in range(ROUNDS):
        user = f"hal{r}"
        eps = _eps(client, user, 3, scope=TEAM)
        client.assert_facts([fact(user, "city", "Rome", eps, scope=TEAM, cardinality="ONE")])
        a1, a2 = await agents(admin, admin)
        outs = await asyncio.gather(a1.forget_contributor(user), a2.forget_contributor(user))
        jobs = {o["jobId"]: o for o in outs}
        assert sum(o["episodesDeleted"] for o in jobs.values()) == 3, outs
        assert sum(o["factVersionsDeleted"] for o in jobs.values()) == 1, outs
        assert outs[0]["receipt"] == outs[1]["receipt"]
        assert _hist(client, user, "city", [TEAM]) == []


async def test_approve_racing_a_user_correction_leaves_the_correction_current(
    client: GraphMemoryClient, analyst: GraphMemoryClient, agents: Agents
) -> None:
    """A reviewer approves an inferred 'maybe' while the user states the real value: the
    user's statement is the one answer; the candidate never becomes a second current one."""
    for r in range(ROUNDS + 1):
        pred = f"team_lead_{r}"
        fid = _candidate(client, "jo", pred)
        (ep,) = _eps(client, "jo", 1, scope=TEAM)
        a_an, a_ag = await agents(analyst, client)
        pair: list[Awaitable[Any]] = [
            a_an.approve_fact(fid),
            a_ag.assert_facts([fact("jo", pred, "Kim", [ep], scope=TEAM)]),
        ]
        if r % 2:
            pair.reverse()
        results = await asyncio.gather(*pair, return_exceptions=True)
        _, errs = _outcomes(list(results))
        assert all(e.code == "CONFLICT" for e in errs), errs
        assert [f["object"] for f in _in_force(client, [TEAM], predicate=pred)] == ["Kim"]
        versions = _hist(client, "jo", pred, [TEAM])
        _assert_linear_chain(versions)
        acts = _actions(analyst, fid)
        assert acts["approve"] == (len(errs) == 0), acts


async def test_forget_racing_a_replacement_of_the_users_fact_excises_it_everywhere(
    client: GraphMemoryClient, admin: GraphMemoryClient, agents: Agents
) -> None:
    """Bob's agent replaces a fact only the forgotten user supported, at the moment she is
    forgotten: her version is gone from history at every belief time, bob's stands alone."""
    (bob,) = _eps(client, "bob", 1, scope=TEAM)
    for r in range(ROUNDS + 1):
        user, secret = f"kay{r}", f"Vermillion{r}{uuid.uuid4().hex[:4]}"
        pred = f"desk_{r}"
        mine = _eps(client, user, 1, scope=TEAM)
        client.assert_facts(
            [
                fact(
                    "core team",
                    pred,
                    secret,
                    mine,
                    scope=TEAM,
                    cardinality="ONE",
                    text=f"{user} says the desk is {secret}",
                )
            ]
        )
        before = datetime.now(UTC).isoformat()
        a_ag, a_ad = await agents(client, admin)
        pair: list[Awaitable[Any]] = [
            a_ag.assert_facts([fact("core team", pred, "B-12", [bob], scope=TEAM)]),
            a_ad.forget_contributor(user),
        ]
        if r % 2:
            pair.reverse()
        results = await asyncio.gather(*pair)
        wrote = results[0] if "results" in results[0] else results[1]
        assert wrote["results"][0]["ok"], wrote
        for at in (None, before):
            versions = _hist(client, "core team", pred, [TEAM], at)
            assert secret not in json.dumps(versions), (at, versions)
        (v,) = _hist(client, "core team", pred, [TEAM])
        assert v["object"] == "B-12" and v["status"] == "ACTIVE"
        assert v["supersedes"] is None, "still links to an excised version"
        assert _in_force(client, [TEAM], before, predicate=pred) == []


async def test_forget_racing_another_users_procedure_outcome_counts_only_what_remains(
    client: GraphMemoryClient, admin: GraphMemoryClient, agents: Agents
) -> None:
    """A procedure proven only by a user being forgotten gets a success report from another
    user at that moment: afterwards it counts exactly that one remaining success."""
    for r in range(ROUNDS):
        user = f"lou{r}"
        intent = f"renew contract {r}"
        proc = client.upsert_procedure(intent, "support", ["check", "renew"], TEAM)["procedure"]
        for e in _eps(client, user, 3, scope=TEAM):
            client.record_procedure_outcome(proc["id"], True, e)
        (mo,) = _eps(client, "mo", 1, scope=TEAM)
        a_ag, a_ad = await agents(client, admin)
        reported, _forgot = await asyncio.gather(
            a_ag.record_procedure_outcome(proc["id"], True, mo), a_ad.forget_contributor(user)
        )
        assert reported["procedure"]["id"] == proc["id"]
        (now,) = client.procedures(intent, [TEAM], include_candidates=True)
        assert (now["successCount"], now["failureCount"]) == (1, 0), now
        assert now["status"] == "candidate"


async def test_concurrent_verdict_corrections_are_all_counted(
    client: GraphMemoryClient, agents: Agents
) -> None:
    """Four agents each correct their own earlier 'failed' report to 'succeeded' at once
    (one episode, one verdict: a correction replaces it). Every correction counts: six
    successes, no failures, and the procedure is promoted."""
    for r in range(ROUNDS):
        intent = f"migrate mailbox {r}"
        proc = client.upsert_procedure(intent, "support", ["export", "import"], TEAM)["procedure"]
        eps = _eps(client, "alice", 6, scope=TEAM)
        # The failures told first: its latest outcomes are not three failures in a row
        # (repeated failure demotes), so it is still a candidate when they are corrected.
        for i, e in reversed(list(enumerate(eps))):
            client.record_procedure_outcome(proc["id"], i < 2, e)
        (before,) = client.procedures(intent, [TEAM], include_candidates=True)
        assert (before["successCount"], before["failureCount"]) == (2, 4)
        runners = await agents(*([client] * 4))
        await asyncio.gather(
            *(
                a.record_procedure_outcome(proc["id"], True, e)
                for a, e in zip(runners, eps[2:], strict=True)
            )
        )
        (after,) = client.procedures(intent, [TEAM], include_candidates=True)
        assert (after["successCount"], after["failureCount"]) == (6, 0), after
        assert after["status"] == "active"


async def test_episode_recorded_while_its_user_is_forgotten_is_gone_or_fully_attributed(
    client: GraphMemoryClient, admin: GraphMemoryClient, agents: Agents
) -> None:
    """An agent files a user's session summaries while an admin forgets that user. Each
    summary either went with the forget or survives as a normal episode of that user: still
    attributed to them in provenance, and removed by forgetting them again."""
    for r in range(ROUNDS + 1):
        user = f"ola{r}"
        _eps(client, user, 3, scope=TEAM)
        a_ag, a_ad = await agents(client, admin)
        pair: list[Awaitable[Any]] = [
            a_ag.record_episodes([episode(user, f"late-{r}-{i}", scope=TEAM) for i in range(3)]),
            a_ad.forget_contributor(user),
        ]
        if r % 2:
            pair.reverse()
        results = await asyncio.gather(*pair, return_exceptions=True)
        recorded = results[0] if r % 2 == 0 else results[1]
        assert not isinstance(recorded, BaseException), recorded
        assert all(x["ok"] for x in recorded), recorded
        left = client.execute(
            'query($u: String!) { episodes(scopes: ["team:core"], userId: $u) { id } }',
            {"u": user},
        )["episodes"]
        for k, e in enumerate(left):
            res = client.assert_facts(
                [
                    fact(
                        user,
                        f"seat_{r}",
                        f"seat {k}",
                        [e["id"]],
                        scope=TEAM,
                        cardinality="MANY",
                    )
                ]
            )["results"][0]
            assert res["ok"], res
            (v,) = [x for x in _hist(client, user, f"seat_{r}", [TEAM]) if x["id"] == res["factId"]]
            assert [p["userId"] for p in v["provenance"]] == [user], v["provenance"]
        again = admin.forget_contributor(user)
        assert again["episodesDeleted"] == len(left)
        assert _hist(client, user, f"seat_{r}", [TEAM]) == []
