"""`graph-memory mcp`: the memory as MCP tools (official `mcp` SDK), over stdio or streamable
HTTP.

The tools are thin: each one is one GraphQL call to a running graph_memory service,
made with the credential the server is bound to (``--api-key`` / ``GRAPH_MEMORY_API_KEY``).
The service stays the only place that knows tenants and roles, so an MCP client can do exactly
what its key may do, no more (``forget`` with an agent key is refused by the service and
reported as a tool error). Over HTTP a request's own credential (``Authorization: Bearer`` or
``X-Api-Key``, as the service reads them), when present, is used instead of the bound key, so
one MCP endpoint can serve several agents; a credential header in another form is refused.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from pydantic import Field

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClientError
from graph_memory.credentials import CredentialRefused, credential_of
from graph_memory.integrations.mcp_args import (
    AsOf,
    EndedAt,
    FactIn,
    Idempotency,
    Outcome,
    Query,
    RecallK,
    Scope,
    Scopes,
    SessionId,
    Source,
    StartedAt,
    TokenBudget,
    ToolCallIn,
    Topics,
    TurnIn,
    UserFilter,
    UserId,
    ValidAt,
)
from graph_memory.integrations.mcp_errors import GraphMemoryMCP

__all__ = ["FactIn", "McpConfig", "ToolCallIn", "TurnIn", "build_server"]

_INSTRUCTIONS = """\
Long-term memory for this agent (graph_memory). Scopes name whose memory it is:
"user:<id>" (one user's), "team:<id>", "tenant" (shared by everyone on this key's tenant).
Call `context` or `recall` before answering about a user; call `remember` after a session
with a ~3 sentence summary and the facts it established (subject, predicate, object).
`history` shows how a fact changed over time; `forget` erases a user (admin keys only).
`ingest` hands over a finished conversation's raw turns for extraction (`ingest_status`)."""


_INGEST = """
mutation($s: SessionInput!, $o: IngestOptionsInput) {
  ingestSession(session: $s, options: $o) { created job { id status } }
}"""
_INGEST_JOB = """
query($id: ID!) {
  ingestJob(id: $id) {
    id status attempts episodeId
    counts { written refused facts events todos procedures }
    items { kind ok action id status text error { code message } }
    error { code message }
  }
}"""


def _turn(t: TurnIn) -> dict[str, Any]:
    out: dict[str, Any] = {"role": t.role, "content": t.content}
    if t.at is not None:
        out["at"] = t.at.isoformat()
    if t.tool_calls:
        out["toolCalls"] = [c.model_dump(exclude_none=True) for c in t.tool_calls]
    return out


@dataclass(frozen=True)
class McpConfig:
    url: str
    api_key: str | None
    # The session facts are counted in when the caller names none: one per server process,
    # so repeated `remember` calls of one conversation do not corroborate each other.
    session_id: str = ""
    host: str = "127.0.0.1"
    port: int = 8001
    path: str = "/mcp"


def _credential_of(ctx: Context[Any, Any, Any] | None) -> str | None:
    """The key the HTTP request carries, in any form the service accepts; None over stdio or
    without a credential header. One in another form is refused, never read as "none" (which
    would run the call as the bound key); McpBodyGuard answers it 401 before it gets here."""
    request = getattr(ctx.request_context, "request", None) if ctx is not None else None
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    try:
        return credential_of(headers.raw)
    except CredentialRefused as e:
        raise ToolError(f"{e.code}: {e}") from None


def _default_scopes(user_id: str | None, scopes: list[str] | None) -> list[str]:
    # Only scopes left out default; an empty list is the service's VALIDATION (as over
    # GraphQL), not a read of scopes the caller did not ask for.
    if scopes is not None:
        return scopes
    return [f"user:{user_id}", "tenant"] if user_id else ["tenant"]


def _fact_payload(f: FactIn, source: str) -> dict[str, Any]:
    # No `episodes`: the remember mutation makes each fact cite the episode it records.
    out: dict[str, Any] = {
        "subject": f.subject,
        "predicate": f.predicate,
        "object": f.object,
        "source": f.source or source,
    }
    for key, value in (
        ("validFrom", f.valid_from),
        ("validTo", f.valid_to),
        ("scope", f.scope),
        ("cardinality", f.cardinality),
    ):
        if value is not None:
            out[key] = value
    return out


def _recall_items(result: dict[str, Any]) -> list[dict[str, Any]]:
    items = []
    for it in result["items"]:
        fact = it.get("fact") or {}
        items.append(
            {
                "id": it["id"],
                "kind": it["kind"],
                "text": it["text"],
                "score": it["score"]["total"],
                "confidence": fact.get("confidence"),
                "validFrom": fact.get("validFrom"),
                "episodes": [e["episodeId"] for e in it["provenance"]["episodes"]],
            }
        )
    return items


def build_server(config: McpConfig) -> FastMCP:
    """The MCP server and its tools, bound to ``config``'s service and credential."""
    default_session = config.session_id or f"mcp-{uuid.uuid4().hex[:12]}"
    mcp = GraphMemoryMCP(
        config.url,
        "graph-memory",
        instructions=_INSTRUCTIONS,
        host=config.host,
        port=config.port,
        streamable_http_path=config.path,
    )

    @asynccontextmanager
    async def client_for(ctx: Context[Any, Any, Any] | None) -> AsyncIterator[Any]:
        # A client per call: the HTTP transport runs each MCP session in its own task group,
        # and a shared connection pool would outlive the session that opened it.
        key = _credential_of(ctx) or config.api_key
        if key is None:
            raise ToolError(
                "UNAUTHENTICATED: no credential: start `graph-memory mcp` with --api-key (or "
                "GRAPH_MEMORY_API_KEY), or send 'Authorization: Bearer <key>' or "
                "'X-Api-Key: <key>'"
            )
        async with AsyncGraphMemoryClient(config.url, key) as c:
            yield c

    @mcp.tool()
    async def remember(
        user_id: UserId,
        summary: Annotated[str, Field(description="what happened, in ~3 sentences")],
        facts: Annotated[
            list[FactIn] | None,
            Field(description="the facts the session established; each cites its episode"),
        ] = None,
        session_id: SessionId = None,
        outcome: Outcome = "SUCCESS",
        source: Source = "user",
        topics: Topics = None,
        started_at: StartedAt = None,
        ended_at: EndedAt = None,
        scope: Scope = None,
        idempotency_key: Idempotency = None,
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Remember what happened in a session: records the episode (summary of ~3 sentences,
        scope default user:<user_id>) and the facts it established, each citing it, in one
        call: a refused episode or batch writes nothing. A fact with a new object for a
        single-valued predicate supersedes the old one (history keeps it); confidence is
        derived from the evidence. Each fact reports its own result: a bad one is refused
        with its error code and the others land. Give an idempotency_key (unique per
        session's remember) to make a retry answer as the first call instead of writing
        again."""
        episode: dict[str, Any] = {
            "userId": user_id,
            "sessionId": session_id or default_session,
            "summary": summary,
            "outcome": outcome,
            "source": source,
            "topics": topics or [],
        }
        for key, value in (("startedAt", started_at), ("endedAt", ended_at), ("scope", scope)):
            if value is not None:
                episode[key] = value
        payload = [_fact_payload(f, source) for f in facts or []]
        async with client_for(ctx) as c:
            out = await c.remember(episode, payload, idempotency_key)
        refused = out["episodeError"]
        if refused is not None:
            raise ToolError(f"{refused['code']}: {refused['message']}")
        return {
            "episodeId": out["episodeId"],
            "accepted": out["facts"]["accepted"],
            "rejected": out["facts"]["rejected"],
            "facts": out["facts"]["results"],
        }

    @mcp.tool()
    async def recall(
        query: Query,
        user_id: UserFilter = None,
        scopes: Scopes = None,
        k: RecallK = 5,
        as_of: AsOf = None,
        valid_at: ValidAt = None,
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Memories (facts, episodes, procedures) relevant to the query, best first, each
        with its score and the episodes behind it. Scopes default to user:<user_id> and
        tenant. as_of: what the memory believed then; valid_at: what was true then. An empty
        list means nothing relevant is known."""
        async with client_for(ctx) as c:
            result = await c.recall(
                query, _default_scopes(user_id, scopes), k=k, as_of=as_of, valid_at=valid_at
            )
        return {"items": _recall_items(result), "considered": result["considered"]}

    @mcp.tool()
    async def context(
        query: Query,
        token_budget: TokenBudget = 400,
        user_id: UserFilter = None,
        scopes: Scopes = None,
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """A block of memory text to put in the prompt: facts, then episodes, then
        procedures relevant to the query, at most token_budget tokens; what did not fit is
        listed in `dropped`. Scopes default to user:<user_id> and tenant."""
        async with client_for(ctx) as c:
            result = await c.context(query, token_budget, _default_scopes(user_id, scopes))
        return {
            "text": result["text"],
            "tokens": result["tokens"],
            "dropped": [d["id"] for d in result["dropped"]],
        }

    @mcp.tool()
    async def history(
        subject: Annotated[str, Field(description="who or what the fact is about, e.g. 'alice'")],
        predicate: Annotated[str, Field(description="the relation, e.g. 'lives_in'")],
        user_id: UserFilter = None,
        scopes: Scopes = None,
        as_of: AsOf = None,
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Every version of (subject, predicate), oldest first: its object, status, when the
        memory held it (recordedAt..supersededAt) and when it was true (validFrom..validTo)."""
        async with client_for(ctx) as c:
            result = await c.history(
                subject, predicate, _default_scopes(user_id, scopes), as_of=as_of
            )
        keep: tuple[str, ...] = ("id", "object", "version", "status", "confidence")
        keep += ("recordedAt", "supersededAt", "retractedAt", "validFrom", "validTo")
        return {
            "subject": result["subject"],
            "predicate": result["predicate"],
            "versions": [{k: v[k] for k in keep} for v in result["versions"]],
        }

    @mcp.tool()
    async def forget(
        user_id: Annotated[str, Field(description="the user to erase from this tenant's memory")],
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Erase a user from this tenant's memory for good (admin keys only): their
        episodes, the facts only they supported (every version), their words in the audit
        log; facts others also support are kept with recomputed confidence."""
        async with client_for(ctx) as c:
            try:
                receipt = await c.forget_contributor(user_id)
            except GraphMemoryClientError as e:
                if e.code == "FORBIDDEN":  # say which key forget needs
                    why = str(e).removeprefix("FORBIDDEN: ")
                    raise ToolError(f"FORBIDDEN: {why} (forget needs an admin key)") from e
                raise
        return {k: v for k, v in receipt.items() if k != "factsDeletedByTier"} | {
            "factsDeletedByTier": {r["tier"]: r["count"] for r in receipt["factsDeletedByTier"]}
        }

    @mcp.tool()
    async def ingest(
        user_id: UserId,
        session_id: Annotated[
            str, Field(description="the conversation's id; the same session again is one job")
        ],
        turns: Annotated[list[TurnIn], Field(description="the conversation's turns, in order")],
        started_at: StartedAt = None,
        ended_at: EndedAt = None,
        scope: Scope = None,
        agent_role: Annotated[
            str | None,
            Field(description="the role procedures learned from tool calls belong to (agent)"),
        ] = None,
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """Hand over a finished session's raw turns: the service extracts its episode, facts
        (candidates until corroborated), events, todos and procedure out of band. Returns the
        job at once; follow it with `ingest_status`. The same session again returns the same
        job. Needs the service to have an extraction model configured."""
        session: dict[str, Any] = {
            "userId": user_id,
            "sessionId": session_id,
            "turns": [_turn(t) for t in turns],
        }
        for key, value in (("startedAt", started_at), ("endedAt", ended_at)):
            if value is not None:
                session[key] = value.isoformat()
        options = {k: v for k, v in (("scope", scope), ("agentRole", agent_role)) if v}
        async with client_for(ctx) as c:
            out = (await c.execute(_INGEST, {"s": session, "o": options or None}))["ingestSession"]
        return {
            "created": out["created"],
            "jobId": out["job"]["id"],
            "status": out["job"]["status"],
        }

    @mcp.tool()
    async def ingest_status(
        job_id: Annotated[str, Field(description="the jobId `ingest` returned")],
        ctx: Context[Any, Any, Any] | None = None,
    ) -> dict[str, Any]:
        """An ingest job: QUEUED, RUNNING, DONE, NOTHING (nothing worth keeping) or FAILED,
        with what it wrote or refused, item by item."""
        async with client_for(ctx) as c:
            job: dict[str, Any] = (await c.execute(_INGEST_JOB, {"id": job_id}))["ingestJob"]
        return job

    return mcp


def run(config: McpConfig, transport: Literal["stdio", "http"]) -> None:
    import anyio

    from graph_memory.limits import Limits

    server = build_server(config)
    if transport == "stdio":
        from graph_memory.integrations.mcp_stdio import serve_stdio

        anyio.run(serve_stdio, server, Limits.from_env())
        return
    # FastMCP's own uvicorn would install uvicorn's log format beside the process's JSON one
    # (graph_memory.logs): the same app, served with the logging left as configured.
    import uvicorn

    from graph_memory.integrations.mcp_http_guard import McpBodyGuard

    http = uvicorn.Server(
        uvicorn.Config(
            McpBodyGuard(server.streamable_http_app(), Limits.from_env()),
            host=server.settings.host,
            port=server.settings.port,
            log_config=None,
        )
    )
    anyio.run(http.serve)
