"""Episodes store their speaker: the normalised label of a transcript turn ("Leo: Poor guy."
is leo's; domain.speaker_label), on every write path, and episodes recorded before speakers
were stored get theirs from a resumable backfill (services/store/speaker_backfill.py)."""

from __future__ import annotations

import asyncio
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.db import Database
from graph_memory.services.store.speaker_backfill import backfill_speakers
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode
from tests.integration.speaker_helpers import EMPTY_TURNS, EVIDENCE, record, session, speakers


def test_remember_stores_the_speaker_and_a_plain_summary_has_none(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    client.remember(episode("leo", summary="Mary-Jane O'Brien: the boiler is fixed now."))
    client.record_episode(**episode("leo", summary="10:30 call: the boiler is fixed now."))
    assert speakers(settings, tenant) == {
        "Mary-Jane O'Brien: the boiler is fixed now.": "mary-jane o'brien",
        "10:30 call: the boiler is fixed now.": None,
    }


def test_a_speaker_label_longer_than_a_name_is_recorded_without_a_speaker(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    # As the (tenant, speaker) index key, labels of thousands of letters were over Neo4j's
    # ~8 KB: INTERNAL, and the episode and its siblings were lost.
    hangul = "A" + "\uac00" * 2730 + ": hi there"
    dotted = "\u0130" * 3000 + ": hi there"  # 6000 bytes, 9000 once lower-cased
    out = client.record_episodes(
        [
            episode("leo", "sib1", summary="Leo: a good sibling about kayaking."),
            episode("leo", "sib2", summary=hangul),
            episode("leo", "sib3", summary=dotted),
        ]
    )
    assert [e["ok"] for e in out] == [True, True, True], out
    remembered = client.remember(episode("leo", "sib4", summary=dotted + " again"))
    assert remembered["episodeError"] is None
    assert speakers(settings, tenant) == {
        "Leo: a good sibling about kayaking.": "leo",
        hangul: None,
        dotted: None,
        dotted + " again": None,
    }


def _backfill(settings: Settings, tenant: str, **kw: Any) -> Any:
    async def go() -> Any:
        db = Database.connect(settings.neo4j())
        try:
            return await backfill_speakers(db, tenant=tenant, **kw)
        finally:
            await db.close()

    return asyncio.run(go())


def test_the_backfill_gives_old_episodes_their_speaker_and_resumes(
    client: GraphMemoryClient, settings: Settings, tenant: str
) -> None:
    lines = [*EMPTY_TURNS[:3], EVIDENCE, "a plain session summary of the call."]
    made = dict(zip(record(client, session("leo", "s4", lines)), lines, strict=True))
    # Written as a store before schema 130 wrote them: no speakers.
    bolt(settings, "MATCH (e:Episode {tenant: $t}) REMOVE e.speaker", {"t": tenant})
    assert set(speakers(settings, tenant).values()) == {None}
    try:
        first = _backfill(settings, tenant, batch=2, stop_after=1)
        assert (first.episodes, first.resumed) == (2, False)
        done_first = {made[i] for i in sorted(made)[:2]}  # the backfill walks ids in order
        assert {s for s, v in speakers(settings, tenant).items() if v} == done_first - {lines[4]}
        rest = _backfill(settings, tenant, batch=2)
        assert (rest.episodes, rest.resumed) == (5, True)
        expected = {line: "leo" for line in lines[:4]} | {lines[4]: None}
        assert speakers(settings, tenant) == expected
        again = _backfill(settings, tenant, batch=2)
        assert again.already_done and speakers(settings, tenant) == expected
    finally:
        bolt(settings, "MATCH (b:SpeakerBackfill {of: $t}) DELETE b", {"t": tenant})
