"""What is known of the request being served, for its metrics and its log lines.

One `RequestTrace` per HTTP request, held in a context variable: the database layer and the
embedders add their time to it without being handed it (tasks a request spawns copy the
context, so their work counts too), the GraphQL endpoint names the tenant and operation, and
the log formatter stamps every line written while the request runs with its id.
"""

from __future__ import annotations

import contextvars
import re
import time
import uuid
from dataclasses import dataclass, field

__all__ = ["RequestTrace", "current", "request_id_from", "reset", "use"]

# A caller's own id is kept (so one id follows a call across services) only when it is
# short and plain: it goes into logs and headers verbatim.
_CLIENT_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")


@dataclass
class RequestTrace:
    request_id: str
    started: float = field(default_factory=time.perf_counter)
    tenant: str | None = None
    # The GraphQL root field run (a closed set, see graph_memory.graphql.operation_label).
    operation: str = "none"
    kind: str = "none"
    # Summed over the request's calls: concurrent calls add up, so the sum can exceed the
    # wall time.
    neo4j_seconds: float = 0.0
    neo4j_calls: int = 0
    embed_seconds: float = 0.0
    queue_seconds: float = 0.0  # waiting for an in-flight slot (admission.py)
    # Waiting for database turns (session_share.py), summed over the request's reads.
    turn_seconds: float = 0.0
    error_codes: list[str] = field(default_factory=list)

    def elapsed(self) -> float:
        return time.perf_counter() - self.started


_CURRENT: contextvars.ContextVar[RequestTrace | None] = contextvars.ContextVar(
    "graph_memory_request_trace", default=None
)


def current() -> RequestTrace | None:
    return _CURRENT.get()


def use(trace: RequestTrace | None) -> contextvars.Token[RequestTrace | None]:
    return _CURRENT.set(trace)


def reset(token: contextvars.Token[RequestTrace | None]) -> None:
    _CURRENT.reset(token)


def request_id_from(header: str | None) -> str:
    """The caller's ``X-Request-Id`` when it is a plain token, else a fresh one."""
    if header is not None and _CLIENT_ID.match(header):
        return header
    return uuid.uuid4().hex
