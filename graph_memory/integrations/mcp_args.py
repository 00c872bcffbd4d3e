"""The MCP tools' argument types, each with the description an agent reads in ``inputSchema``
(graph_memory/integrations/mcp_server.py re-exports FactIn, ToolCallIn and TurnIn).

Ranges (k, token_budget) are described here and enforced once, by the service, whose
``VALIDATION`` names the argument; an integer argument refuses a boolean here, since
pydantic's lax mode would read ``true`` as 1.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field

from graph_memory.policy import DEFAULT_POLICY

__all__ = [
    "SOURCES",
    "TIME",
    "AsOf",
    "EndedAt",
    "FactIn",
    "Idempotency",
    "Outcome",
    "Query",
    "RecallK",
    "Scope",
    "Scopes",
    "SessionId",
    "Source",
    "StartedAt",
    "TokenBudget",
    "ToolCallIn",
    "Topics",
    "TurnIn",
    "UserFilter",
    "UserId",
    "ValidAt",
]

# The sources every tenant starts with; configureTenant may add others.
SOURCES = ", ".join(sorted(DEFAULT_POLICY.source_tiers))
TIME = "ISO 8601 with an offset ('2026-03-01T10:00:00Z' or '+02:00'; a time without one is refused)"


def _not_a_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be an integer, not a boolean")
    return value


UserId = Annotated[str, Field(description="the user whose session or memory this is")]
UserFilter = Annotated[
    str | None,
    Field(description="the user asked about: scopes default to user:<user_id> and tenant"),
]
Scopes = Annotated[
    list[str] | None,
    Field(
        description="scopes to read: 'user:<id>', 'team:<id>', 'tenant' (default: "
        "user:<user_id> and tenant, or tenant alone without a user_id)"
    ),
]
Scope = Annotated[
    str | None,
    Field(
        description="where it is kept: 'user:<id>', 'team:<id>' or 'tenant' (default: "
        "user:<user_id>)"
    ),
]
Query = Annotated[str, Field(description="what to look for, in the words of the question")]
RecallK = Annotated[
    int,
    BeforeValidator(_not_a_bool),
    Field(description="how many memories to return, 1..100"),
]
TokenBudget = Annotated[
    int,
    BeforeValidator(_not_a_bool),
    Field(description="the most tokens the block may take, 1..200000"),
]
SessionId = Annotated[
    str | None,
    Field(
        description="the conversation this belongs to (default: one id per server process, "
        "so the calls of one conversation count as one session)"
    ),
]
Outcome = Annotated[
    Literal["SUCCESS", "ESCALATED", "ABANDONED"],
    Field(description="how the session ended for the user"),
]
Source = Annotated[
    str,
    Field(
        description=f"who the memory comes from; it caps the facts' trust tier. One of "
        f"{SOURCES} (a tenant's policy may add others: tenantPolicy.sourceTiers)"
    ),
]
Topics = Annotated[list[str] | None, Field(description="short tags for the episode")]
StartedAt = Annotated[
    datetime | None,
    Field(description=f"when the session began (default: ended_at, else now); {TIME}"),
]
EndedAt = Annotated[
    datetime | None, Field(description=f"when the session ended (default: started_at); {TIME}")
]
AsOf = Annotated[
    datetime | None,
    Field(description=f"what the memory believed at that time (default: now); {TIME}"),
]
ValidAt = Annotated[
    datetime | None,
    Field(description=f"what was true in the world at that time (default: now); {TIME}"),
]
Idempotency = Annotated[
    str | None,
    Field(
        description="unique per session's remember: a retry with the same key answers as "
        "the first call instead of writing again; the key with another episode is CONFLICT"
    ),
]


class FactIn(BaseModel):
    """A fact the episode established; it cites the episode as its evidence."""

    subject: str = Field(description="who or what the fact is about, e.g. 'alice'")
    predicate: str = Field(description="snake_case relation, e.g. 'lives_in', 'works_at'")
    object: str = Field(description="the value, e.g. 'Berlin'")
    valid_from: datetime | None = Field(
        None,
        description=f"when it became true in the world (default: when the episode began); {TIME}",
    )
    valid_to: datetime | None = Field(None, description=f"when it stopped being true; {TIME}")
    scope: str | None = Field(None, description="default: the episode's scope (user:<id>)")
    cardinality: Literal["ONE", "MANY"] | None = Field(
        None, description="for a new predicate: ONE (a new object supersedes) or MANY"
    )
    source: str | None = Field(None, description=f"default: the episode's source ({SOURCES})")


class ToolCallIn(BaseModel):
    """A tool call the assistant made in a turn."""

    name: str = Field(description="the tool's name")
    arguments: str | None = Field(None, description="the call's arguments, as text (JSON)")
    ok: bool | None = Field(None, description="whether the call succeeded")


class TurnIn(BaseModel):
    """One turn of the conversation, as it was said."""

    role: str = Field(description="user, assistant, tool or system")
    content: str = Field(description="what was said")
    at: datetime | None = Field(None, description=f"when it was said; {TIME}")
    tool_calls: list[ToolCallIn] = Field(
        default_factory=list, description="the tool calls the turn made"
    )
