"""API keys bound to (tenant, role). The tenant always comes from the key."""

from __future__ import annotations

import hashlib
import re
import secrets
import time

from graph_memory.domain import Principal, Role, utcnow
from graph_memory.errors import NotFound, Unauthenticated, ValidationError
from graph_memory.repositories.apikeys import ApiKeyRepository
from graph_memory.repositories.session_tokens import SessionTokenRepository
from graph_memory.session_share import without_turn

__all__ = ["DEFAULT_CACHE_SECONDS", "TOKEN_PREFIX", "AuthService", "digest"]

_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")
# Short enough that a revoked key stops working within seconds, long enough that a busy agent
# does not pay a database round trip per request. A revocation clears this process's cache at
# once; other processes notice within this delay (GRAPH_MEMORY_AUTH_CACHE_SECONDS, 0: none).
DEFAULT_CACHE_SECONDS = 10.0
_MAX_CACHED = 10_000  # expired entries are dropped past this many
# Session tokens (services/access/session_tokens.py) carry their own prefix: one lookup, not two.
TOKEN_PREFIX = "gms_"


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class AuthService:
    def __init__(
        self,
        repo: ApiKeyRepository,
        cache_seconds: float = DEFAULT_CACHE_SECONDS,
        tokens: SessionTokenRepository | None = None,
    ) -> None:
        self.repo = repo
        self.tokens = tokens
        self.cache_seconds = cache_seconds
        self._cache: dict[str, tuple[float, Principal]] = {}

    async def create_key(self, tenant: str, role: str, name: str) -> tuple[str, str]:
        """Returns (key id, the secret key): the secret is shown once and stored hashed."""
        if not _TENANT.match(tenant):
            raise ValidationError(f"bad tenant id {tenant!r}", field="tenant")
        try:
            role_ = Role(role)
        except ValueError:
            raise ValidationError(
                f"role must be one of {[r.value for r in Role]}", field="role"
            ) from None
        key_id = f"key_{secrets.token_hex(6)}"
        secret = f"gm_{secrets.token_urlsafe(32)}"
        await self.repo.create(
            key_id, digest(secret), tenant, role_.value, name or key_id, utcnow()
        )
        return key_id, secret

    async def revoke(self, key_id: str) -> None:
        if not await self.repo.revoke(key_id, utcnow()):
            raise NotFound(f"no active key {key_id}")
        self.forget_cached()

    def forget_cached(self) -> None:
        """A revocation in this process takes effect at once (the tokens a key minted too)."""
        self._cache.clear()

    def cached(self, key: str | None) -> Principal | None:
        """The key's principal when it was verified within the cache delay (no I/O)."""
        if not key:
            return None
        hit = self._cache.get(digest(key))
        if hit and hit[0] > time.monotonic():
            return hit[1]
        return None

    async def authenticate(self, key: str | None) -> Principal:
        """Raises Unauthenticated for a missing, unknown or revoked key, StoreUnavailable when
        the key is not cached and Neo4j cannot be asked (the key may well be good)."""
        if not key:
            raise Unauthenticated("missing API key: send 'Authorization: Bearer <key>'")
        hit = self.cached(key)
        if hit is not None:
            return hit
        d = digest(key)
        with without_turn():  # the tenant is not known yet: no tenant's turn to wait for
            if key.startswith(TOKEN_PREFIX) and self.tokens is not None:
                principal, ttl = await self._session_token(self.tokens, d)
            else:
                principal, ttl = await self._api_key(d), self.cache_seconds
        ttl = min(ttl, self.cache_seconds)
        if ttl > 0:
            if len(self._cache) > _MAX_CACHED:
                now = time.monotonic()
                self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
            self._cache[d] = (time.monotonic() + ttl, principal)
        return principal

    async def _api_key(self, d: str) -> Principal:
        row = await self.repo.by_hash(d)
        if row is None or row["revoked_at"] is not None:
            raise Unauthenticated("invalid or revoked API key")
        return Principal(
            tenant=row["tenant"],
            role=Role(row["role"]),
            key_id=row["id"],
            name=row["name"] or row["id"],
        )

    @staticmethod
    async def _session_token(tokens: SessionTokenRepository, d: str) -> tuple[Principal, float]:
        """A live token's principal (always an agent, bound to its scopes) and how long it
        may be cached: never past its expiry."""
        tok = await tokens.by_hash(d)
        left = (tok.expires_at - utcnow()).total_seconds() if tok else 0.0
        if tok is None or tok.revoked or left <= 0:
            raise Unauthenticated("invalid, expired or revoked session token")
        principal = Principal(
            tenant=tok.tenant,
            role=Role.AGENT,
            key_id=tok.id,
            name=tok.name,
            scopes=frozenset(tok.scopes),
            user_id=tok.user_id,
        )
        return principal, left
