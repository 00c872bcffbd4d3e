"""An integer literal too long for Python to convert is the caller's mistake, not INTERNAL.

Python converts at most ``sys.get_int_max_str_digits()`` digits (4300 by default, a guard
against quadratic-time conversion, kept on purpose). graphql-core's ``Int`` (and the JSON
scalar) call ``int()`` on a literal while validating it, and the ValueError came back as a
validation error wrapping an exception of ours, so INTERNAL. The spec's own rule (values of
correct type) is kept for every other literal; a literal holding such an integer is refused
first with VALIDATION, and the message does not echo its digits.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

from graphql import (
    GraphQLError,
    GraphQLInputType,
    IntValueNode,
    ListValueNode,
    ObjectValueNode,
    ValueNode,
    ValuesOfCorrectTypeRule,
)
from graphql.language.visitor import SKIP, VisitorAction
from strawberry.extensions import SchemaExtension

__all__ = ["BoundedIntLiterals", "IntLiteralRule", "too_long_int"]


def too_long_int(node: ValueNode) -> IntValueNode | None:
    """The first Int literal in ``node`` (lists and objects walked) that ``int()`` refuses."""
    limit = sys.get_int_max_str_digits()
    stack: list[ValueNode] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, IntValueNode):
            if limit and len(item.value.lstrip("-")) > limit:
                return item
        elif isinstance(item, ListValueNode):
            stack.extend(item.values)
        elif isinstance(item, ObjectValueNode):
            stack.extend(f.value for f in item.fields)
    return None


class IntLiteralRule(ValuesOfCorrectTypeRule):
    """ValuesOfCorrectTypeRule, refusing an over-long integer before the scalar parses it."""

    def is_valid_value_node(
        self, node: ValueNode, input_type: GraphQLInputType | None
    ) -> VisitorAction:
        bad = too_long_int(node)
        if bad is None:
            return super().is_valid_value_node(node, input_type)
        self.report_error(
            GraphQLError(
                f"an integer literal has more than {sys.get_int_max_str_digits()} digits",
                bad,
                extensions={"code": "VALIDATION"},
            )
        )
        return SKIP


class BoundedIntLiterals(SchemaExtension):
    """Puts ``IntLiteralRule`` in the place of the spec's rule for every operation."""

    def on_operation(self) -> Iterator[None]:
        ctx = self.execution_context
        ctx.validation_rules = tuple(
            IntLiteralRule if rule is ValuesOfCorrectTypeRule else rule
            for rule in ctx.validation_rules
        )
        yield
