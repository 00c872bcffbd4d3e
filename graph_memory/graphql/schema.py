"""The schema: query and mutation roots merged from one class per area."""

from __future__ import annotations

import strawberry
from strawberry.tools import merge_types

from graph_memory.graphql.errors import ErrorCodes
from graph_memory.graphql.mutation import MemoryMutation
from graph_memory.graphql.query import MemoryQuery

__all__ = ["schema"]

Query = merge_types("Query", (MemoryQuery,))
Mutation = merge_types("Mutation", (MemoryMutation,))

schema = strawberry.Schema(query=Query, mutation=Mutation, extensions=[ErrorCodes])
