"""Schema introspection is served without a key: the schema is public (``schema.graphql`` ships
with the code) and GraphiQL needs it before anyone has pasted a key, or its docs pane stays on
"Error fetching schema". Only documents whose every top-level field is ``__schema``,
``__type`` or ``__typename``, with at least one ``__schema`` or ``__type``, qualify: anything
touching data still needs a key, and a bare ``{ __typename }`` (the usual probe of whether a
key works) still answers 401 without one."""

from __future__ import annotations

from graphql import FieldNode, GraphQLError, OperationDefinitionNode, OperationType, parse

from graph_memory.domain import Principal, Role

__all__ = ["ANONYMOUS", "introspection_only"]

_META = frozenset({"__schema", "__type", "__typename"})

# Never reaches a resolver: introspection fields are answered by the schema itself. A tenant
# no key can have ("") keeps it harmless even if one did.
ANONYMOUS = Principal(tenant="", role=Role.ANALYST, key_id="anonymous", name="introspection")


def introspection_only(query: object) -> bool:
    if not isinstance(query, str) or not query.strip():
        return False
    try:
        document = parse(query)
    except GraphQLError:
        return False
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    asks_schema = any(
        isinstance(sel, FieldNode) and sel.name.value in ("__schema", "__type")
        for op in operations
        for sel in op.selection_set.selections
    )
    return bool(operations) and asks_schema and all(
        op.operation == OperationType.QUERY
        and all(
            isinstance(sel, FieldNode) and sel.name.value in _META
            for sel in op.selection_set.selections
        )
        for op in operations
    )
