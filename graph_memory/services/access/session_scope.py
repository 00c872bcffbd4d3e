"""The rule a session token's requests obey: touch nothing outside the token's scopes.

``Principal.scopes`` is None for a key (its whole tenant) and a set for a session token
(services/access/session_tokens.py). Three kinds of check, all raising Forbidden before any work:

* a scope named in an argument (``scopes``, ``scope``, a batch item's scope) is one of them;
* a memory named by id (a fact to retract, a cited episode, a premise, a todo, a procedure)
  lives in one of them: its scope is read first, so a token cannot write *from* another scope
  either (a team fact citing bob's episode would serve bob's words to the team);
* episodes and sessions a token records are its own user's.

A scope left to its default is checked as the default it will take (an episode's
``user:<userId>``, a fact's first cited episode's scope). What a read returns is checked too
(graphql/session_scope.py): a memory asked for by name outside the scopes is refused, and one
reached through a link (provenance, dependents) from an allowed one is left out of the link,
never served and never failing the rest of the answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_memory.domain import Principal
from graph_memory.errors import Forbidden
from graph_memory.repositories.session_tokens import SessionTokenRepository

__all__ = ["ScopeGuard"]


class ScopeGuard:
    def __init__(self, repo: SessionTokenRepository) -> None:
        self.repo = repo

    @staticmethod
    def within(principal: Principal, scopes: Iterable[str | None], field: str) -> None:
        """Raises Forbidden when the principal is bound to scopes and one of ``scopes`` is
        not among them (None: no scope named, nothing to check)."""
        allowed = principal.scopes
        if allowed is None:
            return
        outside = sorted({s for s in scopes if s is not None and s not in allowed})
        if outside:
            raise Forbidden(
                f"this session token may not touch {outside}: it is bound to {sorted(allowed)}",
                field=field,
            )

    @staticmethod
    def same_user(principal: Principal, user_id: object, field: str) -> None:
        """A token records only its own user's episodes and sessions."""
        if principal.user_id is None:
            return
        if not isinstance(user_id, str) or user_id.strip() != principal.user_id:
            raise Forbidden(
                f"this session token serves user {principal.user_id!r}, not {user_id!r}",
                field=field,
            )

    async def outside(self, principal: Principal, ids: Iterable[str]) -> set[str]:
        """Those of ``ids`` naming a memory outside the token's scopes (none for a key;
        unknown ids are not outside: there is nothing of anyone's to serve)."""
        allowed = principal.scopes
        if allowed is None:
            return set()
        wanted = list(dict.fromkeys(i for i in ids if i))
        found = await self.repo.scopes_of(principal.tenant, wanted)
        return {i for i, scope in found.items() if scope not in allowed}

    async def ids_within(
        self, principal: Principal, ids: Iterable[object], field: str
    ) -> dict[str, str]:
        """The scopes of the memories ``ids`` names (unknown ids are left to the operation's
        own NOT_FOUND); raises Forbidden when one lives outside the token's scopes."""
        if principal.scopes is None:
            return {}
        wanted = list(dict.fromkeys(str(i) for i in ids if isinstance(i, str) and i))
        found = await self.repo.scopes_of(principal.tenant, wanted)
        self.within(principal, found.values(), field)
        return found
