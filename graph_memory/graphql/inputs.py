"""Batch inputs that build themselves in one pass.

graphql-core has already validated and coerced every variable (scalars parsed, enums mapped,
defaults filled) before a resolver runs. Strawberry then walks the value again, resolving each
field's annotation per value: for a 1,000-fact ``assertFacts`` batch that second walk cost more
than writing the batch to Neo4j. ``from_input`` is strawberry's hook for input types that
construct their own value; ours maps GraphQL names to Python names with a table built once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from strawberry.types.arguments import InputContext

__all__ = ["prebuilt"]

T = TypeVar("T")


def prebuilt(**nested: type) -> Callable[[type[T]], type[T]]:
    """Class decorator for a ``@strawberry.input`` whose fields are scalars, enums, lists of
    those, or lists of other ``prebuilt`` inputs named in ``nested`` (python field name ->
    input class)."""

    def decorate(cls: type[T]) -> type[T]:
        definition = cls.__strawberry_definition__  # type: ignore[attr-defined]
        names: dict[str, str] = {}

        def from_input(type_: type, value: Mapping[str, Any], ctx: InputContext) -> T:
            del type_
            if not names:
                names.update(
                    {
                        ctx.config.name_converter.from_field(f): f.python_name
                        for f in definition.fields
                    }
                )
            kwargs: dict[str, Any] = {}
            for key, item in value.items():
                name = names[key]
                inner = nested.get(name)
                if inner is not None and item is not None:
                    build = inner.__strawberry_definition__.from_input  # type: ignore[attr-defined]
                    item = [build(inner, x, ctx) for x in item]
                elif isinstance(item, list):
                    # graphql-core hands every request the same default list object: copy it,
                    # as strawberry does, so no request can change another's default.
                    item = list(item)
                kwargs[name] = item
            return cls(**kwargs)

        definition.from_input = from_input
        return cls

    return decorate
