"""Every field a session token's request resolves stays inside the token's scopes.

One extension instead of a check in each resolver: a field added later is refused to tokens
until it is listed here (``ROOT_FIELDS``), so no new read path can forget the rule. For a
principal bound to scopes (services/access/session_scope.py) each field resolution

1. checks every ``scope``/``scopes`` value in its arguments, at any depth of input objects
   (but a batch's items the write path checks one by one, ``PER_ITEM_ARGUMENTS``);
2. at the root, runs the field's rule (ids it names, defaulted scopes, the recorded user), or
   refuses a field not listed (admin and analyst fields, minting);
3. checks what it returns: at the root, an object (or list item) with a ``scope`` outside the
   token's, or naming a memory outside them, is refused; below the root a field is a link from
   an allowed memory (provenance, dependsOn, dependents), and a linked memory outside the
   scopes is left out of the list (null for a single link), so a link cannot reach bob's
   memory nor let bob's link fail alice's whole answer.

Keys (``scopes`` None) take the first line of ``resolve`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from inspect import isawaitable
from typing import Any

from graphql import GraphQLNonNull, GraphQLResolveInfo
from strawberry.extensions import SchemaExtension

from graph_memory.domain import Principal
from graph_memory.errors import Forbidden
from graph_memory.services.access.session_scope import ScopeGuard

__all__ = ["PER_ITEM_ARGUMENTS", "ROOT_FIELDS", "SessionScope"]

Args = dict[str, Any]
Rule = Callable[[ScopeGuard, Principal, Args], Awaitable[None]]


def named_scopes(value: object) -> Iterator[str]:
    """Every string under a ``scope`` or ``scopes`` key of the raw (GraphQL-named) arguments."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("scope", "scopes"):
                if isinstance(item, str):
                    yield item
                elif isinstance(item, list):
                    yield from (s for s in item if isinstance(s, str))
            else:
                yield from named_scopes(item)
    elif isinstance(value, list):
        for item in value:
            yield from named_scopes(item)


async def _arguments_only(guard: ScopeGuard, p: Principal, args: Args) -> None:
    del guard, p, args  # the argument walk and the result check are the whole rule


def _episode_items(args: Args) -> list[Args]:
    if "episodes" in args:
        return [e for e in args["episodes"] or [] if isinstance(e, dict)]
    return [args["episode"]] if isinstance(args.get("episode"), dict) else []


async def _record_episodes(guard: ScopeGuard, p: Principal, args: Args) -> None:
    for e in _episode_items(args):
        guard.same_user(p, e.get("userId"), "userId")
        guard.within(p, [e.get("scope") or f"user:{e.get('userId')}"], "scope")


async def _remember(guard: ScopeGuard, p: Principal, args: Args) -> None:
    """The episode as recordEpisode's; each fact cites it first, so a fact without a scope
    takes the episode's, and any other episode or premise it names must be the token's."""
    await _record_episodes(guard, p, args)
    given = args.get("episode")
    episode: Args = given if isinstance(given, dict) else {}
    own = episode.get("scope") or f"user:{episode.get('userId')}"
    facts = [f for f in args.get("facts") or [] if isinstance(f, dict)]
    named = [c.get("episodeId") for f in facts for c in f.get("episodes") or []]
    await guard.ids_within(p, named + [d for f in facts for d in f.get("dependsOn") or []], "facts")
    for f in facts:
        guard.within(p, [f.get("scope") or own], "scope")


def _ids(*names: str) -> Rule:
    async def rule(guard: ScopeGuard, p: Principal, args: Args) -> None:
        ids: list[object] = []
        for name in names:
            value = args.get(name)
            ids.extend(value if isinstance(value, list) else [value])
        await guard.ids_within(p, ids, names[0])

    return rule


async def _ingest_session(guard: ScopeGuard, p: Principal, args: Args) -> None:
    session = args.get("session") or {}
    options = args.get("options") or {}
    guard.same_user(p, session.get("userId"), "userId")
    guard.within(p, [options.get("scope") or f"user:{session.get('userId')}"], "scope")


# The root fields a session token may call, each with the rule its arguments obey beyond
# the scope walk. Anything else (admin and analyst fields, minting) is refused to tokens.
ROOT_FIELDS: dict[tuple[str, str], Rule] = {
    **{
        ("Query", name): _arguments_only
        for name in (
            "fact",
            "facts",
            "history",
            "entity",
            "episodes",
            "episode",
            "predicates",
            "recall",
            "context",
            "procedures",
            "tenantPolicy",
            "ingestJob",
            "memos",
        )
    },
    ("Query", "factCitations"): _ids("ids"),
    # The episode gate checks each episode's user and scope (services/facts/gate.py).
    ("Mutation", "recordEpisodes"): _arguments_only,
    ("Mutation", "recordEpisode"): _arguments_only,
    # The write checks each fact's scope, cited episodes and premises (services/facts/
    # rules.py: check_token_scopes, before its locks, the episodes again under them).
    ("Mutation", "assertFacts"): _arguments_only,
    ("Mutation", "remember"): _remember,
    ("Mutation", "retractFact"): _ids("id"),
    ("Mutation", "upsertProcedure"): _arguments_only,
    ("Mutation", "recordProcedureOutcome"): _ids("id", "episodeId"),
    ("Mutation", "ingestSession"): _ingest_session,
    ("Mutation", "closeTodo"): _ids("id"),
    # A memory id outside the scopes is reported in its own result (services/trust/outcomes.py);
    # the episode is the whole report's.
    ("Mutation", "reportOutcome"): _ids("episodeId"),
    ("Mutation", "revokeSessionToken"): _arguments_only,
}

# Batch arguments whose items the write path checks one by one against the token's scopes
# (the episode gate, the fact write's rules): an item outside them is reported FORBIDDEN in
# its own result slot and its siblings land, so the argument walk leaves their scopes out (it
# would refuse the whole batch).
PER_ITEM_ARGUMENTS: dict[tuple[str, str], str] = {
    ("Mutation", "recordEpisodes"): "episodes",
    ("Mutation", "assertFacts"): "facts",
}


def _walked(info: GraphQLResolveInfo[Any], kwargs: dict[str, object]) -> dict[str, object]:
    if info.path.prev is not None:
        return kwargs
    per_item = PER_ITEM_ARGUMENTS.get((info.parent_type.name, info.field_name))
    return {k: v for k, v in kwargs.items() if k != per_item}


# Objects that carry no scope of their own but name a memory that has one (Evidence and
# ProvenanceEpisode show an episode's summary, TurnCitation a fact's turns).
_LINKS = ("episode_id", "fact_id")


def _links(item: object) -> list[str]:
    if getattr(item, "scope", None) is not None:
        return []
    return [
        link
        for link in (getattr(item, name, None) for name in _LINKS)
        if isinstance(link, str) and link
    ]


def _own_scope_allowed(p: Principal, item: object) -> bool:
    scope = getattr(item, "scope", None)
    return p.scopes is None or scope is None or scope in p.scopes


class SessionScope(SchemaExtension):
    def resolve(
        self,
        _next: Callable[..., object],
        root: object,
        info: GraphQLResolveInfo[Any],
        *args: object,
        **kwargs: object,
    ) -> object:
        principal: Principal | None = getattr(info.context, "principal", None)
        if principal is None or principal.scopes is None:
            return _next(root, info, *args, **kwargs)
        field = info.field_name
        ScopeGuard.within(principal, named_scopes(_walked(info, kwargs)), field)
        if info.path.prev is None and not field.startswith("__"):
            return self._root(principal, _next, root, info, args, kwargs)
        result = _next(root, info, *args, **kwargs)
        if isawaitable(result):
            return self._kept_later(principal, result, info)
        items = result if isinstance(result, list) else [result]
        if any(_links(i) for i in items):
            return self._kept(principal, result, info)
        return _keep(principal, result, info, set())

    @staticmethod
    async def _root(
        principal: Principal,
        _next: Callable[..., object],
        root: object,
        info: GraphQLResolveInfo[Any],
        args: tuple[object, ...],
        kwargs: dict[str, object],
    ) -> object:
        """A root field names what it reads (by id or by scopes): anything of it outside the
        token's scopes refuses the field."""
        field = info.field_name
        rule = ROOT_FIELDS.get((info.parent_type.name, field))
        if rule is None:
            raise Forbidden(f"a session token may not call {field}")
        guard: ScopeGuard = info.context.services.scope_guard
        await rule(guard, principal, kwargs)
        pending = _next(root, info, *args, **kwargs)
        result = await pending if isawaitable(pending) else pending
        items = result if isinstance(result, list) else [result]
        ScopeGuard.within(principal, (getattr(i, "scope", None) for i in items), field)
        await guard.ids_within(principal, [k for i in items for k in _links(i)], field)
        return result

    @staticmethod
    async def _kept_later(
        principal: Principal, pending: Awaitable[object], info: GraphQLResolveInfo[Any]
    ) -> object:
        return await SessionScope._kept(principal, await pending, info)

    @staticmethod
    async def _kept(principal: Principal, result: object, info: GraphQLResolveInfo[Any]) -> object:
        items = result if isinstance(result, list) else [result]
        guard: ScopeGuard = info.context.services.scope_guard
        hidden = await guard.outside(principal, [k for i in items for k in _links(i)])
        return _keep(principal, result, info, hidden)


def _keep(
    principal: Principal, result: object, info: GraphQLResolveInfo[Any], hidden: set[str]
) -> object:
    """A nested field is a link from a memory the token may read: a linked memory outside its
    scopes (by its own scope or the memory it names, ``hidden``) is left out of a list, or
    null for a single link, so one user's link cannot fail another user's whole answer. Only
    a link that may not be null is refused."""

    def allowed(item: object) -> bool:
        return _own_scope_allowed(principal, item) and not hidden.intersection(_links(item))

    if isinstance(result, list):
        kept = [i for i in result if allowed(i)]
        return result if len(kept) == len(result) else kept
    if allowed(result):
        return result
    if isinstance(info.return_type, GraphQLNonNull):
        raise Forbidden(
            "this session token may not read what this link leads to", field=info.field_name
        )
    return None
