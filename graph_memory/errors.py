"""One error tree for the whole service.

    GraphMemoryError
    ├── ValidationError      bad input (code VALIDATION)
    │   └── LimitExceeded    one argument is over its size limit (code VALIDATION + limit)
    │   └── InvalidInput     several problems at once, each with its field (extensions.problems)
    ├── NotFound             unknown id, or not visible to this tenant (code NOT_FOUND)
    ├── Forbidden            the credential's role or scopes do not allow this (code FORBIDDEN)
    ├── Unauthenticated      no or bad credential (code UNAUTHENTICATED)
    ├── Conflict             state does not allow the change (code CONFLICT)
    │   └── TierConflict     a lower trust tier would override a higher one (code TIER_CONFLICT)
    ├── QueryTooComplex      the operation's shape is over a limit (code QUERY_TOO_COMPLEX)
    ├── PayloadTooLarge      the request's bytes are over a limit (code PAYLOAD_TOO_LARGE)
    ├── LlmNotConfigured     ingestion asked for, no extraction model configured
    │                        (code LLM_NOT_CONFIGURED)
    ├── ModelOutputInvalid   the extraction model's answer failed validation after retries
    │                        (code MODEL_OUTPUT_INVALID)
    ├── ModelUnavailable     the extraction endpoint failed or timed out after retries
    │                        (code MODEL_UNAVAILABLE)
    ├── ScopeMissing         a repository call without tenant/scope: a programming error
    ├── MigrationError       the database schema is newer than this code, or a migration failed
    └── StoreUnavailable     Neo4j cannot be reached after retries (code STORE_UNAVAILABLE)

Every error carries a machine-readable ``code`` that the GraphQL layer puts in
``extensions.code``; unexpected exceptions are masked there instead.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Conflict",
    "Forbidden",
    "GraphMemoryError",
    "InvalidInput",
    "LimitExceeded",
    "LlmNotConfigured",
    "MigrationError",
    "ModelOutputInvalid",
    "ModelUnavailable",
    "ModelUsage",
    "NotFound",
    "PayloadTooLarge",
    "QueryTooComplex",
    "ScopeMissing",
    "StoreUnavailable",
    "TierConflict",
    "Unauthenticated",
    "ValidationError",
]


# Messages quote what the caller sent ("no forget job <id>"); a 20 KB argument is not echoed
# back whole, whichever message quotes it.
MAX_MESSAGE_CHARS = 1_000


def _capped(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return f"{message[:MAX_MESSAGE_CHARS]}... ({len(message)} characters, cut)"


class GraphMemoryError(Exception):
    code = "INTERNAL"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        message = _capped(message)
        super().__init__(message)
        self.message = message
        self.field = field


class ValidationError(GraphMemoryError):
    code = "VALIDATION"


class LimitExceeded(ValidationError):
    """An argument over its deployment limit (graph_memory.limits): still VALIDATION for
    clients that only know that code, with ``limit`` naming the bound and its value."""

    def __init__(self, message: str, *, field: str | None, limit: str, maximum: int) -> None:
        super().__init__(message, field=field)
        self.limit = limit
        self.maximum = maximum


class QueryTooComplex(GraphMemoryError):
    code = "QUERY_TOO_COMPLEX"


class PayloadTooLarge(GraphMemoryError):
    code = "PAYLOAD_TOO_LARGE"


class InvalidInput(ValidationError):
    """Every problem of one input, not just the first: a client fixes them in one round."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        field, message = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        super().__init__(f"{field}: {message}{more}", field=field)
        self.problems = problems


class NotFound(GraphMemoryError):
    code = "NOT_FOUND"


class ContributorForgotten(GraphMemoryError):
    """A write cites an episode of a contributor who was forgotten (the purge may still be
    running): their words cannot back anything new."""

    code = "CONTRIBUTOR_FORGOTTEN"


class Forbidden(GraphMemoryError):
    code = "FORBIDDEN"


class Unauthenticated(GraphMemoryError):
    code = "UNAUTHENTICATED"


class Conflict(GraphMemoryError):
    code = "CONFLICT"


class TierConflict(Conflict):
    code = "TIER_CONFLICT"


class LlmNotConfigured(GraphMemoryError):
    code = "LLM_NOT_CONFIGURED"


@dataclass(frozen=True)
class ModelUsage:
    """What requests to the model spent: tokens, time waiting and how many were made."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_ms: float = 0.0
    calls: int = 0


class ModelOutputInvalid(GraphMemoryError):
    code = "MODEL_OUTPUT_INVALID"
    # What the failed attempts spent: still paid for.
    usage: ModelUsage = ModelUsage()


class ModelRequestRefused(ModelOutputInvalid):
    """The endpoint refused the request itself (HTTP 400: the session too long for the
    model's context, a content filter), in either output mode: asking again cannot help."""

    code = "MODEL_REQUEST_REFUSED"


class ModelAccessDenied(ModelRequestRefused):
    """The endpoint refused our credentials (HTTP 401 or 403): a deployment's key or model
    setting is wrong, which no retry mends; the job fails at once and says so."""

    code = "MODEL_ACCESS_DENIED"


class ModelUnavailable(GraphMemoryError):
    code = "MODEL_UNAVAILABLE"
    usage: ModelUsage = ModelUsage()


class ScopeMissing(GraphMemoryError):
    """Raised when a repository is called without a tenant or scope: never an unfiltered read."""

    code = "INTERNAL"


class MigrationError(GraphMemoryError):
    code = "MIGRATION"


class StoreUnavailable(GraphMemoryError):
    """The message never names the server: clients get "retry later", operators the logs."""

    code = "STORE_UNAVAILABLE"
