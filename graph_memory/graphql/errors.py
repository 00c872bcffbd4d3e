"""Typed errors out, everything else masked.

A GraphMemoryError becomes a GraphQL error with ``extensions.code``; any other exception is
logged with its traceback and reaches the client only as "Internal error" (code INTERNAL), so
driver messages and stack details never leak.

Logging (`LoggedSchema.process_errors`, which sees every error once, before it is typed):
a client's mistake is a DEBUG line without traceback (the request's INFO line already
counts its codes), an outage is the database layer's WARNING, and only a fault of ours is an
ERROR with its traceback (and, through graph_memory.logs, the request id).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import strawberry
from graphql import GraphQLError, OperationDefinitionNode
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext
from strawberry.types.execution import ExecutionResult

from graph_memory.errors import GraphMemoryError, LimitExceeded, StoreUnavailable

__all__ = ["RETRY_AFTER_SECONDS", "ErrorCodes", "LoggedSchema", "OneOperation", "coded"]

log = logging.getLogger("graph_memory.graphql")

# What a client is told to wait when the store is down: the driver's own reconnect and our
# retries take about this long to notice it is back.
RETRY_AFTER_SECONDS = 5


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
            message = str(error.get("message", ""))
            if any(m in message for m in _TOO_COMPLEX):
                ext["code"] = "QUERY_TOO_COMPLEX"
            elif message.startswith("Syntax Error"):
                ext["code"] = "GRAPHQL_PARSE_FAILED"
            else:
                ext["code"] = "GRAPHQL_VALIDATION"
    return response


# graphql-core's own words for its limits: the parser's max_tokens (set by QueryLimits) and
# its rule against recursive introspection.
_TOO_COMPLEX = ("tokens. Parsing aborted.", "Maximum introspection depth exceeded")


def _caller_input(original: BaseException) -> bool:
    """A value that does not parse as its scalar (a DateTime that is not ISO 8601, say): the
    caller's input is wrong, not the server."""
    return isinstance(original, GraphQLError) or (
        isinstance(original, (ValueError, TypeError)) and "datetime" in str(original).lower()
    )


def _ours(original: BaseException | None) -> bool:
    """True for a fault of the service (masked as INTERNAL), not of the caller or the store."""
    if original is None or isinstance(original, (RecursionError, GraphMemoryError)):
        return False
    return not _caller_input(original)


class LoggedSchema(strawberry.Schema):
    """strawberry's schema, logging by who is at fault instead of every error at ERROR with
    a traceback (3.6 KB a NOT_FOUND)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        del execution_context
        for error in errors:
            original = error.original_error
            if _ours(original):
                log.error("unexpected error in %s", error.path, exc_info=original)
            elif not isinstance(original, StoreUnavailable):
                code = getattr(original, "code", None) or "GRAPHQL_VALIDATION"
                log.debug("client error %s at %s: %s", code, error.path, error.message)


class ErrorCodes(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        result = self.execution_context.result
        if not result or not result.errors:
            return
        result.errors = [self._typed(e) for e in result.errors]
        if all((e.extensions or {}).get("code") == StoreUnavailable.code for e in result.errors):
            # Nothing failed but the store: a 503 with Retry-After tells clients (and load
            # balancers) to come back, where a 200 would read as an answer.
            response = getattr(self.execution_context.context, "response", None)
            if response is not None and hasattr(response, "status_code"):
                response.status_code = 503
                response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)

    @staticmethod
    def _typed(error: GraphQLError) -> GraphQLError:
        original = error.original_error
        if original is None:
            # Parse/validation errors of the query itself.
            ext = dict(error.extensions or {})
            too_big = any(m in error.message for m in _TOO_COMPLEX)
            ext.setdefault("code", "QUERY_TOO_COMPLEX" if too_big else "GRAPHQL_VALIDATION")
            return GraphQLError(
                error.message, error.nodes, error.source, error.positions, error.path, None, ext
            )
        if isinstance(original, RecursionError):
            # A document nested past the parser's recursion (the HTTP layer's bracket count
            # refuses these first; this covers direct schema.execute callers).
            return GraphQLError(
                "the operation nests too deeply",
                error.nodes,
                error.source,
                error.positions,
                error.path,
                None,
                {"code": "QUERY_TOO_COMPLEX"},
            )
        if isinstance(original, GraphMemoryError):
            typed: dict[str, Any] = {"code": original.code}
            if original.field:
                typed["field"] = original.field
            if isinstance(original, LimitExceeded):
                typed["limit"] = original.limit
                typed["max"] = original.maximum
            problems = getattr(original, "problems", None)
            if problems:
                typed["problems"] = [{"field": f, "message": m} for f, m in problems]
            return GraphQLError(
                original.message,
                error.nodes,
                error.source,
                error.positions,
                error.path,
                original,
                typed,
            )
        if _caller_input(original):
            return GraphQLError(
                str(original),
                error.nodes,
                error.source,
                error.positions,
                error.path,
                original,
                {"code": "VALIDATION"},
            )
        # Logged with its traceback by LoggedSchema.process_errors, before this masking.
        return GraphQLError(
            "Internal error",
            error.nodes,
            error.source,
            error.positions,
            error.path,
            original,
            {"code": "INTERNAL"},
        )
