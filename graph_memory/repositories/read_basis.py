"""The scope locks as a read sees them: their committed stamps, and the pin that waits for the
writers holding them (services/read_basis.py)."""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Database
from graph_memory.domain import as_datetime
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["ReadBasisRepository"]


class ReadBasisRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def stamps(self, tenant: str, scopes: list[str]) -> dict[str, datetime | None]:
        """Each scope's latest committed writer stamp (None: never written)."""
        rows = await self.db.read(
            "lock.stamps", {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes)}
        )
        return {str(r["scope"]): as_datetime(r["stamp"]) for r in rows}

    async def pin(self, tenant: str, scopes: list[str], as_of: datetime) -> set[str]:
        """Wait for the writers of ``scopes`` in flight, then make every later one stamp after
        ``as_of`` (``scopes`` sorted: the order writers take their locks in). Returns the
        scopes never written (no lock kept, so nothing raised)."""
        params = {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes)}
        # Two statements: the second reads the stamps only once the first holds the locks.
        _, stamped = await self.db.write_many(
            [("lock.pin", params), ("lock.pin_stamp", {**params, "as_of": as_of})]
        )
        return {str(s) for s in stamped[0]["unwritten"]}
