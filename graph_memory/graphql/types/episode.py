"""Episodes and write-result types."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any

import strawberry

from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.convert import dt, encode_cursor

__all__ = ["Episode", "ItemError", "Outcome", "episode_from_record", "item_error"]


@strawberry.enum
class Outcome(Enum):
    SUCCESS = "success"
    ESCALATED = "escalated"
    ABANDONED = "abandoned"


@strawberry.type(description="A structured session summary: what happened.")
class Episode:
    id: strawberry.ID
    scope: str
    user_id: str
    session_id: str
    started_at: datetime | None
    ended_at: datetime | None
    summary: str
    outcome: Outcome
    topics: list[str]
    key_entities: list[str]
    source: str
    confidence: float
    recorded_at: datetime | None

    @strawberry.field(
        description="Pass the last episode's cursor as `after` to `episodes` for the next page."
    )
    def cursor(self) -> str:
        return encode_cursor(self.recorded_at, str(self.id))


@strawberry.type(description="Why one item of a batch was refused; its siblings still land.")
class ItemError:
    code: str
    message: str
    field: str | None


def item_error(err: GraphMemoryError | None) -> ItemError | None:
    """A batch item's refusal as every batch mutation reports it."""
    return ItemError(code=err.code, message=err.message, field=err.field) if err else None


def episode_from_record(r: dict[str, Any]) -> Episode:
    return Episode(
        id=strawberry.ID(r["id"]),
        scope=r["scope"],
        user_id=r["user_id"],
        session_id=r["session_id"],
        started_at=dt(r.get("started_at")),
        ended_at=dt(r.get("ended_at")),
        summary=r["summary"],
        outcome=Outcome(r["outcome"]),
        topics=list(r.get("topics") or []),
        key_entities=list(r.get("key_entities") or []),
        source=r.get("source") or "",
        confidence=float(r.get("confidence") or 0.0),
        recorded_at=dt(r.get("recorded_at")),
    )
