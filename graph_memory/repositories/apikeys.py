"""API keys, stored as sha256 digests only: a leaked database leaks no usable key."""

from __future__ import annotations

from datetime import datetime

from graph_memory.db import Database, Record

__all__ = ["ApiKeyRepository"]


class ApiKeyRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self, key_id: str, digest: str, tenant: str, role: str, name: str, now: datetime
    ) -> None:
        await self.db.write(
            "apikey.create",
            {
                "id": key_id,
                "hash": digest,
                "tenant": tenant,
                "role": role,
                "name": name,
                "now": now,
            },
        )

    async def by_hash(self, digest: str) -> Record | None:
        rows = await self.db.read("apikey.by_hash", {"hash": digest})
        return rows[0] if rows else None

    async def list(self, tenant: str | None) -> list[Record]:
        return await self.db.read("apikey.list", {"tenant": tenant})

    async def revoke(self, key_id: str, now: datetime) -> bool:
        return bool(await self.db.write("apikey.revoke", {"id": key_id, "now": now}))
