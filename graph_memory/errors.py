"""One error tree for the whole service.

    GraphMemoryError
    ├── ValidationError      bad input (code VALIDATION)
    ├── NotFound             unknown id, or not visible to this tenant (code NOT_FOUND)
    ├── Forbidden            the credential's role may not do this (code FORBIDDEN)
    ├── Unauthenticated      no or bad credential (code UNAUTHENTICATED)
    ├── Conflict             state does not allow the change (code CONFLICT)
    │   └── TierConflict     a lower trust tier would override a higher one (code TIER_CONFLICT)
    ├── ScopeMissing         a repository call without tenant/scope: a programming error
    ├── MigrationError       the database schema is newer than this code, or a migration failed
    └── StoreUnavailable     Neo4j cannot be reached after retries (code UNAVAILABLE)

Every error carries a machine-readable ``code`` that the GraphQL layer puts in
``extensions.code``; unexpected exceptions are masked there instead.
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "Forbidden",
    "GraphMemoryError",
    "MigrationError",
    "NotFound",
    "ScopeMissing",
    "StoreUnavailable",
    "TierConflict",
    "Unauthenticated",
    "ValidationError",
]


class GraphMemoryError(Exception):
    code = "INTERNAL"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ValidationError(GraphMemoryError):
    code = "VALIDATION"


class NotFound(GraphMemoryError):
    code = "NOT_FOUND"


class Forbidden(GraphMemoryError):
    code = "FORBIDDEN"


class Unauthenticated(GraphMemoryError):
    code = "UNAUTHENTICATED"


class Conflict(GraphMemoryError):
    code = "CONFLICT"


class TierConflict(Conflict):
    code = "TIER_CONFLICT"


class ScopeMissing(GraphMemoryError):
    """Raised when a repository is called without a tenant or scope: never an unfiltered read."""

    code = "INTERNAL"


class MigrationError(GraphMemoryError):
    code = "MIGRATION"


class StoreUnavailable(GraphMemoryError):
    code = "UNAVAILABLE"
