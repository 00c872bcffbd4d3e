"""Read resolvers for semantic and episodic memory."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.domain import entity_key, normalise_predicate
from graph_memory.errors import ValidationError
from graph_memory.graphql.convert import decode_cursor, encode_cursor
from graph_memory.graphql.inputs import prebuilt
from graph_memory.graphql.types.episode import Episode, episode_from_record
from graph_memory.graphql.types.fact import (
    Cardinality,
    Entity,
    Fact,
    Predicate,
    entity_from_ref,
    fact_from_version,
)
from graph_memory.services.facts.reads import FactFilter

__all__ = ["MemoryQuery"]


@prebuilt()
@strawberry.input(description="Which facts: scopes are required (user:<id>, team:<id>, tenant).")
class FactFilterInput:
    scopes: list[str]
    subject: str | None = None
    predicate: str | None = None
    include_candidates: bool = False
    include_expired: bool = False
    needs_verification: bool | None = None


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None


@strawberry.type
class FactEdge:
    cursor: str
    node: Fact


@strawberry.type
class FactConnection:
    edges: list[FactEdge]
    page_info: PageInfo

    @strawberry.field
    def nodes(self) -> list[Fact]:
        return [e.node for e in self.edges]


@strawberry.type(description="Every version of a (subject, predicate), oldest first.")
class History:
    subject: str
    predicate: str
    versions: list[Fact]


@strawberry.type
class MemoryQuery:
    @strawberry.field(description="One fact version by id (any status).")
    async def fact(self, info: Info[Any, None], id: strawberry.ID) -> Fact | None:
        found = await info.context.loaders.facts.load(str(id))
        return fact_from_version(found) if found else None

    @strawberry.field(
        description="Facts in force: believed at asOf (default now) and valid at validAt "
        "(default now). Cursor-paginated, newest recorded first."
    )
    async def facts(
        self,
        info: Info[Any, None],
        filter: FactFilterInput,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> FactConnection:
        ctx = info.context
        flt = FactFilter(
            scopes=tuple(filter.scopes),
            subject=filter.subject,
            predicate=filter.predicate,
            include_candidates=filter.include_candidates,
            include_expired=filter.include_expired,
            needs_verification=filter.needs_verification,
        )
        rows = await ctx.services.reads.list_facts(
            ctx.principal,
            flt,
            as_of=as_of,
            valid_at=valid_at,
            first=first,
            after=decode_cursor(after),
        )
        page = rows[:first]
        edges = [
            FactEdge(cursor=encode_cursor(r.recorded_at, r.id), node=fact_from_version(r, as_of))
            for r in page
        ]
        return FactConnection(
            edges=edges,
            page_info=PageInfo(
                has_next_page=len(rows) > first, end_cursor=edges[-1].cursor if edges else None
            ),
        )

    @strawberry.field(description="Every version of (subject, predicate) with its provenance.")
    async def history(
        self,
        info: Info[Any, None],
        subject: str,
        predicate: str,
        scopes: list[str],
        as_of: datetime | None = None,
    ) -> History:
        ctx = info.context
        rows = await ctx.services.reads.history(ctx.principal, scopes, subject, predicate, as_of)
        return History(
            subject=entity_key(subject),
            predicate=normalise_predicate(predicate),
            versions=[fact_from_version(r, as_of) for r in rows],
        )

    @strawberry.field(description="An entity by id, or by name.")
    async def entity(
        self, info: Info[Any, None], id: strawberry.ID | None = None, name: str | None = None
    ) -> Entity | None:
        ctx = info.context
        if id is not None:
            found = await ctx.loaders.entities.load(str(id))
        elif name is not None:
            found = await ctx.services.reads.entity_named(ctx.principal, name)
        else:
            raise ValidationError("entity needs an id or a name", field="id")
        return entity_from_ref(found) if found else None

    @strawberry.field(
        description="Episodes in the given scopes, newest recorded first (first: 1..500); "
        "for the next page pass the last episode's `cursor` as `after`."
    )
    async def episodes(
        self,
        info: Info[Any, None],
        scopes: list[str],
        user_id: str | None = None,
        session_id: str | None = None,
        started_from: datetime | None = None,
        started_to: datetime | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> list[Episode]:
        ctx = info.context
        rows = await ctx.services.episodes.list(
            ctx.principal,
            scopes,
            user_id=user_id,
            session_id=session_id,
            start=started_from,
            end=started_to,
            after=decode_cursor(after),
            limit=first,
        )
        return [episode_from_record(r) for r in rows]

    @strawberry.field(description="The predicate registry: built-in defaults and the tenant's own.")
    async def predicates(self, info: Info[Any, None]) -> list[Predicate]:
        ctx = info.context
        policy = await ctx.services.facts.policy(ctx.principal.tenant)
        found = await ctx.services.predicates.list(ctx.principal, policy)
        return [Predicate(name=n, cardinality=Cardinality(c.value)) for n, c in found.items()]

    @strawberry.field
    async def episode(self, info: Info[Any, None], id: strawberry.ID) -> Episode | None:
        rec = await info.context.loaders.episodes.load(str(id))
        return episode_from_record(rec) if rec else None
