"""Per-request context: the caller, the services and DataLoaders built for this request only."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from strawberry.dataloader import DataLoader

from graph_memory.domain import Principal, Role
from graph_memory.errors import Forbidden

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["Context", "require_role"]


def require_role(principal: Principal, *roles: Role) -> None:
    if principal.role not in roles:
        raise Forbidden(
            f"role {principal.role.value} may not do this (needs {[r.value for r in roles]})"
        )


@dataclass
class Context:
    principal: Principal
    services: Services
    request: Any = None
    response: Any = None
    loaders: dict[str, DataLoader[Any, Any]] = field(default_factory=dict)

    def loader(self, name: str) -> DataLoader[Any, Any]:
        if name not in self.loaders:
            self.loaders[name] = DataLoader(load_fn=self._load_fn(name))
        return self.loaders[name]

    def _load_fn(self, name: str) -> Any:
        s = self.services
        tenant_principal = self.principal

        async def provenance(ids: Sequence[str]) -> list[Any]:
            found = await s.fact_repo.provenance(tenant_principal.tenant, list(ids))
            return [found.get(i, []) for i in ids]

        async def facts(ids: Sequence[str]) -> list[Any]:
            found = await s.fact_repo.get(tenant_principal.tenant, list(ids))
            return [found.get(i) for i in ids]

        async def deps(ids: Sequence[str]) -> list[Any]:
            found = await s.fact_repo.dependencies(tenant_principal.tenant, list(ids))
            return [found.get(i, {"premises": [], "dependents": []}) for i in ids]

        async def episodes(ids: Sequence[str]) -> list[Any]:
            found = await s.episodes.get(tenant_principal, list(ids))
            return [found.get(i) for i in ids]

        async def entities(ids: Sequence[str]) -> list[Any]:
            found = await s.entity_repo.get(tenant_principal.tenant, list(ids))
            return [found.get(i) for i in ids]

        return {
            "provenance": provenance,
            "facts": facts,
            "deps": deps,
            "episodes": episodes,
            "entities": entities,
        }[name]
