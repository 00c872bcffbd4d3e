"""A slot holds a bounded number of competing versions: past it a new version is refused on its
own (VALIDATION), while re-tellings of what the slot holds, and writes to other slots, land."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from graph_memory.container import build_services
from graph_memory.db import Database
from graph_memory.domain import Citation, EpisodeInput, FactInput, Outcome, Principal, Role
from graph_memory.embeddings import Embedder
from graph_memory.services.facts.results import ItemResult
from graph_memory.settings import Settings


def test_a_full_slot_refuses_a_new_version_and_keeps_its_siblings(
    settings: Settings, embedder: Embedder, tenant: str
) -> None:
    async def go() -> list[list[ItemResult]]:
        services = build_services(settings, Database.connect(settings.neo4j()), embedder)
        services.facts.max_slot_versions = 3
        agent = Principal(tenant, Role.AGENT, "k-test")
        try:
            [(ep, _)] = await services.episodes.record(
                agent,
                [
                    EpisodeInput(
                        user_id="alice",
                        session_id="s1",
                        started_at=None,
                        ended_at=None,
                        summary="Alice listed every city she lived in.",
                        outcome=Outcome.SUCCESS,
                        source="user",
                    )
                ],
            )
            assert ep is not None

            def lived(city: str, year: int, subject: str = "alice") -> FactInput:
                return FactInput(
                    subject,
                    "lives_in",
                    city,
                    (Citation(ep),),
                    source="user",
                    valid_from=datetime(year, 1, 1, tzinfo=UTC),
                )

            out = [
                await services.facts.assert_facts(
                    agent, [lived("Paris", 2010), lived("Rome", 2012), lived("Oslo", 2014)]
                ),
                # A fourth city is refused, and so is re-telling Rome (no longer current: a
                # new version); re-telling Oslo and another subject's slot land.
                await services.facts.assert_facts(
                    agent,
                    [
                        lived("Lima", 2016),
                        lived("Rome", 2012),
                        lived("Oslo", 2014),
                        lived("Lima", 2016, "bob"),
                    ],
                ),
            ]
            rome = out[0][1].fact_id
            assert rome is not None
            await services.facts.retract(agent, rome, "never lived there")
            # A retracted version no longer competes: the slot has room again.
            out.append(await services.facts.assert_facts(agent, [lived("Lima", 2016)]))
            return out
        finally:
            await services.db.close()

    first, second, third = asyncio.run(go())
    assert [r.ok for r in first] == [True, True, True]
    assert [r.ok for r in second] == [False, False, True, True]
    assert second[2].action != "created"
    assert (second[0].error_code, second[0].error_field) == ("VALIDATION", "object")
    assert "already holds 3 versions" in (second[0].error_message or "")
    assert [r.ok for r in third] == [True]
