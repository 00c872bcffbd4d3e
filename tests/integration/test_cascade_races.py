"""A conclusion written while its premise changes is flagged either way: the conclusion's
writer takes the premise scope's lock as the premise's writer does, so it either lands first
(and the change flags it) or reads the premise changed (and is born needing verification)."""

from __future__ import annotations

import asyncio
from typing import Any

from graph_memory.container import Services, build_services
from graph_memory.db import Database, Tx
from graph_memory.domain import (
    Cardinality,
    Citation,
    FactInput,
    Principal,
    Role,
)
from graph_memory.embeddings import Embedder
from graph_memory.services.facts.reads import FactFilter
from graph_memory.settings import Settings
from tests.integration.conftest import record_episode_in_process


async def _episode(services: Services, who: Principal, session: str, scope: str) -> str:
    summary = f"Alice talked about where Acme is ({session})."
    return await record_episode_in_process(services, who, session, summary, scope=scope)


def test_a_conclusion_written_while_its_premise_is_retracted_is_flagged(
    settings: Settings, embedder: Embedder, tenant: str, monkeypatch: Any
) -> None:
    admin = Principal(tenant, Role.ADMIN, "k-test")

    async def go(services: Services) -> tuple[list[tuple[str, bool]], bool]:
        ep_t = await _episode(services, admin, "s0", "tenant")
        ep = await _episode(services, admin, "s1", "user:alice")
        [p] = await services.facts.assert_facts(
            admin,
            [
                FactInput(
                    "acme",
                    "hq_in",
                    "Paris",
                    (Citation(ep_t),),
                    scope="tenant",
                    cardinality=Cardinality.ONE,
                )
            ],
        )
        assert p.ok and p.fact_id is not None
        # The retraction held open just before its commit: its changes made, the premise's
        # conclusions (none yet) already flagged.
        held_open: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        release = asyncio.Event()
        seal = Tx.seal

        async def held(self: Tx) -> None:
            if not held_open.done() and self.stamp is not None:
                held_open.set_result(None)
                await release.wait()
            await seal(self)

        monkeypatch.setattr(Tx, "seal", held)
        retraction = asyncio.create_task(services.facts.retract(admin, p.fact_id, "wrong"))
        await held_open
        conclusion = asyncio.create_task(
            services.facts.assert_facts(
                admin,
                [
                    FactInput(
                        "alice",
                        "works_in",
                        "Paris",
                        (Citation(ep),),
                        depends_on=(p.fact_id,),
                        cardinality=Cardinality.ONE,
                    )
                ],
            )
        )
        await asyncio.sleep(0.5)
        waited = not conclusion.done()
        release.set()
        await retraction
        [d] = await conclusion
        assert d.ok
        works = FactFilter(scopes=("user:alice",), subject="alice", predicate="works_in")
        rows = await services.reads.list_facts(
            admin, works, as_of=None, valid_at=None, first=10, after=None
        )
        return [(r.object, r.needs_verification) for r in rows], waited

    async def main() -> tuple[list[tuple[str, bool]], bool]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        try:
            return await go(services)
        finally:
            await services.db.close()

    found, waited = asyncio.run(main())
    assert found == [("Paris", True)]
    assert waited, "the conclusion was written while its premise's retraction was in flight"
