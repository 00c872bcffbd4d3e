"""What counts as a retrieval (salience, decay): a read now, or as of a moment a client's
clock may call now; not a read about the past, an audit of what was answerable then."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, cast

from graph_memory.domain import utcnow
from graph_memory.services.recall.bookkeeping import RetrievalBookkeeper
from graph_memory.services.recall.ranking import Scored
from graph_memory.services.recall.service import AUDIT_READ, RecallService


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[list[tuple[str, str]]] = []

    def record(self, tenant: str, items: list[tuple[str, str]], at: datetime) -> None:
        self.seen.append(items)


def _item() -> Scored:
    return Scored("fact", "fact_1", {}, 0.5, 0.5, 0.5, 0.5, 0.0, 0.5, None)


def test_a_read_about_the_past_is_not_counted_as_a_retrieval() -> None:
    recorder = _Recorder()
    service = RecallService(
        cast(Any, None), cast(Any, None), cast(Any, None), cast(RetrievalBookkeeper, recorder)
    )
    service.note_retrieved("t", [_item()])
    service.note_retrieved("t", [_item()], utcnow() - timedelta(seconds=5))  # a client's now
    service.note_retrieved("t", [_item()], utcnow() - AUDIT_READ - timedelta(seconds=1))
    service.note_retrieved("t", [_item()], utcnow() - timedelta(days=30))
    assert len(recorder.seen) == 2
