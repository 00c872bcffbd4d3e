"""Consecutive episodes of a session are linked by NEXT, in the order they happened, within
their scope; the migration backfills sessions recorded before the links existed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.migrations import schema_migrations
from graph_memory.settings import Settings
from tests.integration.conftest import T0, bolt, episode

CHAIN = """
MATCH (a:Episode {tenant: $tenant, session_id: $session})-[:NEXT]->(b:Episode)
RETURN a.id AS a, b.id AS b
"""


def _order(settings: Settings, tenant: str, session: str) -> list[str]:
    """The session's episodes following NEXT from its first one."""
    nxt = {r["a"]: r["b"] for r in bolt(settings, CHAIN, {"tenant": tenant, "session": session})}
    if not nxt:
        return []
    (first,) = set(nxt) - set(nxt.values())
    out = [first]
    while out[-1] in nxt:
        out.append(nxt[out[-1]])
    return out


def _turn(session: str, minute: int, text: str, **kw: Any) -> dict[str, Any]:
    at = T0 + timedelta(minutes=minute)
    return episode("alice", session=session, summary=text, startedAt=at, endedAt=at, **kw)


def test_turns_are_chained_in_the_order_they_happened(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    got = client.record_episodes(
        [_turn("s1", m, f"turn number {m} of the talk") for m in (0, 1, 2)]
    )
    ids = [r["id"] for r in got]
    assert _order(settings, tenant, "s1") == ids
    # A turn reported late lands in its place; the edge it splits is gone.
    late = client.record_episode(**_turn("s1", 1, "a turn said between one and two"))
    late_at = T0 + timedelta(minutes=1, seconds=30)
    bolt(
        settings, "MATCH (e:Episode {id: $id}) SET e.started_at = $at", {"id": late, "at": late_at}
    )
    client.record_episode(**_turn("s1", 3, "the last turn of the talk"))
    order = _order(settings, tenant, "s1")
    assert order[:4] == [ids[0], ids[1], late, ids[2]] and len(order) == 5
    # Turns sent together at the same moment keep the order they were sent in.
    same = client.record_episodes([_turn("s2", 0, f"simultaneous turn {i}") for i in range(4)])
    assert _order(settings, tenant, "s2") == [r["id"] for r in same]


def test_chains_never_cross_sessions_or_scopes(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    made = client.record_episodes(
        [
            _turn("s3", 0, "first turn in alice's scope"),
            _turn("s4", 1, "another session"),
            _turn("s3", 2, "same session id in the tenant scope", scope="tenant"),
        ]
    )
    assert all(r["ok"] for r in made), made
    rows = bolt(
        settings,
        "MATCH (a:Episode {tenant: $tenant})-[:NEXT]->(b) RETURN a.scope AS sa, b.scope AS sb, "
        "a.session_id AS xa, b.session_id AS xb",
        {"tenant": tenant},
    )
    assert rows == []


def test_the_migration_backfills_unlinked_sessions(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    got = client.record_episodes([_turn("s5", m, f"older turn {m}") for m in (0, 1, 2)])
    ids = [r["id"] for r in got]
    bolt(settings, "MATCH (e:Episode {tenant: $t})-[n:NEXT]->() DELETE n", {"t": tenant})
    assert _order(settings, tenant, "s5") == []
    (m,) = [m for m in schema_migrations() if m.name == "episode_next"]
    for stmt in m.statements:
        bolt(settings, stmt, {})
    assert _order(settings, tenant, "s5") == ids
    for stmt in m.statements:  # idempotent: a linked session is left as it is
        bolt(settings, stmt, {})
    assert len(bolt(settings, CHAIN, {"tenant": tenant, "session": "s5"})) == 2
