"""One item's outcome in a fact batch (every writer reports per item)."""

from __future__ import annotations

from dataclasses import dataclass

from graph_memory.errors import GraphMemoryError

__all__ = ["ItemResult"]


@dataclass
class ItemResult:
    index: int
    ok: bool
    action: str | None = None  # created | superseded | corroborated | unchanged
    fact_id: str | None = None
    version: int | None = None
    status: str | None = None
    confidence: float | None = None
    supersedes: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    error_field: str | None = None

    @classmethod
    def failed(cls, index: int, err: GraphMemoryError) -> ItemResult:
        return cls(
            index=index,
            ok=False,
            error_code=err.code,
            error_message=err.message,
            error_field=err.field,
        )
