"""The typed Python client: snake_case arguments, frozen dataclass results
(`graph_memory.client_types`), and a `ItemsRejected` exception when items of a batch were
refused. camelCase stays on the wire.

    with MemoryClient("http://127.0.0.1:8000/graphql", key) as m:
        ctx = m.context("plan alice's trip", 300, ["user:alice", "tenant"])
        ep = m.record_episode("alice", "s1", "Alice said she moved to Berlin in January.")
        m.assert_facts([FactIn("alice", "lives_in", "Berlin", episodes=(ep,))])

Built on the dict client (`graph_memory.client`, still there as ``.raw`` for the calls this
one does not wrap): the same operations, the same errors (`GraphMemoryClientError`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar

import httpx

from graph_memory._client_ops import FactCalls, Op, RecallCalls, TrustCalls
from graph_memory.client import AsyncGraphMemoryClient, GraphMemoryClient, GraphMemoryClientError
from graph_memory.client_types import (
    AssertResult,
    ContextResult,
    EpisodeIn,
    EpisodeResult,
    Fact,
    FactIn,
    FactPage,
    FactResult,
    ForgetReceipt,
    History,
    Outcome,
    RecallResult,
    from_wire,
    to_wire,
)

__all__ = ["AsyncMemoryClient", "ItemsRejected", "MemoryClient"]

T = TypeVar("T")


class ItemsRejected(GraphMemoryClientError):
    """Some items of a batch were refused; the others landed. ``result`` is the whole typed
    result (what landed included) and ``failed`` the refused items, each with its error."""

    def __init__(self, result: Any, failed: Sequence[EpisodeResult | FactResult]) -> None:
        super().__init__(
            [
                {
                    "message": f"item {r.index}: {r.error.message}",
                    "extensions": {"code": r.error.code, "field": r.error.field},
                }
                for r in failed
                if r.error is not None
            ]
        )
        self.result = result
        self.failed = tuple(failed)


@dataclass(frozen=True)
class _Call(Generic[T]):
    op: Op[Any]
    parse: Callable[[Any], T]


def _episodes(raise_on_error: bool) -> Callable[[Any], tuple[EpisodeResult, ...]]:
    def parse(rows: list[dict[str, Any]]) -> tuple[EpisodeResult, ...]:
        out = tuple(from_wire(EpisodeResult, r) for r in rows)
        failed = [r for r in out if not r.ok]
        if failed and raise_on_error:
            raise ItemsRejected(out, failed)
        return out

    return parse


def _asserted(raise_on_error: bool) -> Callable[[Any], AssertResult]:
    def parse(raw: dict[str, Any]) -> AssertResult:
        out = from_wire(AssertResult, raw)
        failed = [r for r in out.results if not r.ok]
        if failed and raise_on_error:
            raise ItemsRejected(out, failed)
        return out

    return parse


def _page(raw: dict[str, Any]) -> FactPage:
    return FactPage(
        facts=tuple(from_wire(Fact, e["node"]) for e in raw["edges"]),
        has_next_page=raw["pageInfo"]["hasNextPage"],
        end_cursor=raw["pageInfo"]["endCursor"],
    )


def _recalled(raw: dict[str, Any]) -> RecallResult:
    items = []
    for it in raw["items"]:
        fact = it.get("fact") or {}
        flat = {**it, "factId": fact.get("id"), "confidence": fact.get("confidence")}
        items.append(flat)
    return from_wire(RecallResult, {**raw, "items": items})


def _fact(raw: dict[str, Any] | None) -> Fact | None:
    return None if raw is None else from_wire(Fact, raw)


_FACT_FILTERS = (
    "subject",
    "predicate",
    "include_candidates",
    "include_expired",
    "needs_verification",
)


class Calls:
    """One builder per call, shared by the sync and async clients."""

    @staticmethod
    def record_episodes(episodes: Sequence[EpisodeIn], raise_on_error: bool) -> _Call[Any]:
        return _Call(FactCalls.record_episodes(to_wire(list(episodes))), _episodes(raise_on_error))

    @staticmethod
    def assert_facts(
        facts: Sequence[FactIn], key: str | None, raise_on_error: bool
    ) -> _Call[AssertResult]:
        return _Call(FactCalls.assert_facts(to_wire(list(facts)), key), _asserted(raise_on_error))

    @staticmethod
    def facts(scopes: Sequence[str], kw: dict[str, Any]) -> _Call[FactPage]:
        # The filter's fields by their Python names: FactCalls.facts puts them on the wire.
        flt = {k: kw.pop(k) for k in _FACT_FILTERS}
        flt = {k: v for k, v in flt.items() if v is not None}
        return _Call(FactCalls.facts(list(scopes), **kw, **flt), _page)

    @staticmethod
    def fact(fact_id: str) -> _Call[Fact | None]:
        return _Call(FactCalls.fact(fact_id), _fact)

    @staticmethod
    def history(
        subject: str, predicate: str, scopes: Sequence[str], as_of: datetime | None
    ) -> _Call[History]:
        op = FactCalls.history(subject, predicate, list(scopes), as_of)
        return _Call(op, lambda raw: from_wire(History, raw))

    @staticmethod
    def one_fact(op: Op[Any]) -> _Call[Fact]:
        return _Call(op, lambda raw: from_wire(Fact, raw))

    @staticmethod
    def recall(query: str, scopes: Sequence[str], options: dict[str, Any]) -> _Call[RecallResult]:
        return _Call(RecallCalls.recall(query, list(scopes), options), _recalled)

    @staticmethod
    def context(
        query: str, budget: int, scopes: Sequence[str], options: dict[str, Any]
    ) -> _Call[ContextResult]:
        op = RecallCalls.context(query, budget, list(scopes), options)
        return _Call(op, lambda raw: from_wire(ContextResult, raw))

    @staticmethod
    def forget(user_id: str) -> _Call[ForgetReceipt]:
        return _Call(TrustCalls.forget_contributor(user_id), lambda r: from_wire(ForgetReceipt, r))


def _episode(
    user_id: str, session_id: str, summary: str, outcome: Outcome, kw: dict[str, Any]
) -> EpisodeIn:
    kw = {k: tuple(v) if isinstance(v, list) else v for k, v in kw.items()}
    return EpisodeIn(user_id, session_id, summary, outcome, **kw)


class MemoryClient:
    """Synchronous typed client. Every read takes ``as_of`` (what the memory believed then)
    and, where it applies, ``valid_at`` (what was true then); both default to now."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.raw = GraphMemoryClient(url, api_key, timeout=timeout, transport=transport)

    def close(self) -> None:
        self.raw.close()

    def __enter__(self) -> MemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, call: _Call[T]) -> T:
        return call.parse(self.raw._call(call.op))

    def record_episodes(
        self, episodes: Sequence[EpisodeIn], *, raise_on_error: bool = True
    ) -> tuple[EpisodeResult, ...]:
        return self._run(Calls.record_episodes(episodes, raise_on_error))

    def record_episode(
        self,
        user_id: str,
        session_id: str,
        summary: str,
        outcome: Outcome = "SUCCESS",
        **fields: Any,
    ) -> str:
        """The new episode's id. Other fields as `EpisodeIn` (started_at, topics, scope...)."""
        ep = _episode(user_id, session_id, summary, outcome, fields)
        return str(self.record_episodes([ep])[0].id)

    def assert_facts(
        self,
        facts: Sequence[FactIn],
        *,
        idempotency_key: str | None = None,
        raise_on_error: bool = True,
    ) -> AssertResult:
        """Raises `ItemsRejected` (after the valid items landed) unless raise_on_error=False."""
        return self._run(Calls.assert_facts(facts, idempotency_key, raise_on_error))

    def facts(
        self,
        scopes: Sequence[str],
        *,
        subject: str | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        include_candidates: bool | None = None,
        include_expired: bool | None = None,
        needs_verification: bool | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> FactPage:
        kw = dict(locals())
        del kw["self"], kw["scopes"]
        return self._run(Calls.facts(scopes, kw))

    def fact(self, fact_id: str) -> Fact | None:
        return self._run(Calls.fact(fact_id))

    def history(
        self, subject: str, predicate: str, scopes: Sequence[str], *, as_of: datetime | None = None
    ) -> History:
        return self._run(Calls.history(subject, predicate, scopes, as_of))

    def retract_fact(self, fact_id: str, reason: str | None = None) -> Fact:
        return self._run(Calls.one_fact(FactCalls.retract_fact(fact_id, reason)))

    def approve_fact(self, fact_id: str) -> Fact:
        return self._run(Calls.one_fact(TrustCalls.approve_fact(fact_id)))

    def reject_fact(self, fact_id: str, reason: str | None = None) -> Fact:
        return self._run(Calls.one_fact(TrustCalls.reject_fact(fact_id, reason)))

    def recall(self, query: str, scopes: Sequence[str], **options: Any) -> RecallResult:
        """Options (snake_case): k, kinds, tiers, as_of, valid_at, min_score, min_confidence,
        min_relevance, relative_relevance, weights, half_life_days, include_candidates, ..."""
        return self._run(Calls.recall(query, scopes, options))

    def context(
        self, query: str, token_budget: int, scopes: Sequence[str], **options: Any
    ) -> ContextResult:
        return self._run(Calls.context(query, token_budget, scopes, options))

    def forget_contributor(self, user_id: str) -> ForgetReceipt:
        return self._run(Calls.forget(user_id))


class AsyncMemoryClient:
    """The same calls as `MemoryClient`, awaitable."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.raw = AsyncGraphMemoryClient(url, api_key, timeout=timeout, transport=transport)

    async def aclose(self) -> None:
        await self.raw.aclose()

    async def __aenter__(self) -> AsyncMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _run(self, call: _Call[T]) -> T:
        return call.parse(await self.raw._call(call.op))

    async def record_episodes(
        self, episodes: Sequence[EpisodeIn], *, raise_on_error: bool = True
    ) -> tuple[EpisodeResult, ...]:
        return await self._run(Calls.record_episodes(episodes, raise_on_error))

    async def record_episode(
        self,
        user_id: str,
        session_id: str,
        summary: str,
        outcome: Outcome = "SUCCESS",
        **fields: Any,
    ) -> str:
        ep = _episode(user_id, session_id, summary, outcome, fields)
        return str((await self.record_episodes([ep]))[0].id)

    async def assert_facts(
        self,
        facts: Sequence[FactIn],
        *,
        idempotency_key: str | None = None,
        raise_on_error: bool = True,
    ) -> AssertResult:
        return await self._run(Calls.assert_facts(facts, idempotency_key, raise_on_error))

    async def facts(
        self,
        scopes: Sequence[str],
        *,
        subject: str | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        valid_at: datetime | None = None,
        include_candidates: bool | None = None,
        include_expired: bool | None = None,
        needs_verification: bool | None = None,
        first: int = 50,
        after: str | None = None,
    ) -> FactPage:
        kw = dict(locals())
        del kw["self"], kw["scopes"]
        return await self._run(Calls.facts(scopes, kw))

    async def fact(self, fact_id: str) -> Fact | None:
        return await self._run(Calls.fact(fact_id))

    async def history(
        self, subject: str, predicate: str, scopes: Sequence[str], *, as_of: datetime | None = None
    ) -> History:
        return await self._run(Calls.history(subject, predicate, scopes, as_of))

    async def retract_fact(self, fact_id: str, reason: str | None = None) -> Fact:
        return await self._run(Calls.one_fact(FactCalls.retract_fact(fact_id, reason)))

    async def approve_fact(self, fact_id: str) -> Fact:
        return await self._run(Calls.one_fact(TrustCalls.approve_fact(fact_id)))

    async def reject_fact(self, fact_id: str, reason: str | None = None) -> Fact:
        return await self._run(Calls.one_fact(TrustCalls.reject_fact(fact_id, reason)))

    async def recall(self, query: str, scopes: Sequence[str], **options: Any) -> RecallResult:
        return await self._run(Calls.recall(query, scopes, options))

    async def context(
        self, query: str, token_budget: int, scopes: Sequence[str], **options: Any
    ) -> ContextResult:
        return await self._run(Calls.context(query, token_budget, scopes, options))

    async def forget_contributor(self, user_id: str) -> ForgetReceipt:
        return await self._run(Calls.forget(user_id))
