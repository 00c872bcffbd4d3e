"""Typed errors out, everything else masked.

A GraphMemoryError becomes a GraphQL error with ``extensions.code``; any other exception is
logged with its traceback and reaches the client only as "Internal error" (code INTERNAL), so
driver messages and stack details never leak.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from graphql import GraphQLError, OperationDefinitionNode
from strawberry.extensions import SchemaExtension
from strawberry.types.execution import ExecutionResult

from graph_memory.errors import GraphMemoryError

__all__ = ["ErrorCodes", "OneOperation", "coded"]

log = logging.getLogger("graph_memory.graphql")


class OneOperation(SchemaExtension):
    """A document with several operations must name the one to run (GraphQL spec, "Executing
    Requests"): strawberry would silently run the first, which may be a mutation."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        doc = ctx.graphql_document
        named = getattr(ctx, "_provided_operation_name", None)
        if named is None and doc is not None:
            ops = sum(isinstance(d, OperationDefinitionNode) for d in doc.definitions)
            if ops > 1:
                # A result set before execution makes strawberry skip it.
                ctx.result = ExecutionResult(
                    data=None,
                    errors=[
                        GraphQLError(
                            "the document has several operations: say which in operationName",
                            extensions={"code": "GRAPHQL_VALIDATION"},
                        )
                    ],
                )
        yield


def coded(response: dict[str, Any]) -> dict[str, Any]:
    """Every error of an HTTP response carries extensions.code. Syntax errors leave strawberry
    before any extension sees them, so the last word is here."""
    for error in response.get("errors") or []:
        ext = error.setdefault("extensions", {})
        if "code" not in ext:
            syntax = str(error.get("message", "")).startswith("Syntax Error")
            ext["code"] = "GRAPHQL_PARSE_FAILED" if syntax else "GRAPHQL_VALIDATION"
    return response


class ErrorCodes(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if not result or not result.errors:
            return
        result.errors = [self._typed(e) for e in result.errors]

    @staticmethod
    def _typed(error: GraphQLError) -> GraphQLError:
        original = error.original_error
        if original is None:
            # Parse/validation errors of the query itself.
            ext = dict(error.extensions or {})
            ext.setdefault("code", "GRAPHQL_VALIDATION")
            return GraphQLError(
                error.message, error.nodes, error.source, error.positions, error.path, None, ext
            )
        if isinstance(original, GraphMemoryError):
            coded_ext: dict[str, Any] = {"code": original.code}
            if original.field:
                coded_ext["field"] = original.field
            problems = getattr(original, "problems", None)
            if problems:
                coded_ext["problems"] = [{"field": f, "message": m} for f, m in problems]
            return GraphQLError(
                original.message,
                error.nodes,
                error.source,
                error.positions,
                error.path,
                original,
                coded_ext,
            )
        if isinstance(original, GraphQLError) or (
            isinstance(original, (ValueError, TypeError)) and "datetime" in str(original).lower()
        ):
            # A value that does not parse as its scalar (a DateTime that is not ISO 8601, say):
            # the caller's input is wrong, not the server.
            return GraphQLError(
                str(original),
                error.nodes,
                error.source,
                error.positions,
                error.path,
                original,
                {"code": "VALIDATION"},
            )
        log.error("unexpected error in %s", error.path, exc_info=original)
        return GraphQLError(
            "Internal error",
            error.nodes,
            error.source,
            error.positions,
            error.path,
            original,
            {"code": "INTERNAL"},
        )
