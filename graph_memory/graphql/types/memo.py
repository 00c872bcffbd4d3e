"""An event or todo extracted from a session (a memo): listed by ``memos``, and recalled
beside facts, episodes and procedures."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON

from graph_memory.graphql.convert import dt

__all__ = ["Memo", "memo_from_record"]


@strawberry.type(description="An event or todo extracted from a session.")
class Memo:
    id: strawberry.ID
    kind: str
    text: str
    scope: str
    status: str | None = strawberry.field(description="Todos: open | done.")
    at: datetime | None = strawberry.field(description="When it happens, or a todo's due time.")
    recorded_at: datetime | None
    closed_at: datetime | None
    closed_by: str | None
    extractor: str | None
    confidence: float
    score: float | None
    provenance: JSON = strawberry.field(description="Episodes (with turns) it rests on.")


def memo_from_record(r: dict[str, Any], provenance: list[Any], score: float | None) -> Memo:
    return Memo(
        id=strawberry.ID(r["id"]),
        kind=r["kind"],
        text=r["text"],
        scope=r["scope"],
        status=r.get("status"),
        at=dt(r.get("at")),
        recorded_at=dt(r.get("recorded_at")),
        closed_at=dt(r.get("closed_at")),
        closed_by=r.get("closed_by"),
        extractor=r.get("extractor"),
        confidence=float(r.get("confidence") or 0.0),
        score=round(score, 6) if score is not None else None,
        provenance=JSON([p for p in provenance if p]),
    )
