"""Session tokens, stored as sha256 digests only (as API keys are)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from graph_memory.db import Database
from graph_memory.domain import as_datetime

__all__ = ["SessionTokenRepository", "StoredToken"]


@dataclass(frozen=True)
class StoredToken:
    id: str
    tenant: str
    user_id: str
    scopes: tuple[str, ...]
    name: str
    expires_at: datetime
    revoked: bool  # the token itself, or the key that minted it


class SessionTokenRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create(
        self,
        *,
        token_id: str,
        digest: str,
        tenant: str,
        parent_id: str,
        user_id: str,
        scopes: list[str],
        name: str,
        now: datetime,
        expires_at: datetime,
    ) -> bool:
        """False when the minting key is not (or no longer) a live key of ``tenant``."""
        rows = await self.db.write(
            "session_token.create",
            {
                "id": token_id,
                "hash": digest,
                "tenant": tenant,
                "parent_id": parent_id,
                "user_id": user_id,
                "scopes": scopes,
                "name": name,
                "now": now,
                "expires_at": expires_at,
            },
        )
        return bool(rows)

    async def by_hash(self, digest: str) -> StoredToken | None:
        rows = await self.db.read("session_token.by_hash", {"hash": digest})
        if not rows:
            return None
        r = rows[0]
        # Written with every token; a token without one is treated as long expired.
        expires = as_datetime(r["expires_at"]) or datetime.min.replace(tzinfo=UTC)
        return StoredToken(
            id=r["id"],
            tenant=r["tenant"],
            user_id=r["user_id"],
            scopes=tuple(r["scopes"]),
            name=r["name"],
            expires_at=expires,
            revoked=r["revoked_at"] is not None or not r["parent_live"],
        )

    async def revoke(self, tenant: str, token_id: str, by_key: str | None, now: datetime) -> bool:
        rows = await self.db.write(
            "session_token.revoke",
            {"id": token_id, "tenant": tenant, "by_key": by_key, "now": now},
        )
        return bool(rows)

    async def forget_user(self, tenant: str, user_id: str, before: datetime | None = None) -> int:
        rows = await self.db.write(
            "session_token.forget_user", {"tenant": tenant, "user_id": user_id, "before": before}
        )
        return int(rows[0]["deleted"]) if rows else 0

    async def scopes_of(self, tenant: str, ids: list[str]) -> dict[str, str]:
        """The scope of each existing fact, episode, procedure or memo among ``ids``."""
        if not ids:
            return {}
        rows = await self.db.read("session_token.scopes_of", {"tenant": tenant, "ids": ids})
        return {r["id"]: r["scope"] for r in rows}
