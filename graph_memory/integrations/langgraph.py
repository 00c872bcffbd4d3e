"""A LangGraph `BaseStore` on graph_memory: an agent's long-term store becomes versioned,
attributed memory that `recall`, `history` and `forgetContributor` see like any other.

    store = GraphMemoryStore("http://127.0.0.1:8000/graphql", api_key)
    graph = builder.compile(store=store)
    store.put(("user", "alice", "prefs"), "food", {"text": "Alice is vegetarian"})
    store.search(("user", "alice"), query="what does alice eat?")

Namespaces map to scopes (see `store_codec`): ``("user", <id>, ...)``, ``("team", <id>, ...)``
or ``("tenant", ...)``. A put is a fact version citing an episode the store records for the
write (one per scope per batch, by the scope's user or ``actor``), so a changed value
supersedes the old one and history keeps it; a delete retracts it. `search` with a query is
served by recall, ranked as LangGraph's stores rank (the service's relevance floors are off
unless ``recall_options`` sets them, e.g. ``{"min_relevance": 0.3}``); without one it lists the
items, newest first. Every call goes through the service's GraphQL API with the key, so
the tenant and the role's rights are the service's to enforce.

Timestamps: ``updated_at`` is when the current value was recorded; ``created_at`` is when the
item was first written (since its last delete) for `get`, and equals ``updated_at`` in search
results (one call instead of one per hit). A put of the value an item holds corroborates its
version rather than writing a new one, so it leaves ``updated_at`` as it was (LangGraph's
InMemoryStore stamps every put). TTLs are not supported (``supports_ttl`` False).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from graph_memory._client_ops import RecallCalls
from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClientError
from graph_memory.domain import MAX_FACT_FIELD, Tier, check_fact_sizes
from graph_memory.errors import ValidationError
from graph_memory.integrations.store_codec import (
    PREDICATE,
    Address,
    address,
    decode_object,
    decode_subject,
    encode_object,
    index_text,
    matches_filter,
    namespace_matches,
    scope_of,
)
from graph_memory.policy import DEFAULT_POLICY

__all__ = ["GraphMemoryStore", "StoreWriteError"]

_PAGE = 500
_SEARCH_SELECTION = """
  items { score { total } provenance { times { recordedAt } }
          fact { id subject predicate object } }
"""
_MAX_K = 100
_MIN_TEXT = 10  # the write gate's floor for a fact's own text (policy.min_text_chars)
# A store's search ranks what matches its namespace, as LangGraph's own stores do; recall's
# precision floors ("an empty answer is a valid answer") are for prompt-building reads.
RANKED = {"min_score": 0.0, "min_relevance": 0.0, "relative_relevance": 0.0}
_ENDED = ("RETRACTED", "REJECTED")  # a version in these never answers again


class StoreWriteError(GraphMemoryClientError):
    """Some puts or deletes of a batch were refused; the others landed. ``errors`` holds one
    GraphQL-style error per refused item, its ``extensions`` naming the namespace and key."""


def _time(raw: str | None) -> datetime:
    return datetime.fromisoformat(raw) if raw else datetime.now(UTC)


# Puts per write. A write embeds each fact before it answers: ~35 ms an item measured with the
# local embedder on a loaded 2-core machine, up to ~0.3 s for 4 KB values, so the service's
# own batch limit (1000) ran past the client's 30 s timeout. 100 a write stays within it.
DEFAULT_MAX_BATCH = 100
# What the client allows a write per item, over the timeout given: 50 s for a 100-item chunk.
WRITE_SECONDS_PER_ITEM = 0.5


class GraphMemoryStore(BaseStore):
    """See the module docstring. ``scopes`` are the scopes `list_namespaces` looks in when
    its prefix names none (the service has no "every scope" read)."""

    supports_ttl = False

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        source: str = "tool",
        actor: str = "langgraph",
        session_id: str | None = None,
        scopes: Sequence[str] = (),
        recall_options: dict[str, Any] | None = None,
        timeout: float = 30.0,
        max_batch: int = DEFAULT_MAX_BATCH,
    ) -> None:
        # A write from an inferred-tier source is a CANDIDATE until other sessions corroborate
        # it, and a candidate answers no read: every put would land and `get` would return
        # None. Refused here rather than written where the store cannot read it back. (The
        # default trust policy's tiers: a tenant's own policy is the service's to apply.)
        if DEFAULT_POLICY.source_tiers.get(source) == Tier.INFERRED:
            trusted = sorted(s for s, t in DEFAULT_POLICY.source_tiers.items() if t == Tier.USER)
            raise ValueError(
                f"source {source!r} is in the inferred tier: its puts would be candidates that "
                f"get() and search() do not return (a store's put must be readable by its "
                f"get); use a user-tier source ({', '.join(trusted)})"
            )
        self.url = url
        self._key = api_key
        self.source = source
        self.actor = actor
        self.session_id = session_id or f"langgraph-{uuid.uuid4().hex[:12]}"
        self.scopes = tuple(scopes)
        self.recall_options = dict(RANKED if recall_options is None else recall_options)
        # More puts than max_batch in one batch are split into as many writes, each its own
        # episode (at most the service's GRAPH_MEMORY_LIMIT_MAX_BATCH, default 1000). A write
        # answers once every fact is embedded, so the client waits what its chunk may take:
        # a timeout shorter than the write reported a write that landed as UNAVAILABLE, and a
        # caller's retry wrote it all again.
        self.max_batch = max_batch
        self._timeout = max(timeout, WRITE_SECONDS_PER_ITEM * max_batch)

    # -- the two entry points BaseStore requires ---------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.abatch(ops))
        # Called synchronously from inside an event loop: run on a thread with its own loop.
        out: list[list[Result]] = []
        failure: list[BaseException] = []

        def work() -> None:
            try:
                out.append(asyncio.run(self.abatch(ops)))
            except BaseException as e:  # re-raised in the caller's thread
                failure.append(e)

        t = threading.Thread(target=work)
        t.start()
        t.join()
        if failure:
            raise failure[0]
        return out[0]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        for op in ops:  # a batch the store cannot serve whole is refused before any write
            _check(op)
        results: list[Result] = [None] * len(ops)
        errors: list[dict[str, Any]] = []
        async with AsyncGraphMemoryClient(self.url, self._key, timeout=self._timeout) as c:
            i = 0
            while i < len(ops):
                op = ops[i]
                if isinstance(op, PutOp):
                    # Consecutive puts are one write: one episode per scope, one assertFacts.
                    j = i
                    while j < len(ops) and isinstance(ops[j], PutOp):
                        j += 1
                    errors += await self._write(c, [o for o in ops[i:j] if isinstance(o, PutOp)])
                    i = j
                    continue
                if isinstance(op, GetOp):
                    results[i] = await self._get(c, address(op.namespace, op.key))
                elif isinstance(op, SearchOp):
                    results[i] = await self._search(c, op)
                elif isinstance(op, ListNamespacesOp):
                    results[i] = await self._list_namespaces(c, op)
                else:
                    raise TypeError(f"unknown store operation {op!r}")
                i += 1
        if errors:
            raise StoreWriteError(errors)
        return results

    # -- reads -------------------------------------------------------------------------------
    # One notion of an item's current value everywhere: the version the service's time rule
    # answers with (what `facts`, recall and so search serve), never "the last one recorded".
    # Under concurrent puts to one key those differ: each put's version is valid from its own
    # episode's start, so the write that began last wins whatever order the writes land in,
    # and a write that began earlier but landed later stays believed as earlier history
    # (README "Time"). That is a sound last-write-wins order (a put that starts after another
    # returned always wins), so the store keeps the rule rather than stating a validFrom of
    # its own: any start it could state (a constant, the item's creation) would claim the value
    # held in the world before it was written, and recall/context serve store items at a
    # past `validAt` like any fact.
    async def _current(self, c: AsyncGraphMemoryClient, a: Address) -> dict[str, Any] | None:
        page = await c.facts([a.scope], subject=a.subject, predicate=PREDICATE, first=1)
        return page["edges"][0]["node"] if page["edges"] else None

    async def _get(self, c: AsyncGraphMemoryClient, a: Address) -> Item | None:
        current = await self._current(c, a)
        value = None if current is None else decode_object(current["object"])
        if current is None or value is None:
            return None  # not there, or not a value the store could have written
        versions = (await c.history(a.subject, PREDICATE, [a.scope]))["versions"]
        # The item was created by the first version after its last delete (retraction).
        created: str | None = None
        for v in versions:
            created = created or v["recordedAt"]
            if v["retractedAt"]:
                created = None
        return Item(
            value=value,
            key=a.key,
            namespace=a.namespace,
            created_at=_time(created or current["recordedAt"]),
            updated_at=_time(current["recordedAt"]),
        )

    async def _items(self, c: AsyncGraphMemoryClient, scope: str) -> list[dict[str, Any]]:
        """Every current item of a scope, newest first."""
        nodes: list[dict[str, Any]] = []
        after: str | None = None
        while True:
            page = await c.facts([scope], predicate=PREDICATE, first=_PAGE, after=after)
            nodes += [e["node"] for e in page["edges"]]
            if not page["pageInfo"]["hasNextPage"]:
                return nodes
            after = page["pageInfo"]["endCursor"]

    async def _search(self, c: AsyncGraphMemoryClient, op: SearchOp) -> list[SearchItem]:
        scope, root = scope_of(op.namespace_prefix)
        path = tuple(op.namespace_prefix)[len(root) :]
        hits: list[tuple[dict[str, Any], float | None]] = []
        if op.query and op.offset + op.limit > _MAX_K:
            # recall answers at most k=100 items for the whole scope, ranked before the path,
            # filter and offset apply: a page past them would come back short without a word.
            raise ValueError(
                f"search with a query serves at most the scope's {_MAX_K} best matches: "
                f"offset + limit is {op.offset + op.limit}"
            )
        if op.query:
            # Only what an item needs: at k=100 the client's full recall selection is past
            # the service's query-cost limit.
            call = RecallCalls._search(
                "recall",
                _SEARCH_SELECTION,
                {"query": ("String!", op.query), "scopes": ("[String!]!", [scope])},
                {"k": _MAX_K, "kinds": ["FACT"], **self.recall_options},
            )
            result = (await c.execute(call.query, call.variables))["recall"]
            for it in result["items"]:
                fact = it.get("fact") or {}
                if fact.get("predicate") == PREDICATE:
                    times = it["provenance"].get("times") or {}
                    node = {**fact, "recordedAt": times.get("recordedAt")}
                    hits.append((node, float(it["score"]["total"])))
        else:
            hits = [(n, None) for n in await self._items(c, scope)]
        out: list[SearchItem] = []
        for node, score in hits:
            a = decode_subject(scope, node["subject"])
            if a is None or a.path[: len(path)] != path:
                continue
            value = decode_object(node["object"])
            if value is None or not matches_filter(value, op.filter):
                continue
            at = _time(node["recordedAt"])
            out.append(SearchItem(a.namespace, a.key, value, at, at, score))
        return out[op.offset : op.offset + op.limit]

    async def _list_namespaces(
        self, c: AsyncGraphMemoryClient, op: ListNamespacesOp
    ) -> list[tuple[str, ...]]:
        scopes = list(self.scopes)
        for cond in op.match_conditions or ():
            if cond.match_type == "prefix" and "*" not in tuple(cond.path)[:2]:
                try:
                    scopes = [scope_of(cond.path)[0]]
                except ValueError:
                    continue
        if not scopes:
            raise ValueError(
                "list_namespaces needs a prefix naming a scope (('user', <id>), ('team', <id>), "
                "('tenant',)) or GraphMemoryStore(scopes=[...])"
            )
        found: set[tuple[str, ...]] = set()
        for scope in scopes:
            for node in await self._items(c, scope):
                a = decode_subject(scope, node["subject"])
                if a is not None and namespace_matches(a.namespace, op.match_conditions):
                    ns = a.namespace
                    found.add(ns[: op.max_depth] if op.max_depth is not None else ns)
        return sorted(found)[op.offset : op.offset + op.limit]

    # -- writes ------------------------------------------------------------------------------
    async def _write(self, c: AsyncGraphMemoryClient, puts: list[PutOp]) -> list[dict[str, Any]]:
        """Apply puts (last one wins per item, as LangGraph's own stores do); returns the
        refused items' errors."""
        last: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for p in puts:
            last[(tuple(p.namespace), p.key)] = p
        errors: list[dict[str, Any]] = []
        by_scope: dict[str, list[tuple[Address, PutOp]]] = {}
        for p in last.values():
            a = address(p.namespace, p.key)
            if p.value is None:
                errors += await self._delete(c, a)
            else:
                by_scope.setdefault(a.scope, []).append((a, p))
        for scope, items in by_scope.items():
            errors += await self._assert(c, scope, items)
        return errors

    async def _delete(self, c: AsyncGraphMemoryClient, a: Address) -> list[dict[str, Any]]:
        # Every version not yet retracted, not only the one answering: retracting a version
        # reinstates the one it superseded (a retraction says it was never right), and a put
        # that lost a race stays believed as earlier history; either would answer again. So a
        # delete costs one retraction per version since the item's last delete. The answering
        # one goes last, so a reader during the delete never sees an older value.
        versions = (await c.history(a.subject, PREDICATE, [a.scope]))["versions"]
        current = await self._current(c, a)
        live = [v for v in versions if not v["retractedAt"] and v["status"] not in _ENDED]
        live.sort(key=lambda v: current is not None and v["id"] == current["id"])
        errors: list[dict[str, Any]] = []
        for v in live:  # none: deleting what is not there is fine (as in LangGraph's stores)
            try:
                await c.retract_fact(v["id"], "deleted from the LangGraph store")
            except GraphMemoryClientError as e:
                if e.code != "CONFLICT":  # CONFLICT: a concurrent delete retracted it first
                    errors.append(_item_error(a, e.code, str(e)))
        return errors

    async def _assert(
        self, c: AsyncGraphMemoryClient, scope: str, items: list[tuple[Address, PutOp]]
    ) -> list[dict[str, Any]]:
        # The episode is recorded before the facts (they cite it), so it cannot report their
        # outcome: it names what the store was asked to write, and what the store can tell the
        # service will refuse (an object or subject over its bound) is refused here first and
        # left out of it. A chunk within the service's batch limit is one episode and one call.
        errors: list[dict[str, Any]] = []
        facts: list[tuple[Address, dict[str, Any]]] = []
        for a, p in items:
            fact = self._fact(scope, a, p)
            try:
                check_fact_sizes(fact["subject"], fact["object"])
            except ValidationError as e:
                errors.append(_item_error(a, e.code, str(e)))
                continue
            facts.append((a, fact))
        for start in range(0, len(facts), self.max_batch):
            errors += await self._assert_chunk(c, scope, facts[start : start + self.max_batch])
        return errors

    def _fact(self, scope: str, a: Address, p: PutOp) -> dict[str, Any]:
        fields = None if p.index is None or p.index is False else list(p.index)
        # A NUL is no memory's text (the gate refuses it); the object keeps it, JSON-escaped.
        text = (
            index_text(p.value or {}, fields).replace("\x00", " ") if p.index is not False else ""
        )
        fact: dict[str, Any] = {
            "subject": a.subject,
            "predicate": PREDICATE,
            "object": encode_object(p.value or {}),
            "scope": scope,
            "source": self.source,
            "cardinality": "ONE",
        }
        if len(text.strip()) >= _MIN_TEXT:
            fact["text"] = text[:MAX_FACT_FIELD]
        return fact

    async def _assert_chunk(
        self, c: AsyncGraphMemoryClient, scope: str, facts: list[tuple[Address, dict[str, Any]]]
    ) -> list[dict[str, Any]]:
        if not facts:
            return []
        kind, _, ident = scope.partition(":")
        keys = ", ".join(sorted({a.key for a, _ in facts}))
        summary = f"The LangGraph store was asked to write {len(facts)} item(s) in {scope}: {keys}"
        episode_id = await c.record_episode(
            userId=ident if kind == "user" else self.actor,
            sessionId=self.session_id,
            summary=summary[:1000],
            outcome="SUCCESS",
            source=self.source,
            scope=scope,
        )
        out = await c.assert_facts(
            [{**fact, "episodes": [{"episodeId": episode_id}]} for _, fact in facts]
        )
        return [
            _item_error(a, r["error"]["code"], r["error"]["message"])
            for (a, _), r in zip(facts, out["results"], strict=True)
            if not r["ok"]
        ]


def _check(op: Op) -> None:
    """Refuses (ValueError) an operation no store could serve as asked: a put of a value the
    store could not give back (`encode_object`), or a page with a negative limit or offset
    (Python's slicing read ``limit=-1`` as "all but the last")."""
    if isinstance(op, PutOp) and op.value is not None:
        encode_object(op.value)
    if isinstance(op, SearchOp | ListNamespacesOp) and (op.limit < 0 or op.offset < 0):
        raise ValueError(
            f"limit and offset cannot be negative: limit {op.limit}, offset {op.offset}"
        )


def _item_error(a: Address, code: str, message: str) -> dict[str, Any]:
    return {
        "message": f"{a.namespace}/{a.key}: {message}",
        "extensions": {"code": code, "namespace": list(a.namespace), "key": a.key},
    }
