"""Write locks: per scope for ordinary writes, per tenant for changes that reach across.

Lock order, the same for every writer so none waits on another in a circle: the tenant lock
(only changes that register predicates or reach across scopes take it), then scope locks in
sorted order. The clock is read after the locks, so times follow commit order within a scope
(and so within each of its slots).
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_memory.db import Tx
from graph_memory.repositories._scope import require_tenant

__all__ = ["WriteLocks"]


class WriteLocks:
    @staticmethod
    async def tenant(tx: Tx, tenant: str) -> None:
        await tx.run("tenant.lock", {"tenant": require_tenant(tenant)})

    @staticmethod
    async def scopes(tx: Tx, tenant: str, scopes: Iterable[str]) -> None:
        ordered = sorted(set(scopes))
        if ordered:
            await tx.run("lock.scopes", {"tenant": require_tenant(tenant), "scopes": ordered})

    @classmethod
    async def facts(cls, tx: Tx, tenant: str, ids: Iterable[str]) -> None:
        """The scope locks of these versions (unknown ids lock nothing)."""
        wanted = sorted(set(ids))
        if wanted:
            rows = await tx.run(
                "lock.fact_scopes", {"tenant": require_tenant(tenant), "ids": wanted}
            )
            await cls.scopes(tx, tenant, [r["scope"] for r in rows])

    @staticmethod
    async def everything(tx: Tx, tenant: str) -> None:
        """The tenant lock and every scope lock: nothing else of the tenant writes meanwhile."""
        tenant = require_tenant(tenant)
        await tx.run("tenant.lock", {"tenant": tenant})
        await tx.run("lock.all_scopes", {"tenant": tenant})
