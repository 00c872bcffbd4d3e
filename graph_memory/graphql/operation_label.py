"""The name a request is counted and logged under: the root field it runs.

Operation names are the client's to choose, so they cannot label a metric (each new name
would be a new series). Root fields can, once checked against the schema: the label is one
of the schema's Query or Mutation fields, or one of ``introspection``, ``multiple`` (several
distinct root fields), ``invalid`` (unparsable, or a field the schema lacks) and ``none``.
"""

from __future__ import annotations

import functools

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

from graph_memory.graphql.schema import schema
from graph_memory.graphql_text import parsed

__all__ = ["describe"]

_GRAPHQL: GraphQLSchema = schema._schema


def _fields(kind: str) -> frozenset[str]:
    root = _GRAPHQL.query_type if kind == "query" else _GRAPHQL.mutation_type
    return frozenset(root.fields) if root is not None else frozenset()


_ROOT_FIELDS = {"query": _fields("query"), "mutation": _fields("mutation")}


def describe(query: object, operation_name: object, max_tokens: int) -> tuple[str, str]:
    """``(kind, operation)`` of a request's document: kind is ``query``, ``mutation``,
    ``subscription`` or ``none``."""
    if not isinstance(query, str) or not query.strip():
        return "none", "none"
    name = operation_name if isinstance(operation_name, str) else None
    return _describe(query, name, max_tokens)


@functools.lru_cache(maxsize=512)
def _describe(query: str, name: str | None, max_tokens: int) -> tuple[str, str]:
    doc = parsed(query, max_tokens)
    if doc is None:
        return "none", "invalid"
    ops = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if name is not None:
        ops = [o for o in ops if o.name is not None and o.name.value == name]
    if len(ops) != 1:
        return "none", "invalid"
    op = ops[0]
    kind = op.operation.value
    names = _root_names(doc, op.selection_set, set())
    if not names:
        return kind, "invalid"
    if all(n.startswith("__") for n in names):
        return kind, "introspection"
    names = {n for n in names if not n.startswith("__")}
    if len(names) > 1:
        return kind, "multiple"
    (field,) = names
    return (kind, field) if field in _ROOT_FIELDS.get(kind, frozenset()) else (kind, "invalid")


def _root_names(doc: DocumentNode, selections: SelectionSetNode, seen: set[str]) -> set[str]:
    """The root fields selected, through fragments too (each fragment once: a cycle is the
    validator's to refuse, not a reason to loop here)."""
    names: set[str] = set()
    for s in selections.selections:
        if isinstance(s, FieldNode):
            names.add(s.name.value)
        elif isinstance(s, InlineFragmentNode):
            names |= _root_names(doc, s.selection_set, seen)
        elif isinstance(s, FragmentSpreadNode) and s.name.value not in seen:
            seen.add(s.name.value)
            for d in doc.definitions:
                if isinstance(d, FragmentDefinitionNode) and d.name.value == s.name.value:
                    names |= _root_names(doc, d.selection_set, seen)
    return names
