"""Schema introspection is served without a key: the schema is public (``schema.graphql`` ships
with the code) and GraphiQL needs it before anyone has pasted a key, or its docs pane stays on
"Error fetching schema". Only queries that ask ``__schema`` or ``__type`` (with at most
``__typename`` beside them) qualify; anything touching data, and a bare ``{ __typename }``
(the usual "is my key accepted?" probe), still needs a key."""

from __future__ import annotations

from graphql import FieldNode, OperationDefinitionNode, OperationType

from graph_memory.domain import Principal, Role
from graph_memory.graphql_text import parsed

__all__ = ["ANONYMOUS", "introspection_only"]

_SCHEMA = frozenset({"__schema", "__type"})
_META = _SCHEMA | {"__typename"}

# Never reaches a resolver: introspection fields are answered by the schema itself. A tenant
# no key can have ("") keeps it harmless even if one did.
ANONYMOUS = Principal(tenant="", role=Role.ANALYST, key_id="anonymous", name="introspection")


def introspection_only(query: object, max_tokens: int | None) -> bool:
    if not isinstance(query, str) or not query.strip():
        return False
    document = parsed(query, max_tokens)
    if document is None:
        return False
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    for op in operations:
        fields = [s for s in op.selection_set.selections if isinstance(s, FieldNode)]
        if (
            op.operation != OperationType.QUERY
            or len(fields) != len(op.selection_set.selections)
            or any(f.name.value not in _META for f in fields)
            or not any(f.name.value in _SCHEMA for f in fields)
        ):
            return False
    return bool(operations)
