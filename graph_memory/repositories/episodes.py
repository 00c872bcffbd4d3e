"""Episodes: structured session summaries, the evidence facts derive from."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.errors import ContributorForgotten
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["EpisodeRepository", "still_there"]


def still_there(episodes: list[Record]) -> list[Record]:
    """The episodes a read found, less those a concurrent forget deleted while it ran.

    Reads run at read committed: a node the index found and a purge then deleted reads as
    an empty map (``e {.*, embedding: null}`` is ``{embedding: None}``), which is no episode.
    An episode being forgotten is left out, as recall's hydrate leaves out what it ranked."""
    return [e for e in episodes if e.get("id") is not None]


class EpisodeRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    @staticmethod
    async def record_in_tx(
        tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime
    ) -> list[str]:
        """The ids written: all of ``rows`` but those whose contributor changed (record)."""
        out = await tx.run(
            "episode.record", {"tenant": require_tenant(tenant), "rows": rows, "now": now}
        )
        return [r["id"] for r in out]

    @staticmethod
    async def refuse_forgotten(tx: Tx, tenant: str, ids: list[str]) -> None:
        """Raise ContributorForgotten when one of these episodes is a forgotten contributor's
        (their purge still running): nothing new may rest on their words."""
        rows = await tx.run("episode.forgotten", {"tenant": require_tenant(tenant), "ids": ids})
        if rows:
            raise ContributorForgotten(
                f"episode {rows[0]['id']} is of a contributor who was forgotten",
                field="episodeId",
            )

    async def contributor(self, tenant: str, user_id: str, now: datetime) -> str:
        """The key of the contributor ``user_id`` names now (made if there is none)."""
        rows = await self.db.write(
            "episode.contributor",
            {"tenant": require_tenant(tenant), "user_id": user_id, "now": now},
        )
        return str(rows[0]["key"])

    @staticmethod
    async def link_sessions_in_tx(tx: Tx, tenant: str, sessions: list[dict[str, str]]) -> None:
        """Relink each session ``{scope, session_id}`` as a NEXT chain in the order its
        episodes happened (episode.link_sessions)."""
        if sessions:
            await tx.run(
                "episode.link_sessions", {"tenant": require_tenant(tenant), "sessions": sessions}
            )

    async def get(self, tenant: str, ids: list[str]) -> dict[str, Record]:
        rows = await self.db.read("episode.get", {"tenant": require_tenant(tenant), "ids": ids})
        return {e["id"]: e for e in still_there([r["episode"] for r in rows])}

    async def list(
        self,
        tenant: str,
        scopes: list[str],
        *,
        user_id: str | None,
        session_id: str | None,
        start: datetime | None,
        end: datetime | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[Record]:
        rows = await self.db.read(
            "episode.list",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "user_id": user_id,
                "session_id": session_id,
                "from": start,
                "to": end,
                "after_recorded": after[0] if after else None,
                "after_id": after[1] if after else None,
                "limit": limit,
            },
        )
        return still_there([r["episode"] for r in rows])
