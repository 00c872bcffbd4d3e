"""A small typed client for agents and tests: GraphQL stays the contract, nobody hand-writes
the common calls. Sync (`GraphMemoryClient`) and async (`AsyncGraphMemoryClient`) over httpx.

Errors come back as `GraphMemoryClientError` carrying the server's ``extensions.code``.
"""

from __future__ import annotations

from typing import Any, TypeVar

import httpx

# The operation texts moved to _client_ops; they stay importable from here.
from graph_memory._client_ops import FACT_FIELDS as FACT_FIELDS
from graph_memory._client_ops import FORGET_WAIT_SECONDS, FactCalls, Op, RecallCalls, TrustCalls
from graph_memory._client_ops import Q_ALERTS as Q_ALERTS
from graph_memory._client_ops import Q_APPROVE as Q_APPROVE
from graph_memory._client_ops import Q_ASSERT as Q_ASSERT
from graph_memory._client_ops import Q_AUDIT_LOG as Q_AUDIT_LOG
from graph_memory._client_ops import Q_FACT as Q_FACT
from graph_memory._client_ops import Q_FACTS as Q_FACTS
from graph_memory._client_ops import Q_FORGET as Q_FORGET
from graph_memory._client_ops import Q_HISTORY as Q_HISTORY
from graph_memory._client_ops import Q_PROCEDURE_OUTCOME as Q_PROCEDURE_OUTCOME
from graph_memory._client_ops import Q_PROCEDURES as Q_PROCEDURES
from graph_memory._client_ops import Q_RECORD_EPISODES as Q_RECORD_EPISODES
from graph_memory._client_ops import Q_REJECT as Q_REJECT
from graph_memory._client_ops import Q_RETRACT as Q_RETRACT
from graph_memory._client_ops import Q_REVIEW_QUEUE as Q_REVIEW_QUEUE
from graph_memory._client_ops import Q_UPSERT_PROCEDURE as Q_UPSERT_PROCEDURE

__all__ = ["AsyncGraphMemoryClient", "GraphMemoryClient", "GraphMemoryClientError"]

T = TypeVar("T")


class GraphMemoryClientError(Exception):
    def __init__(self, errors: list[dict[str, Any]], status: int = 200) -> None:
        self.errors = errors
        self.status = status
        first = errors[0] if errors else {}
        self.code: str = (first.get("extensions") or {}).get("code", "UNKNOWN")
        super().__init__(f"{self.code}: {first.get('message', 'unknown error')}")


def _unwrap(resp: httpx.Response) -> dict[str, Any]:
    try:
        body = resp.json()
    except ValueError:
        raise GraphMemoryClientError(
            [{"message": resp.text, "extensions": {"code": f"HTTP_{resp.status_code}"}}],
            resp.status_code,
        ) from None
    if body.get("errors"):
        raise GraphMemoryClientError(body["errors"], resp.status_code)
    data: dict[str, Any] = body["data"]
    return data


def shown_url(url: str) -> str:
    """``url`` without userinfo, query or fragment: what an error may name."""
    try:
        return str(httpx.URL(url).copy_with(userinfo=b"", query=None, fragment=None))
    except httpx.InvalidURL:
        return "(an invalid URL)"


def unavailable(url: str, e: httpx.TransportError) -> GraphMemoryClientError:
    """The service did not answer (refused, timed out, reset): a typed error naming where it
    was asked, never the key; the transport error is its cause."""
    why = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
    return GraphMemoryClientError(
        [
            {
                "message": f"the graph_memory service at {shown_url(url)} did not answer ({why})",
                "extensions": {"code": "UNAVAILABLE"},
            }
        ]
    )


def _endpoint(url: str) -> str:
    return url.rstrip("/") + ("" if url.endswith("/graphql") else "/graphql")


def _episode_id(result: dict[str, Any]) -> str:
    if not result["ok"]:
        err = result["error"]
        raise GraphMemoryClientError(
            [{"message": err["message"], "extensions": {"code": err["code"]}}]
        )
    return str(result["id"])


class GraphMemoryClient:
    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = _endpoint(url)
        self._http = httpx.Client(
            timeout=timeout, transport=transport, headers={"Authorization": f"Bearer {api_key}"}
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> GraphMemoryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def execute(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            resp = self._http.post(self.url, json={"query": query, "variables": variables or {}})
        except httpx.TransportError as e:
            raise unavailable(self.url, e) from e
        return _unwrap(resp)

    def _call(self, op: Op[T]) -> T:
        result: T = self.execute(op.query, op.variables)[op.key]
        return result

    def record_episodes(self, episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self._call(FactCalls.record_episodes(episodes))

    def record_episode(self, **episode: Any) -> str:
        return _episode_id(self.record_episodes([episode])[0])

    def assert_facts(
        self, facts: list[dict[str, Any]], idempotency_key: str | None = None
    ) -> dict[str, Any]:
        return self._call(FactCalls.assert_facts(facts, idempotency_key))

    def remember(
        self,
        episode: dict[str, Any],
        facts: list[dict[str, Any]] | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """An episode and the facts it established; each fact cites the new episode."""
        return self._call(FactCalls.remember(episode, facts, idempotency_key))

    def facts(
        self,
        scopes: list[str],
        *,
        as_of: Any = None,
        valid_at: Any = None,
        first: int = 50,
        after: str | None = None,
        **flt: Any,
    ) -> dict[str, Any]:
        return self._call(FactCalls.facts(scopes, as_of, valid_at, first, after, **flt))

    def fact(self, fact_id: str) -> dict[str, Any] | None:
        return self._call(FactCalls.fact(fact_id))

    def history(
        self, subject: str, predicate: str, scopes: list[str], *, as_of: Any = None
    ) -> dict[str, Any]:
        return self._call(FactCalls.history(subject, predicate, scopes, as_of))

    def retract_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        return self._call(FactCalls.retract_fact(fact_id, reason))

    # -- trust & forgetting ------------------------------------------------------------------
    def review_queue(self, scopes: list[str], first: int = 50) -> list[dict[str, Any]]:
        return self._call(TrustCalls.review_queue(scopes, first))

    def approve_fact(self, fact_id: str) -> dict[str, Any]:
        return self._call(TrustCalls.approve_fact(fact_id))

    def reject_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        return self._call(TrustCalls.reject_fact(fact_id, reason))

    def forget_contributor(
        self, user_id: str, wait_seconds: float = FORGET_WAIT_SECONDS
    ) -> dict[str, Any]:
        """Forget a user (admin); waits up to ``wait_seconds`` for the purge (0: at once)."""
        return self._call(TrustCalls.forget_contributor(user_id, wait_seconds))

    def audit_log(self, *, first: int = 50, after: str | None = None, **flt: Any) -> dict[str, Any]:
        """Filters: actor, target, action, start (inclusive), end (exclusive)."""
        return self._call(TrustCalls.audit_log(first, after, **flt))

    def alerts(self, start: Any = None, end: Any = None, first: int = 100) -> dict[str, Any]:
        return self._call(TrustCalls.alerts(start, end, first))

    def recall(self, query: str, scopes: list[str], **options: Any) -> dict[str, Any]:
        """Options (snake_case): k, over_recall, weights, kinds, tiers, as_of, valid_at,
        min_score, min_confidence, min_relevance, relative_relevance, half_life_days,
        include_candidates, include_expired, include_unverified, intent, role."""
        return self._call(RecallCalls.recall(query, scopes, options))

    def context(
        self, query: str, token_budget: int, scopes: list[str], **options: Any
    ) -> dict[str, Any]:
        return self._call(RecallCalls.context(query, token_budget, scopes, options))

    def upsert_procedure(
        self, intent: str, role: str, steps: list[str], scope: str, description: str | None = None
    ) -> dict[str, Any]:
        return self._call(RecallCalls.upsert_procedure(intent, role, steps, scope, description))

    def procedures(
        self,
        intent: str,
        scopes: list[str],
        *,
        role: str | None = None,
        include_candidates: bool = False,
        as_of: Any = None,
        first: int = 10,
    ) -> list[dict[str, Any]]:
        return self._call(
            RecallCalls.procedures(intent, scopes, role, include_candidates, as_of, first)
        )

    def record_procedure_outcome(
        self, procedure_id: str, success: bool, episode_id: str
    ) -> dict[str, Any]:
        return self._call(RecallCalls.record_procedure_outcome(procedure_id, success, episode_id))


class AsyncGraphMemoryClient:
    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = _endpoint(url)
        self._http = httpx.AsyncClient(
            timeout=timeout, transport=transport, headers={"Authorization": f"Bearer {api_key}"}
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncGraphMemoryClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def execute(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        try:
            resp = await self._http.post(
                self.url, json={"query": query, "variables": variables or {}}
            )
        except httpx.TransportError as e:
            raise unavailable(self.url, e) from e
        return _unwrap(resp)

    async def _call(self, op: Op[T]) -> T:
        result: T = (await self.execute(op.query, op.variables))[op.key]
        return result

    async def record_episodes(self, episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return await self._call(FactCalls.record_episodes(episodes))

    async def assert_facts(
        self, facts: list[dict[str, Any]], idempotency_key: str | None = None
    ) -> dict[str, Any]:
        return await self._call(FactCalls.assert_facts(facts, idempotency_key))

    async def remember(
        self,
        episode: dict[str, Any],
        facts: list[dict[str, Any]] | None = None,
        idempotency_key: str | None = None,
    ) -> dict[str, Any]:
        """An episode and the facts it established; each fact cites the new episode."""
        return await self._call(FactCalls.remember(episode, facts, idempotency_key))

    async def facts(
        self,
        scopes: list[str],
        *,
        as_of: Any = None,
        valid_at: Any = None,
        first: int = 50,
        after: str | None = None,
        **flt: Any,
    ) -> dict[str, Any]:
        return await self._call(FactCalls.facts(scopes, as_of, valid_at, first, after, **flt))

    async def history(
        self, subject: str, predicate: str, scopes: list[str], *, as_of: Any = None
    ) -> dict[str, Any]:
        return await self._call(FactCalls.history(subject, predicate, scopes, as_of))

    async def record_episode(self, **episode: Any) -> str:
        return _episode_id((await self.record_episodes([episode]))[0])

    async def fact(self, fact_id: str) -> dict[str, Any] | None:
        return await self._call(FactCalls.fact(fact_id))

    async def retract_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        return await self._call(FactCalls.retract_fact(fact_id, reason))

    # -- trust & forgetting ------------------------------------------------------------------
    async def review_queue(self, scopes: list[str], first: int = 50) -> list[dict[str, Any]]:
        return await self._call(TrustCalls.review_queue(scopes, first))

    async def approve_fact(self, fact_id: str) -> dict[str, Any]:
        return await self._call(TrustCalls.approve_fact(fact_id))

    async def reject_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        return await self._call(TrustCalls.reject_fact(fact_id, reason))

    async def forget_contributor(
        self, user_id: str, wait_seconds: float = FORGET_WAIT_SECONDS
    ) -> dict[str, Any]:
        return await self._call(TrustCalls.forget_contributor(user_id, wait_seconds))

    async def audit_log(
        self, *, first: int = 50, after: str | None = None, **flt: Any
    ) -> dict[str, Any]:
        """Filters: actor, target, action, start (inclusive), end (exclusive)."""
        return await self._call(TrustCalls.audit_log(first, after, **flt))

    async def alerts(self, start: Any = None, end: Any = None, first: int = 100) -> dict[str, Any]:
        return await self._call(TrustCalls.alerts(start, end, first))

    async def recall(self, query: str, scopes: list[str], **options: Any) -> dict[str, Any]:
        return await self._call(RecallCalls.recall(query, scopes, options))

    async def context(
        self, query: str, token_budget: int, scopes: list[str], **options: Any
    ) -> dict[str, Any]:
        return await self._call(RecallCalls.context(query, token_budget, scopes, options))

    async def upsert_procedure(
        self, intent: str, role: str, steps: list[str], scope: str, description: str | None = None
    ) -> dict[str, Any]:
        return await self._call(
            RecallCalls.upsert_procedure(intent, role, steps, scope, description)
        )

    async def procedures(
        self,
        intent: str,
        scopes: list[str],
        *,
        role: str | None = None,
        include_candidates: bool = False,
        as_of: Any = None,
        first: int = 10,
    ) -> list[dict[str, Any]]:
        return await self._call(
            RecallCalls.procedures(intent, scopes, role, include_candidates, as_of, first)
        )

    async def record_procedure_outcome(
        self, procedure_id: str, success: bool, episode_id: str
    ) -> dict[str, Any]:
        return await self._call(
            RecallCalls.record_procedure_outcome(procedure_id, success, episode_id)
        )
