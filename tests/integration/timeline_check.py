"""The stored timeline of a tenant against the timeline recomputed from its versions."""

from __future__ import annotations

from graph_memory.db import Database, Tx
from graph_memory.repositories.timeline import TimelineRepository
from graph_memory.settings import Settings
from graph_memory.temporal import bitemporal, normalise


async def timeline_mismatches(settings: Settings, tenant: str) -> list[str]:
    """One line per slot whose stored segments differ from ``bitemporal(versions)``."""
    db = Database.connect(settings.neo4j())

    async def work(tx: Tx) -> list[str]:
        out: list[str] = []
        keys = await TimelineRepository.slots(tx, tenant)
        for start in range(0, len(keys), 500):
            for st in await TimelineRepository.stored(tx, tenant, keys[start : start + 500]):
                want = normalise(bitemporal(st.versions))
                got = normalise(st.segments)
                if want != got:
                    out.append(
                        f"{st.slot}: stored-only {sorted(got - want, key=repr)}, "
                        f"recomputed-only {sorted(want - got, key=repr)}"
                    )
        return out

    try:
        return await db.read_tx(work)
    finally:
        await db.close()
