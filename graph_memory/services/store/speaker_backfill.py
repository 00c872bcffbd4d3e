"""Give episodes recorded before speakers were stored their speaker (domain.speaker_key).

Walks episodes in id order, a batch per transaction, and stores each one's speaker key by the
same Python rule the write path applies (a digest has none). Progress is recorded in the graph
with every batch, so an interrupted backfill resumes after the last batch it wrote; deriving a
speaker twice gives the same key, so a replayed batch is harmless, and episodes recorded while
it runs already carry theirs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graph_memory.db import Database, Tx
from graph_memory.domain import speaker_key
from graph_memory.repositories.speaker_backfill import SpeakerBackfillRepository as Repo

__all__ = ["RULE_VERSION", "SpeakerBackfillReport", "backfill_speakers"]

# Bumped when domain.speaker_label changes what it decides: every episode is derived again.
RULE_VERSION = 3  # 2: header words (Note:, Update:, Re:) are no speakers; 3: at most 64 chars
BATCH = 1000
_STORE = ""  # the marker of the store-wide run (a tenant id is never empty)


@dataclass
class SpeakerBackfillReport:
    episodes: int = 0
    speakers: int = 0
    resumed: bool = False
    already_done: bool = False


async def backfill_speakers(
    db: Database, *, tenant: str | None = None, batch: int = BATCH, stop_after: int | None = None
) -> SpeakerBackfillReport:
    """Backfill the store (``tenant`` None, as migrate does: once per rule version) or one
    tenant (a store loaded behind the service's back, or a repair). ``stop_after`` batches
    ends the run early, unfinished (for tests of the resume)."""
    mark = (RULE_VERSION, tenant if tenant is not None else _STORE)
    report = SpeakerBackfillReport()
    state = await Repo.state(db, *mark)
    if state is not None and state["done"]:
        report.already_done = True
        return report
    report.resumed = state is not None
    after = str(state["after"] or "") if state else ""
    report.episodes = int(state["episodes"] or 0) if state else 0
    batches = 0
    while stop_after is None or batches < stop_after:
        found = await Repo.batch(db, after, tenant, batch)
        rows: list[dict[str, Any]] = [
            {
                "id": r["id"],
                "tenant": r["tenant"],
                "speaker": None if r["digest"] else speaker_key(str(r["summary"] or "")),
            }
            for r in found
        ]
        last = str(found[-1]["id"]) if found else after
        total = report.episodes + len(rows)
        finished = len(found) < batch

        async def work(
            tx: Tx,
            rows: list[dict[str, Any]] = rows,
            last: str = last,
            n: int = total,
            finished: bool = finished,
        ) -> None:
            await Repo.apply(tx, rows, mark, last, n, done=finished)

        await db.write_tx(work)
        report.episodes = total
        report.speakers += sum(1 for r in rows if r["speaker"] is not None)
        after = last
        batches += 1
        if finished:
            break
    return report
