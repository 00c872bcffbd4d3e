"""Scalars that refuse what the store cannot hold, where the value enters.

Strawberry's DateTime accepts any ISO 8601 text, including moments whose UTC value falls
outside the years 1..9999 (``9999-12-31T23:59:59-14:00``) and offsets Neo4j cannot hold
(``+23:59``): Python parses them, and the first ``astimezone(UTC)`` deep inside a service, or
Neo4j itself, fails, which the client saw as INTERNAL (domain.unstorable_time). Every
DateTime argument and input field goes through this scalar, so the check is made here once
and the answer is VALIDATION. Naive values are still let through
on purpose: the services refuse them per item (a naive time in one batch item must not lose
its siblings), which a scalar error could not do.
"""

from __future__ import annotations

import datetime as dt

import dateutil.parser  # type: ignore[import-untyped]
from strawberry.exceptions import StrawberryInputCoercionError
from strawberry.schema.types.base_scalars import DateTimeDefinition
from strawberry.types.scalar import ScalarDefinition

from graph_memory.domain import unstorable_time

__all__ = ["DATETIME", "SCALAR_OVERRIDES", "parse_datetime"]


def parse_datetime(value: object) -> dt.datetime:
    if not isinstance(value, str):
        raise StrawberryInputCoercionError(
            f"Value cannot represent a DateTime: {value!r}. Expected an ISO 8601 string."
        )
    try:
        parsed: dt.datetime = dateutil.parser.isoparse(value)
    except (ValueError, OverflowError) as e:
        raise StrawberryInputCoercionError(
            f"Value cannot represent a DateTime: {value!r}. {e}"
        ) from None
    problem = unstorable_time(parsed)
    if problem is not None:
        raise StrawberryInputCoercionError(f"DateTime {value!r} cannot be stored: {problem}")
    return parsed


DATETIME = ScalarDefinition(
    name="DateTime",
    description="Date with time (ISO 8601 with a timezone; its UTC value within years 1..9999)",
    specified_by_url=None,
    serialize=DateTimeDefinition.serialize,
    parse_value=parse_datetime,
    parse_literal=None,
    origin=dt.datetime,
)

SCALAR_OVERRIDES: dict[object, ScalarDefinition] = {dt.datetime: DATETIME}
