"""Semantic memory reads on two time axes.

``as_of`` (belief time) answers "what did we believe at T"; ``valid_at`` (validity time)
"what was true at T". Both default to now and compose. Expired and candidate facts are not
served as truth unless asked for; superseded and retracted versions appear only when the
requested moments say they were believed then.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph_memory.domain import (
    SERVABLE_STATUSES,
    Principal,
    entity_key,
    normalise_predicate,
    parse_scopes,
    require_aware,
    utcnow,
)
from graph_memory.errors import ValidationError
from graph_memory.repositories.entities import EntityRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.services.facts.belief import as_believed_at
from graph_memory.services.read_basis import ReadBasis
from graph_memory.versions import EntityRef, Evidence, FactDependencies, FactVersion

__all__ = ["FactFilter", "ReadService"]

MAX_PAGE = 500


@dataclass(frozen=True)
class FactFilter:
    scopes: tuple[str, ...]
    subject: str | None = None
    predicate: str | None = None
    include_candidates: bool = False
    include_expired: bool = False
    needs_verification: bool | None = None


class ReadService:
    def __init__(self, facts: FactRepository, entities: EntityRepository, basis: ReadBasis) -> None:
        self.facts = facts
        self.entities = entities
        self.basis = basis

    async def moments(
        self, tenant: str, scopes: list[str], as_of: datetime | None, valid_at: datetime | None
    ) -> tuple[datetime, datetime]:
        """The read's (asOf, validAt), now by default; an answer as of a given moment is
        final before it is read (services/read_basis.py)."""
        now = utcnow()
        at = require_aware(as_of, "asOf")
        await self.basis.settle(tenant, scopes, at)
        return (at or now, require_aware(valid_at, "validAt") or now)

    async def list_facts(
        self,
        principal: Principal,
        flt: FactFilter,
        *,
        as_of: datetime | None,
        valid_at: datetime | None,
        first: int,
        after: tuple[datetime, str] | None,
    ) -> list[FactVersion]:
        """Facts in force at (as_of, valid_at), newest recorded first; first+1 rows for paging."""
        if not 1 <= first <= MAX_PAGE:
            raise ValidationError(f"first must be in 1..{MAX_PAGE}", field="first")
        scopes = parse_scopes(flt.scopes)
        at, valid = await self.moments(principal.tenant, scopes, as_of, valid_at)
        rows = await self.facts.in_force(
            principal.tenant,
            scopes,
            subject=entity_key(flt.subject) if flt.subject else None,
            predicate=normalise_predicate(flt.predicate) if flt.predicate else None,
            statuses=list(SERVABLE_STATUSES),
            include_candidates=flt.include_candidates,
            as_of=at,
            valid_at=valid,
            include_expired=flt.include_expired,
            needs_verification=flt.needs_verification,
            after=after,
            limit=first + 1,
        )
        return [as_believed_at(r, at) for r in rows]

    async def history(
        self,
        principal: Principal,
        scopes: list[str],
        subject: str,
        predicate: str,
        as_of: datetime | None,
    ) -> list[FactVersion]:
        """Every version of (subject, predicate) recorded by as_of, oldest first."""
        wanted = parse_scopes(scopes)
        at, _ = await self.moments(principal.tenant, wanted, as_of, None)
        rows = await self.facts.slot_versions(
            principal.tenant,
            wanted,
            entity_key(subject),
            normalise_predicate(predicate),
            at,
        )
        return [as_believed_at(r, at) for r in rows]

    async def get(self, principal: Principal, ids: list[str]) -> dict[str, FactVersion]:
        """Versions by id as they are now (a forgotten contributor's are not found)."""
        return await self.facts.get(principal.tenant, ids)

    async def provenance(self, principal: Principal, ids: list[str]) -> dict[str, list[Evidence]]:
        """Each version's supporting episodes, oldest first, with the moment each was linked."""
        return await self.facts.provenance(principal.tenant, ids)

    async def dependencies(
        self, principal: Principal, ids: list[str]
    ) -> dict[str, FactDependencies]:
        return await self.facts.dependencies(principal.tenant, ids)

    async def entities_by_id(self, principal: Principal, ids: list[str]) -> dict[str, EntityRef]:
        """A session token sees only entities its scopes hold a fact about."""
        return await self.entities.get(principal.tenant, ids, principal.scopes)

    async def entity_named(self, principal: Principal, name: str) -> EntityRef | None:
        """The entity a name denotes (case and spacing aside), if the tenant knows it (and,
        to a session token, if its scopes hold a fact about it)."""
        return await self.entities.by_key(principal.tenant, entity_key(name), principal.scopes)
