"""What a session's write is made of: the job it belongs to, the plan checked and embedded
before its transaction (services/ingest/apply.py) and the per-item outcomes it reports."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graph_memory.domain import FactInput, Principal
from graph_memory.embeddings import Embedder
from graph_memory.errors import GraphMemoryError
from graph_memory.ingestion import keeps_anything
from graph_memory.services.facts.writes import PreparedBatch
from graph_memory.services.ingest.extraction_schema import FactOut
from graph_memory.services.ingest.memos import PreparedMemos
from graph_memory.services.procedures.practice import PracticePlan

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = [
    "Ahead",
    "Applied",
    "FactPlan",
    "JobScope",
    "SessionPlan",
    "SessionVectors",
    "drop_vectors",
    "embed_plan",
]


@dataclass(frozen=True)
class JobScope:
    job_id: str
    principal: Principal
    scope: str
    agent_role: str
    extractor: str
    attempt: int = 1


@dataclass
class Applied:
    episode_id: str | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    # Per fact written: its id and the turns its evidence rests on (tagged at completion).
    fact_tags: list[dict[str, Any]] = field(default_factory=list)
    # Written by the completion too (ingest.complete_job): the session's audit events (the
    # episode's and the memos'; facts record theirs) and the vectors of what it created,
    # {id, embedding} rows under "episodes", "facts" and "memos".
    events: list[dict[str, Any]] = field(default_factory=list)
    vectors: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _tagged: dict[str, int] = field(default_factory=dict, repr=False)

    def tag(self, fact_id: str, turns: Iterable[int]) -> None:
        """The fact rests on these turns too: two items of one session that land on one fact
        (told twice) cite the union of their turns, not the last item's."""
        at = self._tagged.get(fact_id)
        if at is None:
            self._tagged[fact_id] = len(self.fact_tags)
            self.fact_tags.append({"fact_id": fact_id, "turns": sorted(set(turns))})
        else:
            tag = self.fact_tags[at]
            tag["turns"] = sorted({*tag["turns"], *turns})

    def add(self, kind: str, index: int, **kw: Any) -> None:
        err: GraphMemoryError | None = kw.pop("error", None)
        item: dict[str, Any] = {"kind": kind, "index": index, "ok": err is None, **kw}
        if err is not None:
            item.update(code=err.code, message=err.message, field=err.field)
        self.items.append(item)

    @property
    def kept(self) -> bool:
        """Any of the session's memories stored (ingestion.keeps_anything): 'done', not
        'nothing'."""
        return keeps_anything(self.items)


@dataclass
class FactPlan:
    """The session's facts after the gate: the FactInputs, what the report says of each
    (index, the model's item, resolution details), and the prepared batch (the gate's and
    the citation scopes' verdicts; None when no fact came through the model's checks)."""

    inputs: list[FactInput]
    meta: list[tuple[int, FactOut, dict[str, Any]]]
    batch: PreparedBatch | None


@dataclass(frozen=True)
class SessionVectors:
    """The vectors of the session's texts, by what they belong to: an episode row's id, a
    fact's index in the batch, a memo row's id, the procedure's intent."""

    episodes: dict[str, list[float]] = field(default_factory=dict)
    facts: dict[int, list[float]] = field(default_factory=dict)
    memos: dict[str, list[float]] = field(default_factory=dict)
    practice: list[float] | None = None


@dataclass
class SessionPlan:
    """Everything the session's write transaction needs, decided beforehand; its vectors
    are still being computed when the transaction begins (``vectors``, see
    services/ingest/session_tx.py). The rows keep ``embedding`` None."""

    job: JobScope
    policy: Any
    episode_id: str
    episode_rows: list[dict[str, Any]]  # empty: a resumed job found its episode
    episode_text: str
    episode_action: str
    facts: FactPlan
    memos: PreparedMemos | None
    memo_where: list[tuple[str, int]]
    practice: PracticePlan | None
    practice_text: str | None
    # Outcomes decided before the write (bad items), per kind as the report lists them.
    fact_refused: Applied
    memo_refused: Applied
    vectors: asyncio.Future[SessionVectors] | None = None


class Ahead:
    """The session's texts embedded ahead, in the embedder's thread, while the session's reads
    (entity resolution, the write gate's, the procedure's) run: the texts the session will
    most likely write are known as soon as the model answers. Whatever the reads changed (a
    name resolved to its stored spelling, the procedure's text) is embedded after them."""

    def __init__(self, embedder: Embedder | None, texts: Iterable[str]) -> None:
        self._embedder = embedder
        self._texts = list(dict.fromkeys(texts))
        self._task: asyncio.Future[list[list[float]]] | None = None
        if embedder is not None and self._texts:
            self._task = asyncio.ensure_future(embedder.embed(self._texts))

    async def vectors(self, texts: list[str]) -> list[list[float]]:
        """One vector per text, in order: those embedded ahead, the rest now."""
        assert self._embedder is not None
        ready: dict[str, list[float]] = {}
        if self._task is not None:
            ready = dict(zip(self._texts, await self._task, strict=True))
        missing = [t for t in dict.fromkeys(texts) if t not in ready]
        if missing:
            ready.update(zip(missing, await self._embedder.embed(missing), strict=True))
        return [ready[t] for t in texts]

    def close(self) -> None:
        """Nothing is to be written after all (or the preparation failed): drop the work.
        Not awaited, so a cancellation of the caller is never swallowed here; a failure of
        the dropped work is retrieved (and so not reported as never retrieved)."""
        if self._task is not None:
            self._task.cancel()
            self._task.add_done_callback(_retrieved)


def _retrieved(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def embed_plan(services: Services, plan: SessionPlan, ahead: Ahead) -> SessionVectors:
    """Every text of the session embedded: the episode, its facts, memos and procedure intent
    (most of them ahead, see ``Ahead``, which is closed when done)."""
    try:
        if services.embedder is None:
            return SessionVectors()
        checked = plan.facts.batch.checked if plan.facts.batch is not None else {}
        memo_ids = [str(r["id"]) for r in plan.memos.rows] if plan.memos is not None else []
        texts = [r["text"] for r in plan.episode_rows] + [c.text for c in checked.values()]
        texts += plan.memos.texts if plan.memos is not None else []
        if plan.practice_text is not None:
            texts.append(plan.practice_text)
        if not texts:
            return SessionVectors()
        vectors = iter(await ahead.vectors(texts))
        return SessionVectors(
            episodes={str(r["id"]): next(vectors) for r in plan.episode_rows},
            facts={i: next(vectors) for i in checked},
            memos={m: next(vectors) for m in memo_ids},
            practice=next(vectors) if plan.practice_text is not None else None,
        )
    finally:
        ahead.close()


def drop_vectors(vectors: asyncio.Future[SessionVectors] | None) -> None:
    """The session's write is over (or never began): stop its embedding if it still runs,
    and retrieve a failure nobody awaited (not reported as never retrieved)."""
    if vectors is None:
        return
    vectors.cancel()
    vectors.add_done_callback(_retrieved)
