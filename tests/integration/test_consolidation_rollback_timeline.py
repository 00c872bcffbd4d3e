"""A rollback leaves the stored timeline of every slot a run changed exactly as it was: an
entity merge's timeline writes are inverted from the run's journal (the very segments, ids
and all), slots that a rule-settled step (dedupe) also changed are recomputed to the same
segments, and a rollback after someone else wrote the scope recomputes from the versions
instead of trusting the journal, keeping the later write."""

from __future__ import annotations

from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode, fact
from tests.integration.consolidation_helpers import M_ROLLBACK, M_RUN

CORE = "team:core"
SEGMENTS = (
    "MATCH (s:Segment) WHERE s.tenant = $tenant "
    "RETURN s.id AS id, s.subject AS subject, s.predicate AS predicate, s.fact_id AS fact, "
    "s.view AS view, toString(s.sys_from) AS sys_from, toString(s.sys_to) AS sys_to, "
    "toString(s.valid_from) AS valid_from, toString(s.valid_to) AS valid_to"
)
Segments = list[tuple[Any, ...]]


def _segments(settings: Settings, tenant: str) -> tuple[Segments, Segments]:
    """Every stored segment of the tenant: with ids, and as content only (sorted)."""
    rows = bolt(settings, SEGMENTS, {"tenant": tenant})
    with_ids = sorted(tuple(r.values()) for r in rows)
    return with_ids, sorted(t[1:] for t in with_ids)


FACTS = (
    "MATCH (f:Fact) WHERE f.tenant = $tenant OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode) "
    "OPTIONAL MATCH (f)-[:ABOUT]->(x:Entity) "
    "RETURN f.id AS id, properties(f) AS props, collect(DISTINCT [e.id, d.weight]) AS evidence, "
    "collect(DISTINCT x.key) AS about"
)
USAGE = {"embedding", "retrieval_count", "last_retrieved_at"}


def _facts(settings: Settings, tenant: str) -> dict[str, Any]:
    """Every version of the tenant whole: properties (usage aside), evidence, entity."""
    return {
        r["id"]: (
            {k: str(v) for k, v in r["props"].items() if k not in USAGE},
            sorted(r["evidence"], key=str),
            r["about"],
        )
        for r in bolt(settings, FACTS, {"tenant": tenant})
    }


def _build(client: GraphMemoryClient) -> dict[str, str]:
    ep = client.record_episode(**episode("alice", scope=CORE))
    rows = [
        ("Acme Corp", "headquartered_in", "Berlin"),
        ("Acme Corp", "ceo", "Ann Lee"),
        ("Acme Corp.", "ceo", "Ann Lee"),  # merged into Acme Corp's slot, then deduped there
        ("Acme Corp.", "customer_since", "2019"),  # a slot only the merge changes
    ]
    out = client.assert_facts(
        [fact(s, p, o, [ep], scope=CORE, cardinality="ONE") for s, p, o in rows]
    )
    assert out["accepted"] == len(rows), out
    return {"since": out["results"][3]["factId"]}


def _run(admin: GraphMemoryClient) -> Any:
    done = admin.execute(M_RUN, {"s": [CORE], "steps": ["ENTITIES", "DEDUPE"], "dry": False})
    run = done["runConsolidation"]
    actions = {c["action"] for c in run["changes"]}
    assert {"merge_entity", "merge_duplicate"} <= actions, actions
    return run


def test_rollback_restores_the_stored_segments_of_merged_and_deduped_slots(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    ids = _build(client)
    before, content = _segments(settings, tenant)
    facts = _facts(settings, tenant)
    run = _run(admin)
    assert _segments(settings, tenant)[1] != content  # the run moved and ended segments
    admin.execute(M_ROLLBACK, {"id": run["id"]})
    after, content_after = _segments(settings, tenant)
    assert content_after == content
    # Every version whole again, also the merged one a later batch deduped (its copy-on-write
    # snapshot of the merge's three properties widened by the dedupe batch).
    assert _facts(settings, tenant) == facts
    # The slot only the merge touched got its very segments back from the journal.
    since = [s for s in before if s[3] == ids["since"]]
    assert since and since == [s for s in after if s[3] == ids["since"]]
    assert (
        bolt(settings, "MATCH (j:ConsolidationJournal {tenant: $t}) RETURN j", {"t": tenant}) == []
    )


def test_rollback_after_another_write_recomputes_and_keeps_that_write(
    settings: Settings, tenant: str, client: GraphMemoryClient, admin: GraphMemoryClient
) -> None:
    _build(client)
    _, content = _segments(settings, tenant)
    run = _run(admin)
    ep = client.record_episode(**episode("bob", scope=CORE))
    # Another slot of the run's scope: written by someone else after the run.
    later = client.assert_facts([fact("Globex", "ceo", "Bob Stone", [ep], scope=CORE)])
    assert later["accepted"] == 1, later
    later_id = later["results"][0]["factId"]
    back = admin.execute(M_ROLLBACK, {"id": run["id"]})["rollbackConsolidation"]
    assert back["status"] == "ROLLED_BACK"
    _, content_after = _segments(settings, tenant)
    assert [s for s in content_after if s[2] != later_id] == content
    assert [s for s in content_after if s[2] == later_id]  # the later write is still answered
