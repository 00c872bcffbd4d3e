"""FORBIDDEN answers reach the audit log (services/audit/denials.py rate-limits them): a
refused field (AuditDenials) and a batch item refused in its own slot (audit_item_denials)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import Any

from strawberry.extensions import SchemaExtension
from strawberry.types import Info

from graph_memory.errors import Forbidden
from graph_memory.graphql.types.episode import ItemError

__all__ = ["AuditDenials", "audit_item_denials"]


async def audit_item_denials(info: Info[Any, None], errors: Iterable[ItemError | None]) -> None:
    """A batch item refused FORBIDDEN is a denial as a refused field is, though the answer
    carries it as data the extension does not look at: audited once per field, like the
    extension's, with the first such item's reason."""
    reason = next((e.message for e in errors if e is not None and e.code == Forbidden.code), None)
    ctx = info.context
    denials = getattr(getattr(ctx, "services", None), "denials", None)
    principal = getattr(ctx, "principal", None)
    if reason is None or denials is None or principal is None:
        return
    await denials.denied(principal, info.field_name, reason)


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
