"""FORBIDDEN answers reach the audit log (services/audit/denials.py rate-limits them)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from strawberry.extensions import SchemaExtension

from graph_memory.errors import Forbidden

__all__ = ["AuditDenials"]


class AuditDenials(SchemaExtension):
    async def on_operation(self) -> AsyncIterator[None]:
        yield
        result = self.execution_context.result
        if not result or not result.errors:
            return
        ctx = self.execution_context.context
        denials = getattr(getattr(ctx, "services", None), "denials", None)
        principal = getattr(ctx, "principal", None)
        if denials is None or principal is None:
            return
        seen: set[str] = set()
        for error in result.errors:
            if not isinstance(error.original_error, Forbidden):
                continue
            field = str(error.path[0]) if error.path else "operation"
            if field not in seen:
                seen.add(field)
                await denials.denied(principal, field, error.original_error.message)
