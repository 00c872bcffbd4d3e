"""An episode a concurrent forget deletes while a read runs is left out of the read.

At read committed, a node the index found and a purge then deleted reads back as an empty
map: ``e {.*, embedding: null}`` gives ``{"embedding": None}``. The listing and the loader
both met it as ``KeyError: 'id'`` (INTERNAL) while a forget purged a user's episodes."""

from __future__ import annotations

from graph_memory.graphql.types.episode import episode_from_record
from graph_memory.repositories.episodes import still_there

LIVE = {
    "id": "ep_1",
    "scope": "user:alice",
    "user_id": "alice",
    "session_id": "s1",
    "summary": "Alice asked about kayaks.",
    "outcome": "success",
    "embedding": None,
}
DELETED_MID_READ = {"embedding": None}


def test_an_episode_deleted_mid_read_is_left_out() -> None:
    rows = still_there([LIVE, DELETED_MID_READ, {**LIVE, "id": "ep_2"}])
    assert [r["id"] for r in rows] == ["ep_1", "ep_2"]
    assert [str(episode_from_record(r).id) for r in rows] == ["ep_1", "ep_2"]
