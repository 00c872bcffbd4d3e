"""The wire's naming and values, for every client-side module: snake_case Python names as
GraphQL's camelCase, datetimes as ISO 8601 strings. One place, so the dict client, the typed
client and the agent adapters cannot drift apart on what a name or a time looks like."""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["camel", "iso", "jsonable", "variables"]


def camel(name: str) -> str:
    """``include_candidates`` -> ``includeCandidates``; a camelCase name stays as it is."""
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


def iso(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()


def variables(**kw: Any) -> dict[str, Any]:
    """GraphQL variables as given (already wire names), datetimes as ISO strings."""
    return {k: (iso(v) if isinstance(v, datetime) else v) for k, v in kw.items()}


def jsonable(obj: Any) -> Any:
    """JSON for the wire: ISO datetimes, and snake_case keys (``user_id``) as the camelCase
    GraphQL names them (``userId``), so Python callers can write either."""
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, dict):
        return {camel(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [jsonable(v) for v in obj]
    return obj
