"""Scoped session tokens: a key hands an agent serving one user a credential for that user only.

An agent key reads every scope of its tenant, so an agent talked into asking for another
user's memory gets it. For one session the agent (or an admin) mints a token bound to the
user's scopes: ``user:<id>``, the teams named at minting, and ``tenant`` unless left out. A
request made with the token may read and write only those scopes (graphql/session_scope.py
checks every argument, every id it names and every object it returns), and only as an agent:
a token never carries admin or analyst rights, and cannot mint further tokens.

A token expires (``ttlSeconds``, at most ``GRAPH_MEMORY_SESSION_TOKEN_MAX_SECONDS``), can be
revoked by the key that minted it, by an admin, or by itself, and dies with the key that
minted it. Revocation reaches this process at once and others within the auth cache delay
(``GRAPH_MEMORY_AUTH_CACHE_SECONDS``), as for keys; forgetting the user deletes their tokens.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from graph_memory.domain import Principal, Role, parse_scope, utcnow
from graph_memory.errors import Forbidden, LimitExceeded, NotFound, ValidationError
from graph_memory.repositories.session_tokens import SessionTokenRepository
from graph_memory.services.access.keys import TOKEN_PREFIX, AuthService, digest

__all__ = [
    "DEFAULT_TTL_SECONDS",
    "MAX_TEAMS",
    "MintedToken",
    "SessionTokenService",
    "acted_for_of",
    "acting_for",
    "token_scopes",
]

DEFAULT_TTL_SECONDS = 3600
MAX_TEAMS = 50


@dataclass(frozen=True)
class MintedToken:
    id: str
    secret: str  # shown once; stored as its digest
    user_id: str
    scopes: tuple[str, ...]
    expires_at: datetime


def acting_for(user_id: str) -> str:
    """What a token's principal name carries after its key's (its audit actor is
    ``<role>:<key> for <user>``): forget finds the user's events by it."""
    return f" for {user_id}"


def acted_for_of(actor: object) -> str | None:
    """The user a token's actor label (``agent:<key> for <user>``) names: for marks written
    before they carried the field (schema 110 derives it alike: tokens are agents, and a user
    id has no space, so it is what follows the last " for "); None for any other actor and
    for one already redacted."""
    if not isinstance(actor, str) or not actor.startswith("agent:") or " for " not in actor:
        return None
    user = actor.rsplit(" for ", 1)[1]
    return None if user == "[forgotten]" else user


def token_scopes(user_id: str, teams: Sequence[str], include_tenant: bool) -> tuple[str, ...]:
    """The scopes a token for ``user_id`` may touch, in a fixed order; VALIDATION for an id
    that does not make a well-formed scope."""
    user = (user_id or "").strip()
    if not user:
        raise ValidationError("a session token needs the user it serves", field="userId")
    if len(teams) > MAX_TEAMS:
        raise LimitExceeded(
            f"at most {MAX_TEAMS} teams a token", field="teams", limit="teams", maximum=MAX_TEAMS
        )
    scopes = [parse_scope(f"user:{user}")]
    for team in teams:
        # A team is named by its id ("support") or by its scope ("team:support"): the scope a
        # caller copied from a listing means that team, not a team "team:support".
        name = team.strip()
        try:
            scopes.append(parse_scope(name if name.startswith("team:") else f"team:{name}"))
        except ValidationError:
            shown = team if len(team) <= 60 else team[:60] + "..."
            raise ValidationError(f"bad team id {shown!r}", field="teams") from None
    if include_tenant:
        scopes.append("tenant")
    return tuple(dict.fromkeys(scopes))


class SessionTokenService:
    def __init__(self, repo: SessionTokenRepository, auth: AuthService, max_seconds: int) -> None:
        self.repo = repo
        self.auth = auth
        self.max_seconds = max_seconds

    async def mint(
        self,
        principal: Principal,
        user_id: str,
        teams: Sequence[str] = (),
        include_tenant: bool = True,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
    ) -> MintedToken:
        """A token for one user's session, valid from now for ``ttl_seconds``. Raises Forbidden
        (an analyst key, or a token), ValidationError (bad user or team id, ttl out of range)."""
        if principal.scopes is not None:
            raise Forbidden("a session token cannot mint tokens")
        if principal.role not in (Role.AGENT, Role.ADMIN):
            raise Forbidden(f"role {principal.role.value} may not mint session tokens")
        if not 1 <= ttl_seconds <= self.max_seconds:
            raise LimitExceeded(
                f"ttlSeconds must be in 1..{self.max_seconds}",
                field="ttlSeconds",
                limit="session_token_max_seconds",
                maximum=self.max_seconds,
            )
        scopes = token_scopes(user_id, teams, include_tenant)
        user = user_id.strip()
        now = utcnow()
        token_id = f"tok_{secrets.token_hex(6)}"
        secret = f"{TOKEN_PREFIX}{secrets.token_urlsafe(32)}"
        minted = await self.repo.create(
            token_id=token_id,
            digest=digest(secret),
            tenant=principal.tenant,
            parent_id=principal.key_id,
            user_id=user,
            scopes=list(scopes),
            name=f"{principal.name or principal.key_id}{acting_for(user)}",
            now=now,
            expires_at=now + timedelta(seconds=ttl_seconds),
        )
        if not minted:
            raise Forbidden("the minting key is revoked")
        return MintedToken(token_id, secret, user, scopes, now + timedelta(seconds=ttl_seconds))

    async def revoke(self, principal: Principal, token_id: str) -> None:
        """End a token now: an admin any of the tenant's, a key the ones it minted, a token
        itself. Raises NotFound (no such live token this caller may revoke)."""
        admin = principal.role is Role.ADMIN and principal.scopes is None
        by_key = None if admin else principal.key_id
        if not await self.repo.revoke(principal.tenant, token_id, by_key, utcnow()):
            raise NotFound(f"no live session token {token_id} of yours")
        self.auth.forget_cached()

    async def forget_user(self, tenant: str, user_id: str, before: datetime | None = None) -> int:
        """forgetContributor's hook: the user's tokens (minted before the forget) name them and
        their scopes."""
        deleted = await self.repo.forget_user(tenant, user_id.strip(), before)
        self.auth.forget_cached()
        return deleted
