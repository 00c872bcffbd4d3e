"""Whether a resolver's answer is asked for one of its fields, so a costly part of it (a large
run's diff) is read only when some query selects it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from strawberry.types import Info
from strawberry.types.nodes import FragmentSpread, InlineFragment, SelectedField, Selection

__all__ = ["asks_for"]


def asks_for(info: Info[Any, None], name: str) -> bool:
    """Whether the field being resolved selects ``name`` (its GraphQL name) directly or
    through fragments. A field under @skip/@include counts as selected: reading it when it
    is skipped costs time, never a wrong answer."""
    return any(_has(f.selections, name) for f in info.selected_fields)


def _has(selections: Iterable[Selection], name: str) -> bool:
    for s in selections:
        if isinstance(s, SelectedField):
            if s.name == name:
                return True
        elif isinstance(s, FragmentSpread | InlineFragment) and _has(s.selections, name):
            return True
    return False
