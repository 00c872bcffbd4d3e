"""What one operation may ask for, checked before anything runs.

``QueryLimits`` walks the operation once, with its variables (so ``first: $n`` counts as the
``n`` sent), through fragments, and refuses it with a typed error when:

* its selection depth exceeds ``max_depth`` (``__typename`` not counted) or it has more than
  ``max_aliases`` aliased fields (``QUERY_TOO_COMPLEX``);
* its estimated cost exceeds ``max_cost`` (``QUERY_TOO_COMPLEX``). The cost is the number of
  values the answer could hold: every field costs 1 times the sizes of the lists it sits in.
  A list's size is its ``first`` / ``k`` argument (on a connection or a recall result, the
  list right below the field that takes the argument; at most the largest its service
  accepts, so one past it is that service's VALIDATION), else ``DEFAULT_LIST_SIZE``; ``recall``
  and ``context`` add ``SEARCH_COST`` each (an embedding and several index searches, ~50 ms
  of a 2-core machine), so with the default ``max_cost`` one request holds at most 9 of them,
  however little they select;
* an argument is over its size (``VALIDATION`` with ``extensions.limit``): a batch, a scope
  list, any other list, the recall query text, any other string; or a number in it is not
  finite (``VALIDATION``: a Float literal past the double range reads as inf).

The walk runs before graphql-core validates the document, and is bounded itself: it visits at
most ``MAX_VISITS`` selections (fragments inlined at every spread, so ``...F1 ...F1`` nested
24 deep would be 16 million of them: one kilobyte that held the event loop for 45 s), and a
selection set may name one response key at most ``MAX_REPEATS`` times (validation compares
every pair of fields of one name: 190 copies of a field cost it seconds). Both are
``QUERY_TOO_COMPLEX``.

Introspection (GraphiQL's schema query) is free but bounded: inside ``__schema`` / ``__type``
at most ``INTROSPECTION_LISTS`` nested lists (types > fields > args) and ``INTROSPECTION_DEPTH``
levels, which GraphiQL's own query fits and a recursive ``types { fields { type { fields ...``
does not.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLList,
    GraphQLNamedType,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    OperationDefinitionNode,
    OperationType,
    SchemaMetaFieldDef,
    SelectionSetNode,
    TypeMetaFieldDef,
    Undefined,
    get_named_type,
    get_nullable_type,
    value_from_ast_untyped,
)
from strawberry.extensions import SchemaExtension, ValidationCache

from graph_memory.errors import GraphMemoryError, LimitExceeded, QueryTooComplex, ValidationError
from graph_memory.ingestion import MAX_TURNS
from graph_memory.limits import Limits
from graph_memory.services.recall.request import MAX_K

__all__ = [
    "LimitedValidationCache",
    "QueryLimits",
    "Shape",
    "check_document",
    "check_operation",
]

DEFAULT_LIST_SIZE = 10
SEARCH_COST = 10_000
SEARCH_FIELDS = frozenset({"recall", "context"})
# A size is estimated at most at the largest value its service accepts (a page of facts,
# episodes or the audit log: 500; recall's k: 100): a larger one is left for the service to
# refuse with VALIDATION naming the argument, which says more than a cost error would.
MAX_SIZE_ESTIMATE = 500
SIZE_ARGS = {"first": MAX_SIZE_ESTIMATE, "k": MAX_K}
INTROSPECTION_LISTS = 3
INTROSPECTION_DEPTH = 16
# GraphiQL's introspection query is ~400 visits; a page of facts with every field ~100. A
# client that adds `id` / `__typename` to each of many fragments spread in one place repeats a
# key tens of times; 50 copies cost validation ~1,200 pairwise comparisons, 190 seconds.
MAX_VISITS = 20_000
MAX_REPEATS = 50
# Mutation arguments holding one item per write, and the limit each answers to.
EPISODE_BATCH_FIELDS = frozenset({"recordEpisodes"})


@dataclass(frozen=True)
class Shape:
    depth: int
    aliases: int
    cost: int
    # Selections visited, spreads counted (the walk's own budget, not the answer's shape).
    visits: int = field(default=0, compare=False)


@dataclass
class _Walk:
    schema: GraphQLSchema
    fragments: Mapping[str, FragmentDefinitionNode]
    variables: Mapping[str, Any]
    limits: Limits
    depth: int = 0
    aliases: int = 0
    cost: int = 0
    visits: int = 0


def check_operation(
    schema: GraphQLSchema,
    operation: OperationDefinitionNode,
    fragments: Mapping[str, FragmentDefinitionNode],
    variables: Mapping[str, Any] | None,
    limits: Limits,
    visits: int = 0,
) -> Shape:
    """The operation's shape; raises QueryTooComplex or LimitExceeded at the first bound
    crossed (the walk stops there, so a huge query costs no more than the limit). ``visits``:
    selections already visited in the same document (one budget for all of it)."""
    root = {
        OperationType.QUERY: schema.query_type,
        OperationType.MUTATION: schema.mutation_type,
        OperationType.SUBSCRIPTION: schema.subscription_type,
    }[operation.operation]
    walk = _Walk(schema, fragments, _with_defaults(operation, variables), limits, visits=visits)
    if root is not None:
        _selections(walk, operation.selection_set, root, 1, 1, None, (), None)
    return Shape(depth=walk.depth, aliases=walk.aliases, cost=walk.cost, visits=walk.visits)


def _with_defaults(
    operation: OperationDefinitionNode, variables: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The variables sent, and the operation's defaults for those left out: `$n: Int = 500`
    sent without `n` lists 500, and is costed so (it was costed as no size at all)."""
    values = dict(variables or {})
    for d in operation.variable_definitions or ():
        name = d.variable.name.value
        if name not in values and d.default_value is not None:
            try:
                values[name] = value_from_ast_untyped(d.default_value)
            except (ValueError, RecursionError):
                continue  # validation refuses the literal in its own words
    return values


def check_document(
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Mapping[str, Any] | None,
    limits: Limits,
) -> None:
    """Every operation and every fragment of the document, whether it runs or not: validation
    reads them all (a second operation, or a fragment no operation spreads, is as costly to
    validate as the one that runs), all within one ``MAX_VISITS``."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    visits = 0
    for op in document.definitions:
        if isinstance(op, OperationDefinitionNode):
            visits = check_operation(schema, op, fragments, variables, limits, visits).visits
    for name, frag in fragments.items():
        parent = schema.get_type(frag.type_condition.name.value)
        if parent is not None:
            walk = _Walk(schema, fragments, variables or {}, limits, visits=visits)
            # A fragment on an introspection type (GraphiQL's TypeRef) is bounded as
            # introspection is where it is spread.
            meta = (0, 0) if parent.name.startswith("__") else None
            _selections(walk, frag.selection_set, parent, 1, 1, None, (name,), meta)
            visits = walk.visits


def _fields(
    walk: _Walk, selection_set: SelectionSetNode, spread: tuple[str, ...]
) -> Iterator[tuple[FieldNode, tuple[str, ...]]]:
    """Field nodes of a selection set, fragments inlined (a fragment already on the path is
    skipped: validation, which runs after, refuses cycles); every selection counts a visit."""
    for sel in selection_set.selections:
        walk.visits += 1
        if walk.visits > MAX_VISITS:
            raise QueryTooComplex(
                f"the operation has more than {MAX_VISITS} selections, fragments expanded"
            )
        if isinstance(sel, FieldNode):
            yield sel, spread
        elif isinstance(sel, InlineFragmentNode):
            yield from _fields(walk, sel.selection_set, spread)
        elif isinstance(sel, FragmentSpreadNode):
            name = sel.name.value
            frag = walk.fragments.get(name)
            if frag is not None and name not in spread:
                yield from _fields(walk, frag.selection_set, (*spread, name))


def _selections(
    walk: _Walk,
    selection_set: SelectionSetNode,
    parent: GraphQLNamedType | None,
    depth: int,
    multiplier: int,
    pending: int | None,
    spread: tuple[str, ...],
    introspection: tuple[int, int] | None,
) -> None:
    """``pending``: a size argument given above, for the first list below. ``introspection``:
    (depth, nested lists) inside ``__schema`` / ``__type``, None outside. ``parent`` None (or
    no object type): selections under a field the schema does not have (validation refuses
    it, after reading it all) are not costed but count toward the visits and repeats."""
    obj = parent if isinstance(parent, GraphQLObjectType) else None
    limits = walk.limits
    repeats: dict[str, int] = {}
    for node, path in _fields(walk, selection_set, spread):
        name = node.name.value
        key = node.alias.value if node.alias is not None else name
        repeats[key] = repeats.get(key, 0) + 1
        if repeats[key] > MAX_REPEATS:
            raise QueryTooComplex(
                f"'{key}' is selected more than {MAX_REPEATS} times in one selection set"
            )
        if node.alias is not None:
            walk.aliases += 1
            if walk.aliases > limits.max_aliases:
                raise QueryTooComplex(
                    f"the operation has more than {limits.max_aliases} aliased fields"
                )
        if name == "__typename":
            continue
        field_def = _field(walk.schema, obj, name) if obj is not None else None
        if field_def is None or obj is None:
            if node.selection_set is not None:
                _selections(walk, node.selection_set, None, depth, 1, None, path, introspection)
            continue
        nullable = get_nullable_type(field_def.type)
        is_list = isinstance(nullable, GraphQLList)
        child = get_named_type(field_def.type)
        if introspection is not None or name in ("__schema", "__type"):
            i_depth, i_lists = introspection or (0, 0)
            i_depth, i_lists = i_depth + 1, i_lists + (1 if is_list else 0)
            if i_depth > INTROSPECTION_DEPTH or i_lists > INTROSPECTION_LISTS:
                raise QueryTooComplex(
                    f"introspection nests deeper than {INTROSPECTION_DEPTH} levels or "
                    f"{INTROSPECTION_LISTS} lists"
                )
            if node.selection_set is not None:
                _selections(
                    walk, node.selection_set, child, depth, 1, None, path, (i_depth, i_lists)
                )
            continue
        walk.depth = max(walk.depth, depth)
        if depth > limits.max_depth:
            raise QueryTooComplex(f"the operation nests deeper than {limits.max_depth} levels")
        args = _arguments(walk, node, field_def.args, obj, depth)
        size = next((_size(args[a], cap) for a, cap in SIZE_ARGS.items() if a in args), None)
        inner_pending, inner = pending, multiplier
        if is_list:
            inner = multiplier * (size or pending or DEFAULT_LIST_SIZE)
            inner_pending = None
        elif size is not None:
            inner_pending = size
        # Only the root recall/context fields search; a result's own `context` part (the
        # score a neighbour lent it) is a number like any other.
        search = name in SEARCH_FIELDS and parent is walk.schema.query_type
        walk.cost += inner * (1 + (SEARCH_COST if search else 0))
        if walk.cost > limits.max_cost:
            raise QueryTooComplex(
                f"the operation's estimated cost exceeds {limits.max_cost} (lists multiply "
                "what they contain: lower first/k or select fewer nested lists)"
            )
        if node.selection_set is not None:
            _selections(
                walk, node.selection_set, child, depth + 1, inner, inner_pending, path, None
            )


def _field(schema: GraphQLSchema, parent: GraphQLObjectType, name: str) -> Any:
    """The field's definition, the introspection entry points included (graphql-core keeps
    them out of the root type's fields); None for a field the schema does not have."""
    if parent is schema.query_type and name == "__schema":
        return SchemaMetaFieldDef
    if parent is schema.query_type and name == "__type":
        return TypeMetaFieldDef
    return parent.fields.get(name)


def _size(value: Any, cap: int) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return max(1, min(value, cap))
    return None


def _arguments(
    walk: _Walk, node: FieldNode, defs: Mapping[str, Any], parent: GraphQLObjectType, depth: int
) -> dict[str, Any]:
    """The field's argument values (literals and variables resolved, defaults filled), each
    checked against its size limit."""
    values: dict[str, Any] = {}
    given = {a.name.value: a for a in node.arguments or ()}
    for name, arg_def in defs.items():
        if name in given:
            try:
                value = value_from_ast_untyped(given[name].value, dict(walk.variables))
            except (ValueError, RecursionError):
                # An integer too long for int() (int_literals.py) and the like: validation,
                # which runs after this walk, refuses the literal with its own words.
                continue
        elif arg_def.default_value is not Undefined:
            value = arg_def.default_value
        else:
            continue
        values[name] = value
        batch = None
        if depth == 1 and parent is walk.schema.mutation_type:
            batch = (
                walk.limits.max_episode_batch
                if node.name.value in EPISODE_BATCH_FIELDS
                else walk.limits.max_batch
            )
        _check_value(walk.limits, name, value, batch)
    return values


def _check_value(limits: Limits, name: str, value: Any, batch: int | None) -> None:
    """Lists and strings anywhere in one argument value, without recursion (a variable may
    nest as deep as its JSON allowed). An error's message names where in the value it is
    (``session.turns[3].content``), so a client knows which item to fix; its field is the
    leaf's name."""
    stack: list[tuple[str, Any, int | None, int, str]] = [(name, value, batch, 0, name)]
    while stack:
        key, item, top_batch, nesting, path = stack.pop()
        if nesting > limits.max_nesting:
            raise LimitExceeded(
                f"{name} nests deeper than {limits.max_nesting} levels",
                field=name,
                limit="max_nesting",
                maximum=limits.max_nesting,
            )
        if isinstance(item, str):
            bound, limit = (
                (limits.max_query_text, "max_query_text")
                if key == "query" and nesting == 0
                else (limits.max_string, "max_string")
            )
            if len(item) > bound:
                raise LimitExceeded(
                    f"{path} is longer than {bound} characters",
                    field=key,
                    limit=limit,
                    maximum=bound,
                )
        elif isinstance(item, list):
            if key == "scopes":
                bound, limit = limits.max_scopes, "max_scopes"
            elif key == "turns" and nesting == 1:
                # A session's turns (SessionInput.turns): the ingestion rule's own limit, which
                # checks them with the rest of the session.
                bound, limit = MAX_TURNS, "max_turns"
            elif top_batch is not None:
                bound = top_batch
                limit = (
                    "max_episode_batch" if top_batch == limits.max_episode_batch else "max_batch"
                )
            else:
                bound, limit = limits.max_list, "max_list"
            if len(item) > bound:
                raise LimitExceeded(
                    f"{path} has {len(item)} items; the limit is {bound}",
                    field=key,
                    limit=limit,
                    maximum=bound,
                )
            stack.extend((key, x, None, nesting + 1, f"{path}[{i}]") for i, x in enumerate(item))
        elif isinstance(item, dict):
            stack.extend((str(k), v, None, nesting + 1, f"{path}.{k}") for k, v in item.items())
        elif isinstance(item, float) and not math.isfinite(item):
            # GraphQL's Float refuses inf and NaN as variables, but reads a literal past the
            # double range (1e400) as inf: refused alike, whichever argument it is.
            raise ValidationError(f"{path} must be a finite number", field=key)


def limit_error(error: GraphMemoryError) -> GraphQLError:
    ext: dict[str, Any] = {"code": error.code}
    if error.field:
        ext["field"] = error.field
    if isinstance(error, LimitExceeded):
        ext["limit"] = error.limit
        ext["max"] = error.maximum
    return GraphQLError(error.message, extensions=ext)


class QueryLimits(SchemaExtension):
    """Runs ``check_document`` with the deployment's limits (from the request's services)
    before validation (whose cost grows with what the check bounds), and caps the parser's
    token count. A refusal stands as the validation's errors (LimitedValidationCache keeps
    it), so nothing validates or executes."""

    def _limits(self) -> Limits:
        ctx = self.execution_context.context
        services = getattr(ctx, "services", None)
        settings = getattr(services, "settings", None)
        limits = getattr(settings, "limits", None)
        return limits if isinstance(limits, Limits) else Limits()

    def on_operation(self) -> Iterator[None]:
        self.execution_context.parse_options["max_tokens"] = self._limits().max_tokens
        yield

    def on_validate(self) -> Iterator[None]:
        ctx = self.execution_context
        doc = ctx.graphql_document
        if doc is not None and not ctx.pre_execution_errors:
            try:
                check_document(ctx.schema._schema, doc, ctx.variables, self._limits())
            except (QueryTooComplex, LimitExceeded, ValidationError) as e:
                ctx.pre_execution_errors = [limit_error(e)]
        yield


class LimitedValidationCache(ValidationCache):
    """strawberry's ValidationCache, except that a refusal already made before validation
    (QueryLimits) stands: the cache would validate anyway and replace it."""

    def on_validate(self) -> Iterator[None]:
        if self.execution_context.pre_execution_errors:
            yield
            return
        yield from super().on_validate()
