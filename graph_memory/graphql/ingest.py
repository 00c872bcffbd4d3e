"""Session ingestion over GraphQL: ingestSession, ingestJob, and the events/todos it writes."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any, TypeVar

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from graph_memory.domain import Role
from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.context import require_role
from graph_memory.graphql.convert import dt
from graph_memory.graphql.types.episode import ItemError
from graph_memory.graphql.types.memo import Memo
from graph_memory.graphql.types.memo import memo_from_record as _memo
from graph_memory.ingestion import IngestJob as DJob
from graph_memory.ingestion import IngestOptions, SessionInput, ToolCall, Turn, count_items

__all__ = ["IngestMutation", "IngestQuery"]

T = TypeVar("T")
_WRITERS = (Role.AGENT, Role.ADMIN)
_READERS = (Role.AGENT, Role.ANALYST, Role.ADMIN)


def _need(service: T | None, name: str) -> T:
    if service is None:  # a container built without ingestion: a wiring bug
        raise GraphMemoryError(f"the {name} service is not configured")
    return service


@strawberry.input
class ToolCallInput:
    name: str
    arguments: str | None = strawberry.field(default=None, description="As the agent sent it.")
    ok: bool | None = strawberry.field(default=None, description="Whether the call succeeded.")


@strawberry.input
class TurnInput:
    role: str = strawberry.field(description="user | assistant | system | tool")
    content: str
    at: datetime | None = None
    tool_calls: list[ToolCallInput] = strawberry.field(default_factory=list)


@strawberry.input(name="SessionInput", description="A finished session, as its turns.")
class SessionInputGQL:
    user_id: str
    session_id: str
    started_at: datetime | None = None
    ended_at: datetime | None = None
    turns: list[TurnInput]


@strawberry.input
class IngestOptionsInput:
    scope: str | None = strawberry.field(default=None, description="Defaults to user:<userId>.")
    agent_role: str = strawberry.field(
        default="agent", description="The role procedures learned from tool calls belong to."
    )


@strawberry.enum
class IngestStatus(Enum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    NOTHING = "nothing"
    FAILED = "failed"


@strawberry.type(description="What ingestion did with one extracted item.")
class IngestItem:
    kind: str = strawberry.field(description="episode | fact | event | todo | procedure")
    index: int = strawberry.field(description="Position among the model's items of that kind.")
    ok: bool
    action: str | None = strawberry.field(
        description="created | superseded | corroborated | recorded | found | *_recorded | skipped"
    )
    id: strawberry.ID | None
    status: str | None
    text: str | None
    turns: list[int] = strawberry.field(description="The turns (0-based) it rests on.")
    detail: JSON | None = strawberry.field(description="Entity resolution, proposed cardinality.")
    error: ItemError | None


@strawberry.type
class IngestCounts:
    written: int
    refused: int
    facts: int
    events: int
    todos: int
    procedures: int


@strawberry.type
class TokenUse:
    prompt: int
    completion: int
    total: int


@strawberry.type(description="One session's ingestion: queued, run once by a worker, reported.")
class IngestJob:
    id: strawberry.ID
    user_id: str
    session_id: str
    scope: str
    status: IngestStatus
    attempts: int = strawberry.field(
        description="Runs of the job: each claim by a worker (a retry after a failure or a "
        "lost lease is another); modelCalls counts the requests to the model."
    )
    created_at: datetime | None
    finished_at: datetime | None
    turn_count: int
    turns_kept: bool
    extractor: str | None = strawberry.field(description="Prompt/version id of the extractor.")
    model: str | None
    episode_id: strawberry.ID | None
    tokens: TokenUse
    model_ms: float = strawberry.field(description="Time spent waiting for the model.")
    model_calls: int = strawberry.field(
        description="Requests made to the model over every run, retries of a malformed or "
        "failed answer included."
    )
    overhead_ms: float = strawberry.field(description="Our time for the run, model excluded.")
    counts: IngestCounts
    items: list[IngestItem]
    error: ItemError | None = strawberry.field(
        description="Why it failed, or (queued again) why its last attempt failed."
    )


_DETAIL_KEYS = ("subject_resolved", "object_resolved", "cardinality_proposed", "reason")


def _item(raw: dict[str, Any]) -> IngestItem:
    detail = {k: raw[k] for k in _DETAIL_KEYS if raw.get(k) is not None}
    return IngestItem(
        kind=str(raw["kind"]),
        index=int(raw.get("index") or 0),
        ok=bool(raw["ok"]),
        action=raw.get("action"),
        id=strawberry.ID(raw["id"]) if raw.get("id") else None,
        status=raw.get("status"),
        text=raw.get("text"),
        turns=[int(t) for t in raw.get("turns") or []],
        detail=JSON(detail) if detail else None,
        error=ItemError(code=raw["code"], message=raw.get("message") or "", field=raw.get("field"))
        if not raw["ok"]
        else None,
    )


def job_type(j: DJob) -> IngestJob:
    items = [_item(i) for i in j.items]
    counts = count_items(j.items)
    return IngestJob(
        id=strawberry.ID(j.id),
        user_id=j.user_id,
        session_id=j.session_id,
        scope=j.scope,
        status=IngestStatus(j.status),
        attempts=j.attempts,
        created_at=dt(j.created_at),
        finished_at=dt(j.finished_at),
        turn_count=j.turn_count,
        turns_kept=j.turns_kept,
        extractor=j.extractor,
        model=j.model,
        episode_id=strawberry.ID(j.episode_id) if j.episode_id else None,
        tokens=TokenUse(
            prompt=j.prompt_tokens,
            completion=j.completion_tokens,
            total=j.prompt_tokens + j.completion_tokens,
        ),
        model_ms=j.model_ms,
        model_calls=j.model_calls,
        overhead_ms=j.overhead_ms,
        counts=IngestCounts(
            written=counts.written,
            refused=counts.refused,
            facts=counts.facts,
            events=counts.events,
            todos=counts.todos,
            procedures=counts.procedures,
        ),
        items=items,
        error=ItemError(code=j.error_code, message=j.error_message or "", field=None)
        if j.error_code and j.status in ("failed", "queued")  # queued: its last attempt failed
        else None,
    )


@strawberry.type
class IngestSubmission:
    job: IngestJob
    created: bool = strawberry.field(description="False: this session was already submitted.")


def _session(s: SessionInputGQL) -> SessionInput:
    return SessionInput(
        user_id=s.user_id,
        session_id=s.session_id,
        started_at=s.started_at,
        ended_at=s.ended_at,
        turns=tuple(
            Turn(
                role=t.role,
                content=t.content,
                at=t.at,
                tool_calls=tuple(ToolCall(c.name, c.arguments, c.ok) for c in t.tool_calls),
            )
            for t in s.turns
        ),
    )


@strawberry.type
class IngestMutation:
    @strawberry.mutation(
        description="Queue a finished session for extraction; returns its job at once. One job "
        "per (user, session). Errors: LLM_NOT_CONFIGURED, VALIDATION (extensions.problems lists "
        "every problem), CONFLICT (same session, other content)."
    )
    async def ingest_session(
        self,
        info: Info[Any, None],
        session: SessionInputGQL,
        options: IngestOptionsInput | None = None,
    ) -> IngestSubmission:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)
        opts = options or IngestOptionsInput()
        sub = await _need(ctx.services.ingest, "ingest").submit(
            ctx.principal,
            _session(session),
            IngestOptions(scope=opts.scope, agent_role=opts.agent_role),
        )
        return IngestSubmission(job=job_type(sub.job), created=sub.created)

    @strawberry.mutation(description="Close a todo: it stays in memory as done. Audited.")
    async def close_todo(
        self, info: Info[Any, None], id: strawberry.ID, reason: str | None = None
    ) -> Memo:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)
        memos = _need(ctx.services.memos, "memo")
        memo, provenance = await memos.close_todo(ctx.principal, str(id), reason)
        return _memo(memo, provenance, None)


@strawberry.type(description="Where in a conversation a fact was found.")
class TurnCitation:
    fact_id: strawberry.ID
    episode_id: strawberry.ID
    session_id: str
    user_id: str
    turns: list[int] = strawberry.field(description="0-based turns of that session.")
    extractor: str | None
    quotes: list[str] | None = strawberry.field(
        description="The turns' words, when the tenant keeps raw turns (keepRawTurns)."
    )


@strawberry.type
class IngestQuery:
    @strawberry.field(description="How an ingest job went: status, counts, tokens, items.")
    async def ingest_job(self, info: Info[Any, None], id: strawberry.ID) -> IngestJob:
        ctx = info.context
        require_role(ctx.principal, *_READERS)
        return job_type(await _need(ctx.services.ingest, "ingest").get(ctx.principal, str(id)))

    @strawberry.field(
        description="The conversation turns facts written by ingestion rest on (up to 100)."
    )
    async def fact_citations(
        self, info: Info[Any, None], ids: list[strawberry.ID], scopes: list[str]
    ) -> list[TurnCitation]:
        ctx = info.context
        require_role(ctx.principal, *_READERS)
        rows = await _need(ctx.services.ingest, "ingest").fact_citations(
            ctx.principal, scopes, [str(i) for i in ids]
        )
        return [
            TurnCitation(
                fact_id=strawberry.ID(r.fact_id),
                episode_id=strawberry.ID(r.episode_id),
                session_id=r.session_id,
                user_id=r.user_id,
                turns=list(r.turns),
                extractor=r.extractor,
                quotes=list(r.quotes) if r.quotes is not None else None,
            )
            for r in rows
        ]

    @strawberry.field(
        description="Events and todos in scope: newest first, or best matching `query`. "
        "Todos default to open ones; expired events are not served."
    )
    async def memos(
        self,
        info: Info[Any, None],
        scopes: list[str],
        kinds: list[str] | None = None,
        statuses: list[str] | None = None,
        query: str | None = None,
        first: int = 20,
    ) -> list[Memo]:
        ctx = info.context
        require_role(ctx.principal, *_READERS)
        rows = await _need(ctx.services.memos, "memo").list(
            ctx.principal, scopes, kinds=kinds, statuses=statuses, query=query, limit=first
        )
        return [_memo(m, p, s) for m, p, s in rows]
