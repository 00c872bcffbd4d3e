"""The client's GraphQL operations: their texts and one builder per call, shared by the sync
and async clients. Each builder returns an `Op` whose type parameter is what the call yields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from graph_memory._wire import camel as _camel
from graph_memory._wire import iso as _iso
from graph_memory._wire import jsonable as _jsonable
from graph_memory._wire import variables as _vars

__all__ = ["FactCalls", "Op", "RecallCalls", "TrustCalls"]

T = TypeVar("T")

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
Q_REMEMBER = f"""
mutation($episode: EpisodeInput!, $facts: [FactInput!], $key: String) {{
  remember(episode: $episode, facts: $facts, idempotencyKey: $key) {{
    episodeId episodeError {{ code message field }}
    facts {{ accepted rejected results {{ {_RESULT_FIELDS} }} }}
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


@dataclass(frozen=True)
class Op(Generic[T]):
    """One call: the operation text, its variables, and the data key the result sits under."""

    query: str
    variables: dict[str, Any]
    key: str


class FactCalls:
    """Episodes and facts."""

    @staticmethod
    def record_episodes(episodes: list[dict[str, Any]]) -> Op[list[dict[str, Any]]]:
        return Op(Q_RECORD_EPISODES, {"episodes": _jsonable(episodes)}, "recordEpisodes")

    @staticmethod
    def assert_facts(facts: list[dict[str, Any]], key: str | None) -> Op[dict[str, Any]]:
        return Op(Q_ASSERT, {"facts": _jsonable(facts), "key": key}, "assertFacts")

    @staticmethod
    def remember(
        episode: dict[str, Any], facts: list[dict[str, Any]] | None, key: str | None
    ) -> Op[dict[str, Any]]:
        return Op(
            Q_REMEMBER,
            {"episode": _jsonable(episode), "facts": _jsonable(facts or []), "key": key},
            "remember",
        )

    @staticmethod
    def facts(
        scopes: list[str], as_of: Any, valid_at: Any, first: int, after: str | None, **flt: Any
    ) -> Op[dict[str, Any]]:
        return Op(
            Q_FACTS,
            _vars(
                filter={"scopes": scopes, **{_camel(k): v for k, v in flt.items()}},
                asOf=as_of,
                validAt=valid_at,
                first=first,
                after=after,
            ),
            "facts",
        )

    @staticmethod
    def fact(fact_id: str) -> Op[dict[str, Any] | None]:
        return Op(Q_FACT, {"id": fact_id}, "fact")

    @staticmethod
    def history(subject: str, predicate: str, scopes: list[str], as_of: Any) -> Op[dict[str, Any]]:
        return Op(
            Q_HISTORY,
            _vars(subject=subject, predicate=predicate, scopes=scopes, asOf=as_of),
            "history",
        )

    @staticmethod
    def retract_fact(fact_id: str, reason: str | None) -> Op[dict[str, Any]]:
        return Op(Q_RETRACT, {"id": fact_id, "reason": reason}, "retractFact")


# -- trust & forgetting ----------------------------------------------------------------------
_AUDIT_FIELDS = """
  id at actor actorType action targetType targetId before after confidenceDelta reason redacted
"""
Q_REVIEW_QUEUE = f"""
query($scopes: [String!]!, $first: Int!) {{
  reviewQueue(scopes: $scopes, first: $first) {{
    sessions neededSessions contributors reason fact {{ {FACT_FIELDS} }}
    evidence {{ episodeId sessionId userId weight summary }}
  }}
}}"""
Q_APPROVE = f"mutation($id: ID!) {{ approveFact(id: $id) {{ {FACT_FIELDS} }} }}"
Q_REJECT = f"""
mutation($id: ID!, $reason: String) {{
  rejectFact(id: $id, reason: $reason) {{ {FACT_FIELDS} }}
}}"""
# How long a client's forget waits for the purge by default: most callers want the user gone
# when the call returns, and the purge of a small user takes well under this; kept below the
# clients' 30 s HTTP timeout (the service caps a wait at 60 s).
FORGET_WAIT_SECONDS = 25.0

Q_FORGET = """
mutation($userId: String!, $waitSeconds: Float! = 10) {
  forgetContributor(userId: $userId, waitSeconds: $waitSeconds) {
    receipt jobId state batches
    episodesDeleted factVersionsDeleted factsDeletedByTier { tier count }
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


class TrustCalls:
    """Review, forgetting, and the audit trail."""

    @staticmethod
    def review_queue(scopes: list[str], first: int) -> Op[list[dict[str, Any]]]:
        return Op(Q_REVIEW_QUEUE, {"scopes": scopes, "first": first}, "reviewQueue")

    @staticmethod
    def approve_fact(fact_id: str) -> Op[dict[str, Any]]:
        return Op(Q_APPROVE, {"id": fact_id}, "approveFact")

    @staticmethod
    def reject_fact(fact_id: str, reason: str | None) -> Op[dict[str, Any]]:
        return Op(Q_REJECT, {"id": fact_id, "reason": reason}, "rejectFact")

    @staticmethod
    def forget_contributor(
        user_id: str, wait_seconds: float = FORGET_WAIT_SECONDS
    ) -> Op[dict[str, Any]]:
        return Op(Q_FORGET, {"userId": user_id, "waitSeconds": wait_seconds}, "forgetContributor")

    @staticmethod
    def audit_log(first: int, after: str | None, **flt: Any) -> Op[dict[str, Any]]:
        flt = {
            ("from" if k in ("from_", "start") else "to" if k == "end" else k): _iso(v)
            for k, v in flt.items()
            if v is not None
        }
        return Op(Q_AUDIT_LOG, {"filter": flt, "first": first, "after": after}, "auditLog")

    @staticmethod
    def alerts(start: Any, end: Any, first: int) -> Op[dict[str, Any]]:
        return Op(Q_ALERTS, _vars(**{"from": start, "to": end, "first": first}), "alerts")


_SCORE_FIELDS = "vector keyword recency confidence tierBoost context cosine decay total"
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
    id kind text via viaText score {{ {_SCORE_FIELDS} }}
    provenance {{
      episodes {{ episodeId sessionId userId weight success startedAt summary source }}
      contributors
      times {{ freshAt recordedAt validFrom validTo supersededAt startedAt endedAt updatedAt }}
    }}
    fact {{ id subject predicate object tier status confidence version validFrom
           supersededAt retrievalCount lastRetrievedAt }}
    episode {{ id userId sessionId summary outcome startedAt }}
    procedure {{ {_PROCEDURE_FIELDS} }}
    memo {{ id kind text status at closedAt confidence }}
  }}
  weights {{ vector keyword recency confidence }}
  asOf validAt considered belowThreshold
  floorDrops {{ minConfidence minScore procedureIntent content minRelevance relativeRelevance }}
"""
_CONTEXT_SELECTION = """
  text tokens tokenBudget tokenizer asOf validAt
  floorDrops { minConfidence minScore procedureIntent content minRelevance relativeRelevance }
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


class RecallCalls:
    """recall/context send only the options given, so the server's defaults apply otherwise."""

    @staticmethod
    def _search(
        field: str, selection: str, required: dict[str, tuple[str, Any]], options: dict[str, Any]
    ) -> Op[dict[str, Any]]:
        opts = {_camel(k): v for k, v in options.items() if v is not None}
        unknown = set(opts) - set(_RECALL_ARGS) - ({"k"} if field == "context" else set())
        if unknown:
            raise TypeError(f"unknown {field} options {sorted(unknown)}")
        decl = {**{n: t for n, (t, _) in required.items()}, **{n: _RECALL_ARGS[n] for n in opts}}
        header = ", ".join(f"${n}: {t}" for n, t in decl.items())
        args = ", ".join(f"{n}: ${n}" for n in decl)
        query = f"query({header}) {{ {field}({args}) {{ {selection} }} }}"
        variables = _jsonable(_vars(**{n: v for n, (_, v) in required.items()}, **opts))
        return Op(query, variables, field)

    @staticmethod
    def recall(query: str, scopes: list[str], options: dict[str, Any]) -> Op[dict[str, Any]]:
        return RecallCalls._search(
            "recall",
            _RECALL_SELECTION,
            {"query": ("String!", query), "scopes": ("[String!]!", scopes)},
            options,
        )

    @staticmethod
    def context(
        query: str, token_budget: int, scopes: list[str], options: dict[str, Any]
    ) -> Op[dict[str, Any]]:
        return RecallCalls._search(
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
    ) -> Op[dict[str, Any]]:
        return Op(
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
    ) -> Op[list[dict[str, Any]]]:
        return Op(
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
    ) -> Op[dict[str, Any]]:
        return Op(
            Q_PROCEDURE_OUTCOME,
            {"id": procedure_id, "success": success, "episodeId": episode_id},
            "recordProcedureOutcome",
        )
