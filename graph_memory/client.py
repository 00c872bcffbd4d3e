"""A small typed client for agents and tests: GraphQL stays the contract, nobody hand-writes
the common calls. Sync (`GraphMemoryClient`) and async (`AsyncGraphMemoryClient`) over httpx.

Errors come back as `GraphMemoryClientError` carrying the server's ``extensions.code``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

__all__ = ["AsyncGraphMemoryClient", "GraphMemoryClient", "GraphMemoryClientError"]

FACT_FIELDS = """
  id scope subject subjectName predicate object objectIsEntity text kind source tier status
  cardinality confidence version recordedAt supersededAt supersededBy retractedAt retractedBy
  retractReason validFrom validTo expiresAt needsVerification verificationReason createdBy
  provenance { episodeId sessionId userId weight summary startedAt }
"""

_RESULT_FIELDS = """
  index ok action factId version status confidence supersedes error { code message field }
"""

Q_RECORD_EPISODES = """
mutation($episodes: [EpisodeInput!]!) {
  recordEpisodes(episodes: $episodes) { index ok id error { code message field } }
}"""
Q_ASSERT = f"""
mutation($facts: [FactInput!]!, $key: String) {{
  assertFacts(facts: $facts, idempotencyKey: $key) {{
    accepted rejected results {{ {_RESULT_FIELDS} }}
  }}
}}"""
Q_FACTS = f"""
query($filter: FactFilterInput!, $asOf: DateTime, $validAt: DateTime, $first: Int!,
      $after: String) {{
  facts(filter: $filter, asOf: $asOf, validAt: $validAt, first: $first, after: $after) {{
    edges {{ cursor node {{ {FACT_FIELDS} }} }}
    pageInfo {{ hasNextPage endCursor }}
  }}
}}"""
Q_FACT = f"query($id: ID!) {{ fact(id: $id) {{ {FACT_FIELDS} }} }}"
Q_HISTORY = f"""
query($subject: String!, $predicate: String!, $scopes: [String!]!, $asOf: DateTime) {{
  history(subject: $subject, predicate: $predicate, scopes: $scopes, asOf: $asOf) {{
    subject predicate versions {{ {FACT_FIELDS} }}
  }}
}}"""
Q_RETRACT = f"""
mutation($id: ID!, $reason: String) {{
  retractFact(id: $id, reason: $reason) {{ {FACT_FIELDS} }}
}}"""


class GraphMemoryClientError(Exception):
    def __init__(self, errors: list[dict[str, Any]], status: int = 200) -> None:
        self.errors = errors
        self.status = status
        first = errors[0] if errors else {}
        self.code: str = (first.get("extensions") or {}).get("code", "UNKNOWN")
        super().__init__(f"{self.code}: {first.get('message', 'unknown error')}")


def _iso(value: datetime | str | None) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return value.isoformat()


def _vars(**kw: Any) -> dict[str, Any]:
    return {k: (_iso(v) if isinstance(v, datetime) else v) for k, v in kw.items()}


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


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, datetime):
        return obj.isoformat()
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_jsonable(v) for v in obj]
    return obj


class _Calls:
    """The operations, shared by both clients: each returns (query, variables, unwrap)."""

    @staticmethod
    def record_episodes(episodes: list[dict[str, Any]]) -> tuple[str, dict[str, Any], str]:
        return Q_RECORD_EPISODES, {"episodes": _jsonable(episodes)}, "recordEpisodes"

    @staticmethod
    def assert_facts(
        facts: list[dict[str, Any]], key: str | None
    ) -> tuple[str, dict[str, Any], str]:
        return Q_ASSERT, {"facts": _jsonable(facts), "key": key}, "assertFacts"

    @staticmethod
    def facts(
        scopes: list[str], as_of: Any, valid_at: Any, first: int, after: str | None, **flt: Any
    ) -> tuple[str, dict[str, Any], str]:
        return (
            Q_FACTS,
            _vars(
                filter={"scopes": scopes, **flt},
                asOf=as_of,
                validAt=valid_at,
                first=first,
                after=after,
            ),
            "facts",
        )

    @staticmethod
    def history(
        subject: str, predicate: str, scopes: list[str], as_of: Any
    ) -> tuple[str, dict[str, Any], str]:
        return (
            Q_HISTORY,
            _vars(subject=subject, predicate=predicate, scopes=scopes, asOf=as_of),
            "history",
        )


# -- trust & forgetting ----------------------------------------------------------------------
_AUDIT_FIELDS = """
  id at actor actorType action targetType targetId before after confidenceDelta reason redacted
"""
Q_REVIEW_QUEUE = f"""
query($scopes: [String!]!, $first: Int!) {{
  reviewQueue(scopes: $scopes, first: $first) {{
    sessions neededSessions contributors fact {{ {FACT_FIELDS} }}
    evidence {{ episodeId sessionId userId weight summary }}
  }}
}}"""
Q_APPROVE = f"mutation($id: ID!) {{ approveFact(id: $id) {{ {FACT_FIELDS} }} }}"
Q_REJECT = f"""
mutation($id: ID!, $reason: String) {{
  rejectFact(id: $id, reason: $reason) {{ {FACT_FIELDS} }}
}}"""
Q_FORGET = """
mutation($userId: String!) {
  forgetContributor(userId: $userId) {
    receipt episodesDeleted factVersionsDeleted factsDeletedByTier { tier count }
    factsRecomputed factsReturnedToReview factsReinstated dependentsFlagged proceduresDemoted
    entitiesDeleted auditEventsRedacted userDeleted tookMs
  }
}"""
Q_AUDIT_LOG = f"""
query($filter: AuditFilterInput, $first: Int!, $after: String) {{
  auditLog(filter: $filter, first: $first, after: $after) {{
    edges {{ cursor node {{ {_AUDIT_FIELDS} }} }}
    pageInfo {{ hasNextPage endCursor }}
  }}
}}"""
Q_ALERTS = f"""
query($from: DateTime, $to: DateTime, $first: Int!) {{
  alerts(from: $from, to: $to, first: $first) {{
    total counts {{ action actor count firstAt lastAt }} events {{ {_AUDIT_FIELDS} }}
  }}
}}"""


class _TrustCalls:
    @staticmethod
    def review_queue(scopes: list[str], first: int) -> tuple[str, dict[str, Any], str]:
        return Q_REVIEW_QUEUE, {"scopes": scopes, "first": first}, "reviewQueue"

    @staticmethod
    def approve_fact(fact_id: str) -> tuple[str, dict[str, Any], str]:
        return Q_APPROVE, {"id": fact_id}, "approveFact"

    @staticmethod
    def reject_fact(fact_id: str, reason: str | None) -> tuple[str, dict[str, Any], str]:
        return Q_REJECT, {"id": fact_id, "reason": reason}, "rejectFact"

    @staticmethod
    def forget_contributor(user_id: str) -> tuple[str, dict[str, Any], str]:
        return Q_FORGET, {"userId": user_id}, "forgetContributor"

    @staticmethod
    def audit_log(first: int, after: str | None, **flt: Any) -> tuple[str, dict[str, Any], str]:
        flt = {
            ("from" if k in ("from_", "start") else "to" if k == "end" else k): _iso(v)
            for k, v in flt.items()
            if v is not None
        }
        return Q_AUDIT_LOG, {"filter": flt, "first": first, "after": after}, "auditLog"

    @staticmethod
    def alerts(start: Any, end: Any, first: int) -> tuple[str, dict[str, Any], str]:
        return Q_ALERTS, _vars(**{"from": start, "to": end, "first": first}), "alerts"


_SCORE_FIELDS = "vector keyword recency confidence tierBoost total"
_PROCEDURE_FIELDS = """
  id scope intent role version steps description status successCount failureCount createdBy
  createdAt updatedAt supersededAt supersededBy supersedes retrievalCount lastRetrievedAt
"""
_RECALL_ARGS = {
    "k": "Int",
    "overRecall": "Int",
    "weights": "RecallWeightsInput",
    "kinds": "[MemoryKind!]",
    "tiers": "[TrustTier!]",
    "asOf": "DateTime",
    "validAt": "DateTime",
    "minScore": "Float",
    "minConfidence": "Float",
    "minRelevance": "Float",
    "relativeRelevance": "Float",
    "halfLifeDays": "Float",
    "includeCandidates": "Boolean",
    "includeExpired": "Boolean",
    "includeUnverified": "Boolean",
    "intent": "String",
    "role": "String",
}
_RECALL_SELECTION = f"""
  items {{
    id kind text score {{ {_SCORE_FIELDS} }}
    provenance {{
      episodes {{ episodeId sessionId userId weight success startedAt summary source }}
      contributors
      times {{ freshAt recordedAt validFrom validTo supersededAt startedAt endedAt updatedAt }}
    }}
    fact {{ id subject predicate object tier status confidence version validFrom
           supersededAt retrievalCount lastRetrievedAt }}
    episode {{ id userId sessionId summary outcome startedAt }}
    procedure {{ {_PROCEDURE_FIELDS} }}
  }}
  weights {{ vector keyword recency confidence }}
  asOf validAt considered belowThreshold
"""
_CONTEXT_SELECTION = """
  text tokens tokenBudget tokenizer asOf validAt
  included { id kind score tokens }
  dropped { id kind score tokens reason }
"""
Q_UPSERT_PROCEDURE = f"""
mutation($intent: String!, $role: String!, $steps: [String!]!, $scope: String!,
         $description: String) {{
  upsertProcedure(intent: $intent, role: $role, steps: $steps, scope: $scope,
                  description: $description) {{ action procedure {{ {_PROCEDURE_FIELDS} }} }}
}}"""
Q_PROCEDURES = f"""
query($intent: String!, $scopes: [String!]!, $role: String, $includeCandidates: Boolean,
      $asOf: DateTime, $first: Int) {{
  procedures(intent: $intent, scopes: $scopes, role: $role,
             includeCandidates: $includeCandidates, asOf: $asOf, first: $first) {{
    {_PROCEDURE_FIELDS}
  }}
}}"""
Q_PROCEDURE_OUTCOME = f"""
mutation($id: ID!, $success: Boolean!, $episodeId: ID!) {{
  recordProcedureOutcome(id: $id, success: $success, episodeId: $episodeId) {{
    statusBefore status procedure {{ {_PROCEDURE_FIELDS} }}
  }}
}}"""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.title() for w in rest)


class _RecallCalls:
    """recall/context send only the options given, so the server's defaults apply otherwise."""

    @staticmethod
    def _search(
        field: str, selection: str, required: dict[str, tuple[str, Any]], options: dict[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        opts = {_camel(k): v for k, v in options.items() if v is not None}
        unknown = set(opts) - set(_RECALL_ARGS) - ({"k"} if field == "context" else set())
        if unknown:
            raise TypeError(f"unknown {field} options {sorted(unknown)}")
        decl = {**{n: t for n, (t, _) in required.items()}, **{n: _RECALL_ARGS[n] for n in opts}}
        header = ", ".join(f"${n}: {t}" for n, t in decl.items())
        args = ", ".join(f"{n}: ${n}" for n in decl)
        query = f"query({header}) {{ {field}({args}) {{ {selection} }} }}"
        variables = _jsonable(_vars(**{n: v for n, (_, v) in required.items()}, **opts))
        return query, variables, field

    @staticmethod
    def recall(
        query: str, scopes: list[str], options: dict[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        return _RecallCalls._search(
            "recall",
            _RECALL_SELECTION,
            {"query": ("String!", query), "scopes": ("[String!]!", scopes)},
            options,
        )

    @staticmethod
    def context(
        query: str, token_budget: int, scopes: list[str], options: dict[str, Any]
    ) -> tuple[str, dict[str, Any], str]:
        return _RecallCalls._search(
            "context",
            _CONTEXT_SELECTION,
            {
                "query": ("String!", query),
                "tokenBudget": ("Int!", token_budget),
                "scopes": ("[String!]!", scopes),
            },
            options,
        )

    @staticmethod
    def upsert_procedure(
        intent: str, role: str, steps: list[str], scope: str, description: str | None
    ) -> tuple[str, dict[str, Any], str]:
        return (
            Q_UPSERT_PROCEDURE,
            {
                "intent": intent,
                "role": role,
                "steps": steps,
                "scope": scope,
                "description": description,
            },
            "upsertProcedure",
        )

    @staticmethod
    def procedures(
        intent: str,
        scopes: list[str],
        role: str | None,
        include_candidates: bool,
        as_of: Any,
        first: int,
    ) -> tuple[str, dict[str, Any], str]:
        return (
            Q_PROCEDURES,
            _vars(
                intent=intent,
                scopes=scopes,
                role=role,
                includeCandidates=include_candidates,
                asOf=as_of,
                first=first,
            ),
            "procedures",
        )

    @staticmethod
    def record_procedure_outcome(
        procedure_id: str, success: bool, episode_id: str
    ) -> tuple[str, dict[str, Any], str]:
        return (
            Q_PROCEDURE_OUTCOME,
            {"id": procedure_id, "success": success, "episodeId": episode_id},
            "recordProcedureOutcome",
        )


class GraphMemoryClient:
    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/") + ("" if url.endswith("/graphql") else "/graphql")
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
        resp = self._http.post(self.url, json={"query": query, "variables": variables or {}})
        return _unwrap(resp)

    def _call(self, spec: tuple[str, dict[str, Any], str]) -> Any:
        query, variables, key = spec
        return self.execute(query, variables)[key]

    def record_episodes(self, episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call(_Calls.record_episodes(episodes))
        return result

    def record_episode(self, **episode: Any) -> str:
        r = self.record_episodes([episode])[0]
        if not r["ok"]:
            raise GraphMemoryClientError(
                [{"message": r["error"]["message"], "extensions": {"code": r["error"]["code"]}}]
            )
        return str(r["id"])

    def assert_facts(
        self, facts: list[dict[str, Any]], idempotency_key: str | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(_Calls.assert_facts(facts, idempotency_key))
        return result

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
        result: dict[str, Any] = self._call(
            _Calls.facts(scopes, as_of, valid_at, first, after, **flt)
        )
        return result

    def fact(self, fact_id: str) -> dict[str, Any] | None:
        result: dict[str, Any] | None = self.execute(Q_FACT, {"id": fact_id})["fact"]
        return result

    def history(
        self, subject: str, predicate: str, scopes: list[str], *, as_of: Any = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(_Calls.history(subject, predicate, scopes, as_of))
        return result

    def retract_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self.execute(Q_RETRACT, {"id": fact_id, "reason": reason})[
            "retractFact"
        ]
        return result

    # -- trust & forgetting ------------------------------------------------------------------
    def review_queue(self, scopes: list[str], first: int = 50) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call(_TrustCalls.review_queue(scopes, first))
        return result

    def approve_fact(self, fact_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self._call(_TrustCalls.approve_fact(fact_id))
        return result

    def reject_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self._call(_TrustCalls.reject_fact(fact_id, reason))
        return result

    def forget_contributor(self, user_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self._call(_TrustCalls.forget_contributor(user_id))
        return result

    def audit_log(self, *, first: int = 50, after: str | None = None, **flt: Any) -> dict[str, Any]:
        """Filters: actor, target, action, start (inclusive), end (exclusive)."""
        result: dict[str, Any] = self._call(_TrustCalls.audit_log(first, after, **flt))
        return result

    def alerts(self, start: Any = None, end: Any = None, first: int = 100) -> dict[str, Any]:
        result: dict[str, Any] = self._call(_TrustCalls.alerts(start, end, first))
        return result

    def recall(self, query: str, scopes: list[str], **options: Any) -> dict[str, Any]:
        """Options (snake_case): k, over_recall, weights, kinds, tiers, as_of, valid_at,
        min_score, min_confidence, min_relevance, relative_relevance, half_life_days,
        include_candidates, include_expired, include_unverified, intent, role."""
        result: dict[str, Any] = self._call(_RecallCalls.recall(query, scopes, options))
        return result

    def context(
        self, query: str, token_budget: int, scopes: list[str], **options: Any
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            _RecallCalls.context(query, token_budget, scopes, options)
        )
        return result

    def upsert_procedure(
        self, intent: str, role: str, steps: list[str], scope: str, description: str | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            _RecallCalls.upsert_procedure(intent, role, steps, scope, description)
        )
        return result

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
        result: list[dict[str, Any]] = self._call(
            _RecallCalls.procedures(intent, scopes, role, include_candidates, as_of, first)
        )
        return result

    def record_procedure_outcome(
        self, procedure_id: str, success: bool, episode_id: str
    ) -> dict[str, Any]:
        result: dict[str, Any] = self._call(
            _RecallCalls.record_procedure_outcome(procedure_id, success, episode_id)
        )
        return result


class AsyncGraphMemoryClient:
    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url.rstrip("/") + ("" if url.endswith("/graphql") else "/graphql")
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
        resp = await self._http.post(self.url, json={"query": query, "variables": variables or {}})
        return _unwrap(resp)

    async def _call(self, spec: tuple[str, dict[str, Any], str]) -> Any:
        query, variables, key = spec
        return (await self.execute(query, variables))[key]

    async def record_episodes(self, episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._call(_Calls.record_episodes(episodes))
        return result

    async def assert_facts(
        self, facts: list[dict[str, Any]], idempotency_key: str | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_Calls.assert_facts(facts, idempotency_key))
        return result

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
        result: dict[str, Any] = await self._call(
            _Calls.facts(scopes, as_of, valid_at, first, after, **flt)
        )
        return result

    async def history(
        self, subject: str, predicate: str, scopes: list[str], *, as_of: Any = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_Calls.history(subject, predicate, scopes, as_of))
        return result

    async def record_episode(self, **episode: Any) -> str:
        r = (await self.record_episodes([episode]))[0]
        if not r["ok"]:
            raise GraphMemoryClientError(
                [{"message": r["error"]["message"], "extensions": {"code": r["error"]["code"]}}]
            )
        return str(r["id"])

    async def fact(self, fact_id: str) -> dict[str, Any] | None:
        result: dict[str, Any] | None = (await self.execute(Q_FACT, {"id": fact_id}))["fact"]
        return result

    async def retract_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        data = await self.execute(Q_RETRACT, {"id": fact_id, "reason": reason})
        result: dict[str, Any] = data["retractFact"]
        return result

    # -- trust & forgetting ------------------------------------------------------------------
    async def review_queue(self, scopes: list[str], first: int = 50) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._call(_TrustCalls.review_queue(scopes, first))
        return result

    async def approve_fact(self, fact_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_TrustCalls.approve_fact(fact_id))
        return result

    async def reject_fact(self, fact_id: str, reason: str | None = None) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_TrustCalls.reject_fact(fact_id, reason))
        return result

    async def forget_contributor(self, user_id: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_TrustCalls.forget_contributor(user_id))
        return result

    async def audit_log(
        self, *, first: int = 50, after: str | None = None, **flt: Any
    ) -> dict[str, Any]:
        """Filters: actor, target, action, start (inclusive), end (exclusive)."""
        result: dict[str, Any] = await self._call(_TrustCalls.audit_log(first, after, **flt))
        return result

    async def alerts(self, start: Any = None, end: Any = None, first: int = 100) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_TrustCalls.alerts(start, end, first))
        return result

    async def recall(self, query: str, scopes: list[str], **options: Any) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(_RecallCalls.recall(query, scopes, options))
        return result

    async def context(
        self, query: str, token_budget: int, scopes: list[str], **options: Any
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(
            _RecallCalls.context(query, token_budget, scopes, options)
        )
        return result

    async def upsert_procedure(
        self, intent: str, role: str, steps: list[str], scope: str, description: str | None = None
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(
            _RecallCalls.upsert_procedure(intent, role, steps, scope, description)
        )
        return result

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
        result: list[dict[str, Any]] = await self._call(
            _RecallCalls.procedures(intent, scopes, role, include_candidates, as_of, first)
        )
        return result

    async def record_procedure_outcome(
        self, procedure_id: str, success: bool, episode_id: str
    ) -> dict[str, Any]:
        result: dict[str, Any] = await self._call(
            _RecallCalls.record_procedure_outcome(procedure_id, success, episode_id)
        )
        return result
