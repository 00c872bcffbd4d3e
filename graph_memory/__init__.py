"""graph_memory: a knowledge memory service for AI agents.

Versioned, bitemporal facts with provenance in Neo4j, served over GraphQL.
"""

from __future__ import annotations

from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError
from graph_memory.client_types import Citation, EpisodeIn, FactIn
from graph_memory.errors import (
    Conflict,
    Forbidden,
    GraphMemoryError,
    NotFound,
    StoreUnavailable,
    TierConflict,
    ValidationError,
)
from graph_memory.typed_client import AsyncMemoryClient, ItemsRejected, MemoryClient

__all__ = [
    "AsyncGraphMemoryClient",
    "AsyncMemoryClient",
    "Citation",
    "Conflict",
    "EpisodeIn",
    "FactIn",
    "Forbidden",
    "GraphMemoryClient",
    "GraphMemoryClientError",
    "GraphMemoryError",
    "ItemsRejected",
    "MemoryClient",
    "NotFound",
    "StoreUnavailable",
    "TierConflict",
    "ValidationError",
    "__version__",
]

__version__ = "0.1.0"
