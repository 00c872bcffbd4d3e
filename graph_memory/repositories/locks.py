"""Write locks: per scope for ordinary writes, per tenant for changes that reach across.

Lock order, the same for every writer so none waits on another in a circle: the tenant lock
(only changes that register predicates or reach across scopes take it), then scope locks in
sorted order. The clock is read after the locks, so times follow commit order within a scope
(and so within each of its slots), and it follows the clock the scope's last writer stamped
on its lock (Tx.clock), so it does so across service processes whose clocks differ too. A
lock the transaction already holds is not taken again (Tx.held): one transaction may write
through several services (a session's ingestion), and re-locking a held lock node can
deadlock against a writer already waiting for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from graph_memory.db import Tx
from graph_memory.repositories._scope import require_tenant

__all__ = ["WriteLocks"]


class WriteLocks:
    @staticmethod
    async def tenant(tx: Tx, tenant: str) -> None:
        key = ("tenant", require_tenant(tenant))
        if key not in tx.held:
            await tx.run("tenant.lock", {"tenant": tenant})
            tx.held.add(key)

    @staticmethod
    def wanted(tx: Tx, tenant: str, scopes: Iterable[str]) -> list[str]:
        """The scope locks to take, sorted: ``scopes`` and those an earlier attempt of the
        transaction took too late (Tx.early), less those it holds."""
        more = {s for t, s in tx.early if t == tenant}
        tx.early -= {(tenant, s) for s in more}
        if ("all_scopes", tenant) in tx.held:
            return []  # every scope lock of the tenant is held already (``everything``)
        return sorted(s for s in set(scopes) | more if ("scope", tenant, s) not in tx.held)

    @classmethod
    async def scopes(cls, tx: Tx, tenant: str, scopes: Iterable[str]) -> None:
        tenant = require_tenant(tenant)
        ordered = cls.wanted(tx, tenant, scopes)
        if ordered:
            rows = await tx.run("lock.scopes", {"tenant": tenant, "scopes": ordered})
            tx.held.update(("scope", tenant, s) for s in ordered)
            tx.locked(rows[0]["lock_stamp"], [(tenant, s) for s in ordered], rows[0]["server_now"])

    @classmethod
    async def memories(cls, tx: Tx, tenant: str, ids: Iterable[str]) -> None:
        """The scope locks of these facts and episodes (unknown ids lock nothing)."""
        wanted = sorted(set(ids))
        if wanted:
            rows = await tx.run(
                "lock.memory_scopes", {"tenant": require_tenant(tenant), "ids": wanted}
            )
            await cls.scopes(tx, tenant, [r["scope"] for r in rows])

    # A change to named fact versions locks their scopes.
    facts = memories

    @staticmethod
    async def everything(tx: Tx, tenant: str) -> None:
        """The tenant lock and every scope lock: nothing else of the tenant writes meanwhile."""
        tenant = require_tenant(tenant)
        await WriteLocks.tenant(tx, tenant)
        key = ("all_scopes", tenant)
        if key not in tx.held:
            rows = await tx.run("lock.all_scopes", {"tenant": tenant})
            tx.held.add(key)
            tx.locked(rows[0]["lock_stamp"], server_now=rows[0]["server_now"])
