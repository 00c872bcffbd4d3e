"""Session ingestion, the pure part: what a session is, what a job is, and their checks.

A session arrives as turns; a job is the unit of work a worker claims. Nothing here does I/O:
the service stores jobs (services/ingest/service.py), the worker runs them
(services/ingest/worker.py).
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from graph_memory.domain import (
    MAX_ID_BYTES,
    as_datetime,
    id_too_long,
    normalise_name,
    parse_scope,
    unstorable_time,
    utcnow,
)
from graph_memory.errors import InvalidInput, ValidationError

__all__ = [
    "LINE_BREAKING",
    "MAX_SESSION_CHARS",
    "MAX_TURNS",
    "MAX_TURN_CHARS",
    "ROLES",
    "IngestCounts",
    "IngestJob",
    "IngestOptions",
    "SessionInput",
    "ToolCall",
    "Turn",
    "check_session",
    "count_items",
    "keeps_anything",
    "request_hash",
    "turns_from_json",
    "turns_to_json",
]

ROLES = frozenset({"user", "assistant", "system", "tool"})
MAX_TURNS = 500
MAX_TURN_CHARS = 20_000
MAX_TOOL_CALLS = 50
# A whole session must fit a model's context with room for the answer (~100k tokens).
MAX_SESSION_CHARS = 400_000
_JOB_STATUSES = ("queued", "running", "done", "nothing", "failed")


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: str | None = None
    ok: bool | None = None


@dataclass(frozen=True)
class Turn:
    role: str
    content: str
    at: datetime | None
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class IngestOptions:
    # Where the session's memories go; defaults to the user's own scope.
    scope: str | None = None
    # The agent role procedures learned from this session's tool calls belong to.
    agent_role: str = "agent"
    # Keep the raw turns on the job after extraction (only if the tenant's policy allows).
    keep_turns: bool = False


@dataclass(frozen=True)
class SessionInput:
    user_id: str
    session_id: str
    started_at: datetime | None
    ended_at: datetime | None
    turns: tuple[Turn, ...]


# Outcomes that wrote nothing: refused (None), left alone, or found already stored.
_NOT_WRITTEN = (None, "skipped", "found")


@dataclass(frozen=True)
class IngestCounts:
    """What a session's run wrote, per kind, and how many items were refused."""

    written: int
    refused: int
    facts: int
    events: int
    todos: int
    procedures: int


def keeps_anything(items: Iterable[Mapping[str, Any]]) -> bool:
    """Whether the run leaves any of the session's memories stored: what makes a job 'done'
    rather than 'nothing'. Unlike the counts, a memory found already stored (a resumed job's
    episode and memos) counts: the session's memories exist and cite it."""
    return any(i["ok"] and i.get("action") not in (None, "skipped") for i in items)


def count_items(items: Iterable[Mapping[str, Any]]) -> IngestCounts:
    """The counts of a run's per-item outcomes. A memory counts once however many of the
    session's items landed on it: the model saying one fact twice (the second item only
    corroborates what the first wrote, by the same session) wrote one memory, not two."""
    listed = list(items)
    written: dict[str, set[str]] = {}
    for i in listed:
        if i["ok"] and i.get("action") not in _NOT_WRITTEN:
            # An item without an id (none today) still counts, as itself.
            written.setdefault(str(i["kind"]), set()).add(str(i.get("id") or f"#{i.get('index')}"))
    return IngestCounts(
        written=sum(len(ids) for ids in written.values()),
        refused=sum(1 for i in listed if not i["ok"]),
        facts=len(written.get("fact", ())),
        events=len(written.get("event", ())),
        todos=len(written.get("todo", ())),
        procedures=len(
            {str(i["id"]) for i in listed if i["kind"] == "procedure" and i["ok"] and i.get("id")}
        ),
    )


@dataclass(frozen=True)
class IngestJob:
    """A stored job as the API reports it (counts and items are filled as it runs)."""

    id: str
    tenant: str
    user_id: str
    session_id: str
    status: str
    attempts: int
    created_at: datetime | None
    finished_at: datetime | None
    scope: str
    turn_count: int
    extractor: str | None
    model: str | None
    prompt_tokens: int
    completion_tokens: int
    model_ms: float
    model_calls: int
    overhead_ms: float
    episode_id: str | None
    error_code: str | None
    error_message: str | None
    turns_kept: bool
    items: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> IngestJob:
        return cls(
            id=r["id"],
            tenant=r["tenant"],
            user_id=r["user_id"],
            session_id=r["session_id"],
            status=r["status"] if r.get("status") in _JOB_STATUSES else "queued",
            attempts=int(r.get("attempts") or 0),
            created_at=as_datetime(r.get("created_at")),
            finished_at=as_datetime(r.get("finished_at")),
            scope=r.get("scope") or f"user:{r['user_id']}",
            turn_count=int(r.get("turn_count") or 0),
            extractor=r.get("extractor"),
            model=r.get("model"),
            prompt_tokens=int(r.get("prompt_tokens") or 0),
            completion_tokens=int(r.get("completion_tokens") or 0),
            model_ms=float(r.get("model_ms") or 0.0),
            model_calls=int(r.get("model_calls") or 0),
            overhead_ms=float(r.get("overhead_ms") or 0.0),
            episode_id=r.get("episode_id"),
            error_code=r.get("error_code"),
            error_message=r.get("error_message"),
            turns_kept=r.get("turns_json") is not None and r.get("status") in ("done", "nothing"),
            items=tuple(json.loads(r["items_json"])) if r.get("items_json") else (),
        )


def _aware(value: datetime | None, name: str, problems: list[tuple[str, str]]) -> None:
    if value is None:
        return
    if value.tzinfo is None or value.utcoffset() is None:
        problems.append((name, f"must carry a timezone (UTC), got naive {value.isoformat()}"))
    elif (problem := unstorable_time(value)) is not None:
        problems.append((name, f"cannot be stored: {problem}"))


# Unicode categories that break a line or control a terminal: control characters, line and
# paragraph separators.
LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})


def _controlled(text: str) -> bool:
    """A control character or a line/paragraph separator: an id or a name shown to the model
    on one line could start a line of its own (a forged turn) with one."""
    return any(unicodedata.category(ch) in LINE_BREAKING for ch in text)


# How far past the service's clock a session's times may run: a conversation is submitted
# once it happened, so later than this it has not. A day, not minutes: a client's clock ahead
# of ours, or local times sent as UTC (up to 14 hours off), are mistakes of a finished session.
FUTURE_SKEW = timedelta(days=1)


def in_the_future(value: datetime | None, now: datetime | None = None) -> str | None:
    """Why a time a session or an episode says it happened cannot be (later than the service's
    clock plus FUTURE_SKEW), or None. An episode dated 2099 would be the latest said of every
    claim it supports for 70 years: each would win over anything told before then."""
    latest = (now or utcnow()) + FUTURE_SKEW
    if value is not None and value > latest:
        return f"is in the future (after {latest.isoformat()})"
    return None


def check_session(
    session: SessionInput, options: IngestOptions, now: datetime | None = None
) -> str:
    """Every problem of the session at once (InvalidInput, code VALIDATION); returns the scope.

    Times must be timezone-aware and not in the future (``now`` plus FUTURE_SKEW: what it
    yielded would be in force nowhere before then, its events found by no recall); turns in
    order within [startedAt, endedAt]; roles known.
    """
    now = now or utcnow()
    problems: list[tuple[str, str]] = []
    if not session.user_id.strip():
        problems.append(("userId", "is empty"))
    if not session.session_id.strip():
        problems.append(("sessionId", "is empty"))
    for field_name, ident in (("userId", session.user_id), ("sessionId", session.session_id)):
        if id_too_long(ident.strip()):
            problems.append((field_name, f"is longer than {MAX_ID_BYTES} bytes"))
        if _controlled(ident):
            problems.append((field_name, "contains a control character or line break"))
    for name, value in (("startedAt", session.started_at), ("endedAt", session.ended_at)):
        before = len(problems)
        _aware(value, name, problems)
        future = in_the_future(value, now) if len(problems) == before else None
        if future is not None:
            problems.append((name, future))
    started, ended = session.started_at, session.ended_at
    aware = not problems or all(p[0] not in ("startedAt", "endedAt") for p in problems)
    if aware and started is not None and ended is not None and ended < started:
        problems.append(("endedAt", "is before startedAt"))
    if not session.turns:
        problems.append(("turns", "a session needs at least one turn"))
    if len(session.turns) > MAX_TURNS:
        problems.append(("turns", f"{len(session.turns)} turns exceed the limit of {MAX_TURNS}"))
    # Everything the prompt carries counts: tool calls' names and arguments too (the model
    # reads them; left out, 20 calls of 10,000 characters a turn passed a 400,000 cap 4.5x).
    total = sum(
        len(t.content) + sum(len(c.name) + len(c.arguments or "") for c in t.tool_calls)
        for t in session.turns
    )
    if total > MAX_SESSION_CHARS:
        problems.append(
            ("turns", f"{total} characters in all exceed the limit of {MAX_SESSION_CHARS}")
        )
    previous: datetime | None = None
    for i, turn in enumerate(session.turns[:MAX_TURNS]):
        where = f"turns[{i}]"
        if turn.role not in ROLES:
            problems.append((f"{where}.role", f"unknown role {turn.role!r}; known {sorted(ROLES)}"))
        if not turn.content.strip() and not turn.tool_calls:
            problems.append((f"{where}.content", "is empty"))
        if len(turn.content) > MAX_TURN_CHARS:
            problems.append((f"{where}.content", f"is longer than {MAX_TURN_CHARS} characters"))
        if len(turn.tool_calls) > MAX_TOOL_CALLS:
            problems.append((f"{where}.toolCalls", f"more than {MAX_TOOL_CALLS} tool calls"))
        for j, call in enumerate(turn.tool_calls):
            if not call.name.strip():
                problems.append((f"{where}.toolCalls[{j}].name", "is empty"))
            elif _controlled(call.name):
                problems.append(
                    (f"{where}.toolCalls[{j}].name", "contains a control character or line break")
                )
        if turn.at is None:
            continue
        before = len(problems)
        _aware(turn.at, f"{where}.at", problems)
        if len(problems) > before:
            continue
        if aware and started is not None and turn.at < started:
            problems.append((f"{where}.at", "is before the session's startedAt"))
        if aware and ended is not None and turn.at > ended:
            problems.append((f"{where}.at", "is after the session's endedAt"))
        future = in_the_future(turn.at, now)
        if future is not None:
            problems.append((f"{where}.at", future))
        if previous is not None and turn.at < previous:
            problems.append((f"{where}.at", "is earlier than the turn before it"))
        previous = turn.at
    scope = options.scope or f"user:{session.user_id.strip()}"
    try:
        scope = parse_scope(scope)
    except ValidationError as e:
        problems.append(("options.scope", e.message))
    try:  # as the procedure it feeds will name it (before the model is paid for)
        normalise_name(options.agent_role, "agentRole")
    except ValidationError as e:
        problems.append(("options.agentRole", e.message))
    if problems:
        raise InvalidInput(problems)
    return scope


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat() if value is not None else None


def turns_to_json(turns: tuple[Turn, ...]) -> str:
    return json.dumps(
        [
            {
                "role": t.role,
                "content": t.content,
                "at": _iso(t.at),
                "tool_calls": [asdict(c) for c in t.tool_calls],
            }
            for t in turns
        ]
    )


def turns_from_json(text: str) -> tuple[Turn, ...]:
    return tuple(
        Turn(
            role=t["role"],
            content=t["content"],
            at=datetime.fromisoformat(t["at"]) if t.get("at") else None,
            tool_calls=tuple(ToolCall(**c) for c in t.get("tool_calls") or ()),
        )
        for t in json.loads(text)
    )


def request_hash(session: SessionInput, options: IngestOptions) -> str:
    """What makes two submissions the same: a replay must match the first byte for byte."""
    canonical = json.dumps(
        {
            "started_at": _iso(session.started_at),
            "ended_at": _iso(session.ended_at),
            "turns": json.loads(turns_to_json(session.turns)),
            "options": asdict(options),
        },
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()
