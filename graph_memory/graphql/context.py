"""Per-request context: the caller, the services and DataLoaders built for this request only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from strawberry.dataloader import DataLoader

from graph_memory.domain import Principal, Role
from graph_memory.errors import Forbidden
from graph_memory.versions import EntityRef, Evidence, FactDependencies, FactVersion

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["Context", "Loaders", "require_role"]


def require_role(principal: Principal, *roles: Role) -> None:
    if principal.role not in roles:
        raise Forbidden(
            f"role {principal.role.value} may not do this (needs {[r.value for r in roles]})"
        )


@dataclass
class Loaders:
    """This request's DataLoaders: every fact, evidence list, dependency pair, episode or
    entity a resolver asks for is fetched once, in one batch per kind, through the services."""

    facts: DataLoader[str, FactVersion | None]
    provenance: DataLoader[str, list[Evidence]]
    deps: DataLoader[str, FactDependencies]
    episodes: DataLoader[str, dict[str, Any] | None]
    entities: DataLoader[str, EntityRef | None]

    @classmethod
    def build(cls, services: Services, principal: Principal) -> Loaders:
        reads = services.reads

        async def facts(ids: Sequence[str]) -> list[FactVersion | None]:
            found = await reads.get(principal, list(ids))
            return [found.get(i) for i in ids]

        async def provenance(ids: Sequence[str]) -> list[list[Evidence]]:
            found = await reads.provenance(principal, list(ids))
            return [found.get(i, []) for i in ids]

        async def deps(ids: Sequence[str]) -> list[FactDependencies]:
            found = await reads.dependencies(principal, list(ids))
            return [found.get(i, FactDependencies()) for i in ids]

        async def episodes(ids: Sequence[str]) -> list[dict[str, Any] | None]:
            found = await services.episodes.get(principal, list(ids))
            return [found.get(i) for i in ids]

        async def entities(ids: Sequence[str]) -> list[EntityRef | None]:
            found = await reads.entities_by_id(principal, list(ids))
            return [found.get(i) for i in ids]

        return cls(
            facts=DataLoader(load_fn=facts),
            provenance=DataLoader(load_fn=provenance),
            deps=DataLoader(load_fn=deps),
            episodes=DataLoader(load_fn=episodes),
            entities=DataLoader(load_fn=entities),
        )


@dataclass
class Context:
    principal: Principal
    services: Services
    request: Any = None
    response: Any = None
    _loaders: Loaders | None = field(default=None, repr=False)

    @property
    def loaders(self) -> Loaders:
        # Built on first use: most requests (writes, recall) never load a fact by id.
        if self._loaders is None:
            self._loaders = Loaders.build(self.services, self.principal)
        return self._loaders
