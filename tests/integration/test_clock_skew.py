"""Writes follow commit order within a scope even when service processes' clocks differ: a
write after one made by a process whose clock runs ahead is stamped just after it (after what
its slots hold and what the scope's lock records), so the earlier write's belief interval is
kept, not ended before it began, and no change lands in a past a reader already saw."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import pytest

from graph_memory.client import GraphMemoryClient
from graph_memory.container import build_services
from graph_memory.db import CLOCK_SKEW, Database
from graph_memory.domain import (
    Citation,
    FactInput,
    Principal,
    Role,
    utcnow,
)
from graph_memory.embeddings import Embedder
from graph_memory.services import episodes as episodes_module
from graph_memory.services.facts import writes as fact_writes
from graph_memory.services.procedures import service as procedures_module
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode, fact, record_episode_in_process
from tests.integration.consolidation_helpers import CORE, build_store, run

SCOPES = ["user:alice"]
AHEAD = (
    "MATCH (f:Fact {id: $id}) "
    "SET f.recorded_at = f.recorded_at + duration('PT1H'), "
    "    f.activated_at = f.activated_at + duration('PT1H'), "
    "    f.told_log_at = [t IN f.told_log_at | t + duration('PT1H')], "
    "    f.changes_at = [t IN f.changes_at | t + duration('PT1H')] "
    "WITH f MATCH (s:Segment)-[:WINS]->(f) SET s.sys_from = s.sys_from + duration('PT1H'), "
    "    s.recorded_at = f.recorded_at "
    "RETURN toString(f.recorded_at) AS at"
)
# What that process's commit left on the scope's lock: the clock it stamped with.
LOCK_AHEAD = (
    "MATCH (f:Fact {id: $id}) MATCH (l:ScopeLock {tenant: f.tenant, scope: f.scope}) "
    "SET l.stamp = f.recorded_at RETURN toString(l.stamp) AS at"
)


def _ahead(settings: Settings, fact_id: str) -> datetime:
    """Restamp a version as if a process whose clock runs an hour ahead had written it."""
    bolt(settings, AHEAD, {"id": fact_id})
    return datetime.fromisoformat(bolt(settings, LOCK_AHEAD, {"id": fact_id})[0]["at"])


def test_a_write_after_a_process_whose_clock_runs_ahead_is_stamped_after_it(
    client: GraphMemoryClient, settings: Settings
) -> None:
    e1 = client.record_episode(**episode("alice", "s1"))
    first = client.assert_facts([fact("alice", "lives_in", "Paris", [e1])])["results"][0]
    # As if another service process, its clock an hour ahead, had written Paris.
    ahead = datetime.fromisoformat(bolt(settings, AHEAD, {"id": first["factId"]})[0]["at"])
    e2 = client.record_episode(**episode("alice", "s2"))
    second = client.assert_facts([fact("alice", "lives_in", "Berlin", [e2])])["results"][0]
    assert second["ok"], second
    rows = bolt(
        settings,
        "MATCH (n:Fact {id: $new}), (o:Fact {id: $old}) "
        "OPTIONAL MATCH (s:Segment)-[:WINS]->(o) "
        "RETURN toString(n.recorded_at) AS new_at, toString(o.superseded_at) AS closed, "
        "       collect([toString(s.sys_from), toString(s.sys_to)]) AS paris",
        {"new": second["factId"], "old": first["factId"]},
    )[0]
    new_at = datetime.fromisoformat(rows["new_at"])
    assert new_at > ahead  # stamped after the write it follows, not by its own slow clock
    assert datetime.fromisoformat(rows["closed"]) == new_at
    # Paris keeps its belief interval: from when it was written until Berlin.
    spans = [(datetime.fromisoformat(a), datetime.fromisoformat(b)) for a, b in rows["paris"]]
    assert spans and all(a == ahead and b == new_at for a, b in spans), spans


def _stamp(settings: Settings, fact_id: str, prop: str) -> datetime:
    rows = bolt(
        settings, f"MATCH (f:Fact {{id: $id}}) RETURN toString(f.{prop}) AS at", {"id": fact_id}
    )
    return datetime.fromisoformat(rows[0]["at"])


def test_a_retraction_after_a_process_whose_clock_runs_ahead_is_stamped_after_it(
    client: GraphMemoryClient, settings: Settings
) -> None:
    e1 = client.record_episode(**episode("alice", "s1"))
    first = client.assert_facts([fact("alice", "lives_in", "Paris", [e1])])["results"][0]
    ahead = datetime.fromisoformat(bolt(settings, AHEAD, {"id": first["factId"]})[0]["at"])
    client.retract_fact(first["factId"], "moved")
    # Retracted after it was told, not an hour before: the version's life stays whole and
    # its segment is closed at the retraction (the suite's timeline check recomputes it).
    assert _stamp(settings, first["factId"], "retracted_at") > ahead


def test_a_review_after_a_process_whose_clock_runs_ahead_is_stamped_after_it(
    client: GraphMemoryClient, analyst: GraphMemoryClient, settings: Settings
) -> None:
    e1 = client.record_episode(**episode("alice", "s1", source="conversation"))
    told = fact("alice", "likes", "tea", [e1], source="conversation", cardinality="MANY")
    first = client.assert_facts([told])["results"][0]
    assert first["status"] == "CANDIDATE", first
    ahead = datetime.fromisoformat(
        bolt(
            settings,
            "MATCH (f:Fact {id: $id}) SET f.recorded_at = f.recorded_at + duration('PT1H'), "
            "f.changes_at = [t IN f.changes_at | t + duration('PT1H')] "
            "WITH f MATCH (s:Segment)-[:WINS]->(f) SET s.sys_from = f.recorded_at "
            "RETURN toString(f.recorded_at) AS at",
            {"id": first["factId"]},
        )[0]["at"]
    )
    analyst.approve_fact(first["factId"])
    assert _stamp(settings, first["factId"], "activated_at") > ahead


def test_a_write_to_another_slot_of_the_scope_is_stamped_after_the_process_ahead(
    client: GraphMemoryClient, settings: Settings
) -> None:
    e1 = client.record_episode(**episode("alice", "s1"))
    first = client.assert_facts([fact("alice", "lives_in", "Paris", [e1])])["results"][0]
    ahead = _ahead(settings, first["factId"])
    # Another slot: nothing in it is ahead, the scope's lock is.
    e2 = client.record_episode(**episode("alice", "s2"))
    second = client.assert_facts([fact("alice", "likes", "tea", [e2], cardinality="MANY")])
    assert second["accepted"] == 1, second
    assert _stamp(settings, second["results"][0]["factId"], "recorded_at") > ahead
    rows = bolt(
        settings,
        "MATCH (f:Fact {id: $id}) MATCH (l:ScopeLock {tenant: f.tenant, scope: f.scope}) "
        "RETURN toString(l.stamp) AS at, toString(f.recorded_at) AS recorded",
        {"id": second["results"][0]["factId"]},
    )
    assert rows[0]["at"] == rows[0]["recorded"]  # the lock remembers the later clock


def test_a_consolidation_after_a_process_whose_clock_runs_ahead_is_stamped_after_it(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    s = build_store(settings, tenant, client, admin)
    e = client.record_episode(**episode("alice", "s8", scope=CORE))
    out = client.assert_facts(
        [fact("Core team", "office", "Berlin", [e], scope=CORE, cardinality="ONE")]
    )
    assert out["accepted"] == 1, out
    ahead = _ahead(settings, out["results"][0]["factId"])
    done = run(admin, steps=["DEDUPE"])
    assert {c["name"]: c["value"] for c in done["steps"][0]["counts"]}["merged"] == 1
    # The merge retracted the duplicate after the write it follows, by the lock's record.
    assert _stamp(settings, s.jira_dup, "retracted_at") > ahead


def test_a_process_whose_clock_runs_behind_stamps_after_the_stores_clock(
    settings: Settings, embedder: Embedder, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service process whose clock runs ten minutes behind writes a scope no one has written
    (its lock carries no stamp to follow): it still stamps after the store's clock, so a read
    as of a moment already answered (or old enough to be taken as final without a look,
    read_basis.FINAL_AFTER) never gains its write."""
    slow = timedelta(minutes=10)
    for module in (fact_writes, episodes_module):
        monkeypatch.setattr(module, "utcnow", lambda: utcnow() - slow)
    who = Principal(tenant, Role.AGENT, "k-test")

    async def go() -> tuple[datetime, list[datetime]]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        try:
            before = utcnow()
            summary = "Slowpoke said where they live."
            ep = await record_episode_in_process(services, who, "s1", summary, user_id="slowpoke")
            [r] = await services.facts.assert_facts(
                who, [FactInput("slowpoke", "lives_in", "Oslo", (Citation(ep),), source="user")]
            )
            assert r.ok and r.fact_id is not None
            rows = await services.db.run_raw(
                "MATCH (f:Fact {id: $f}), (e:Episode {id: $e}) "
                "RETURN toString(f.recorded_at) AS fact, toString(e.recorded_at) AS ep",
                {"f": r.fact_id, "e": ep},
            )
            return before, [datetime.fromisoformat(rows[0][k]) for k in ("ep", "fact")]
        finally:
            await services.db.close()

    before, stamps = asyncio.run(go())
    # By its own clock they would be ten minutes back; floored by the store's clock (less the
    # skew the time rule allows, db.CLOCK_SKEW) they are not.
    assert all(s > before - CLOCK_SKEW for s in stamps), (before, stamps)


def test_a_write_after_a_forget_from_a_process_behind_is_not_taken_as_theirs(
    settings: Settings, embedder: Embedder, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A forget's mark is the boundary "written before the forget": a procedure written in the
    forgotten user's own scope after the mark, by a process whose clock runs ten minutes
    behind, is stamped after the mark (the mark stamps every scope lock) and so is not taken
    for theirs (hidden, then deleted by the purge)."""
    admin = Principal(tenant, Role.ADMIN, "k-test")

    async def go() -> list[str]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        try:
            summary = "Bob said how he deploys."
            await record_episode_in_process(services, admin, "s1", summary, user_id="bob")
            assert services.forget is not None and services.procedures is not None
            await services.forget.mark(admin, "bob")
            slow = timedelta(minutes=10)
            monkeypatch.setattr(procedures_module, "utcnow", lambda: utcnow() - slow)
            made = await services.procedures.upsert(
                admin, intent="deploy", role="dev", steps=["Ship it"], scope="user:bob"
            )
            monkeypatch.undo()  # read by a process whose clock is right
            listed = await services.procedures.list(
                admin, intent="deploy", scopes=["user:bob"], include_candidates=True
            )
            assert made.procedure is not None
            return [str(p["id"]) for p in listed] + [str(made.procedure["id"])]
        finally:
            await services.db.close()

    *listed, made = asyncio.run(go())
    assert listed == [made]
