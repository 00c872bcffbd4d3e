"""Transcript turns shared by the speaker tests (not a test module)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.client import GraphMemoryClient
from graph_memory.settings import Settings
from tests.integration.conftest import bolt, episode

T0 = datetime(2024, 3, 2, 18, 0, tzinfo=UTC)
EMPTY_TURNS = [
    "Leo: Poor guy.",
    "Leo: That's wild.",
    "Leo: Fair point.",
    "Leo: Still counts.",
    "Leo: See? Told you.",
    "Leo: Same here, honestly.",
]
EVIDENCE = "Leo: I passed my lieutenant exam, so the fire department promoted me."


def session(user: str, session: str, lines: list[str]) -> list[dict[str, Any]]:
    return [
        episode(
            user,
            session,
            summary=line,
            startedAt=T0 + timedelta(minutes=i),
            endedAt=T0 + timedelta(minutes=i),
            topics=[],
        )
        for i, line in enumerate(lines)
    ]


def record(client: GraphMemoryClient, turns: list[dict[str, Any]]) -> list[str]:
    got = client.record_episodes(turns)
    assert all(r["ok"] for r in got), got
    return [str(r["id"]) for r in got]


def speakers(settings: Settings, tenant: str) -> dict[str, str | None]:
    rows = bolt(
        settings,
        "MATCH (e:Episode {tenant: $t}) RETURN e.summary AS s, e.speaker AS speaker",
        {"t": tenant},
    )
    return {r["s"]: r["speaker"] for r in rows}
