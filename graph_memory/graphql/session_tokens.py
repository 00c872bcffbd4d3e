"""Minting and revoking scoped session tokens (services/access/session_tokens.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.errors import GraphMemoryError
from graph_memory.services.access.session_tokens import DEFAULT_TTL_SECONDS, SessionTokenService

__all__ = ["SessionTokenMutation"]


@strawberry.type(description="A credential for one user's session; the secret is shown once.")
class SessionToken:
    id: strawberry.ID
    token: str = strawberry.field(description="Send as 'Authorization: Bearer <token>'.")
    user_id: str
    scopes: list[str] = strawberry.field(description="All it may read and write.")
    expires_at: datetime


def _service(info: Info[Any, None]) -> SessionTokenService:
    service: SessionTokenService | None = info.context.services.session_tokens
    if service is None:
        raise GraphMemoryError("session tokens are not configured")
    return service


@strawberry.type
class SessionTokenMutation:
    @strawberry.mutation(
        description="Mint a short-lived token for one user's session (agent, admin keys): it "
        "reads and writes only user:<userId>, the teams given and, unless includeTenant is "
        "false, tenant; it acts as an agent and cannot mint. ttlSeconds at most "
        "GRAPH_MEMORY_SESSION_TOKEN_MAX_SECONDS (default 86,400)."
    )
    async def mint_session_token(
        self,
        info: Info[Any, None],
        user_id: str,
        teams: list[str] | None = None,
        include_tenant: bool = True,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
    ) -> SessionToken:
        minted = await _service(info).mint(
            info.context.principal, user_id, teams or [], include_tenant, ttl_seconds
        )
        return SessionToken(
            id=strawberry.ID(minted.id),
            token=minted.secret,
            user_id=minted.user_id,
            scopes=list(minted.scopes),
            expires_at=minted.expires_at,
        )

    @strawberry.mutation(
        description="End a session token now: an admin any of the tenant's, a key those it "
        "minted, a token itself. Other processes stop accepting it within the auth cache "
        "delay (GRAPH_MEMORY_AUTH_CACHE_SECONDS)."
    )
    async def revoke_session_token(self, info: Info[Any, None], id: strawberry.ID) -> bool:
        await _service(info).revoke(info.context.principal, str(id))
        return True
