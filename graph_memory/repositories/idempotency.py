"""Client-supplied idempotency keys: a replayed batch returns its first result."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_tenant

__all__ = ["IdempotencyRepository", "IdempotentOperation", "idempotency_record_key"]

# The operations whose client keys are recorded. Their names are prefix-free, so the record
# key "<operation>:<client key>" of one operation never equals another's, whatever the
# client key holds (before, remember's facts were recorded as "facts:remember:<key>", which
# an assertFacts key "remember:<key>" also named).
IdempotentOperation = Literal["facts", "remember"]


def idempotency_record_key(
    operation: IdempotentOperation, key: str, owner: str | None = None
) -> str:
    """The record of ``key``. ``owner``: the user a session token serves (None for an API
    key): a token's keys are its user's own, so a token serving alice cannot claim a key
    bob's writes will use, nor learn from a CONFLICT which keys they used. The owner's length
    goes first, so no user id and key pair spells another's (ids may hold ':')."""
    if owner is None:
        return f"{operation}:{key}"
    return f"{operation}@{len(owner)}:{owner}:{key}"


class IdempotencyRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def get(self, tenant: str, key: str) -> Record | None:
        rows = await self.db.read("idempotency.get", {"tenant": require_tenant(tenant), "key": key})
        return rows[0] if rows else None

    @staticmethod
    async def put_in_tx(
        tx: Tx,
        tenant: str,
        key: str,
        request_hash: str,
        result: str,
        now: datetime,
        episode_ids: list[str] | None = None,
    ) -> None:
        """``episode_ids``: what the batch cited (the record goes when their contributor is
        forgotten)."""
        await tx.run(
            "idempotency.put",
            {
                "tenant": require_tenant(tenant),
                "key": key,
                "request_hash": request_hash,
                "result": result,
                "episode_ids": episode_ids or [],
                "now": now,
            },
        )

    @staticmethod
    async def get_in_tx(tx: Tx, tenant: str, key: str) -> Record | None:
        rows = await tx.run("idempotency.get", {"tenant": require_tenant(tenant), "key": key})
        return rows[0] if rows else None
