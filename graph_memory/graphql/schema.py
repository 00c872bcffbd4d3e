"""The schema: query and mutation roots merged from one class per area."""

from __future__ import annotations

from strawberry.tools import merge_types

from graph_memory.graphql.consolidation import ConsolidationMutation, ConsolidationQuery
from graph_memory.graphql.denials import AuditDenials
from graph_memory.graphql.errors import ErrorCodes, LoggedSchema, OneOperation
from graph_memory.graphql.ingest import IngestMutation, IngestQuery
from graph_memory.graphql.int_literals import BoundedIntLiterals
from graph_memory.graphql.limits import LimitedValidationCache, QueryLimits
from graph_memory.graphql.mutation import MemoryMutation, PredicateMutation
from graph_memory.graphql.outcomes import OutcomeMutation
from graph_memory.graphql.parser_cache import SharedParserCache
from graph_memory.graphql.query import MemoryQuery
from graph_memory.graphql.recall import ProcedureMutation, RecallQuery
from graph_memory.graphql.scalars import SCALAR_OVERRIDES
from graph_memory.graphql.session_scope import SessionScope
from graph_memory.graphql.session_tokens import SessionTokenMutation
from graph_memory.graphql.trust import TrustMutation, TrustQuery

__all__ = ["schema"]

# One class per area; each area adds its line here.
QUERIES: tuple[type, ...] = (
    MemoryQuery,
    RecallQuery,
    TrustQuery,
    IngestQuery,
    ConsolidationQuery,
)
MUTATIONS: tuple[type, ...] = (
    MemoryMutation,
    PredicateMutation,
    ProcedureMutation,
    TrustMutation,
    IngestMutation,
    ConsolidationMutation,
    SessionTokenMutation,
    OutcomeMutation,
)

Query = merge_types("Query", QUERIES)
Mutation = merge_types("Mutation", MUTATIONS)

# Agents send the same few operations over and over: parse and validate each text once.
# QueryLimits runs before validation (over every operation of the document: OneOperation
# refuses an unnamed choice at execution).
schema = LoggedSchema(
    query=Query,
    mutation=Mutation,
    scalar_overrides=SCALAR_OVERRIDES,
    extensions=[
        ErrorCodes,
        AuditDenials,
        OneOperation,
        BoundedIntLiterals,
        QueryLimits,
        SessionScope,
        SharedParserCache,
        lambda: LimitedValidationCache(maxsize=512),
    ],
)
