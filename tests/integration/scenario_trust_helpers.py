"""Shared GraphQL text and small helpers of the trust scenario suites."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError

C = GraphMemoryClient
T0 = "2026-01-01T00:00:00+00:00"
F = """id scope subject predicate object tier status confidence version recordedAt
  supersededAt supersededBy retractedAt retractedBy retractReason expiresAt needsVerification
  verificationReason provenance { episodeId sessionId userId weight } dependsOn { id status }"""
M_EP = """mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) {
  index ok id error { code message field } } }"""
M_ASSERT = """mutation($f: [FactInput!]!, $k: String) { assertFacts(facts: $f, idempotencyKey: $k) {
  accepted rejected results { index ok action factId version status confidence supersedes
  error { code message field } } } }"""
Q_FACTS = f"""query($f: FactFilterInput!, $asOf: DateTime, $first: Int! = 100) {{
  facts(filter: $f, asOf: $asOf, first: $first) {{ edges {{ node {{ {F} }} }} }} }}"""
Q_FACT = f"query($id: ID!) {{ fact(id: $id) {{ {F} }} }}"
Q_HISTORY = f"""query($s: String!, $p: String!, $sc: [String!]!, $asOf: DateTime) {{
  history(subject: $s, predicate: $p, scopes: $sc, asOf: $asOf) {{ versions {{ {F} }} }} }}"""
Q_RECALL = """query($q: String!, $sc: [String!]!, $asOf: DateTime, $exp: Boolean! = false,
  $unv: Boolean! = false, $cand: Boolean! = false) {
  recall(query: $q, scopes: $sc, k: 50, asOf: $asOf, minScore: 0, minConfidence: 0,
    minRelevance: 0, relativeRelevance: 0, includeExpired: $exp, includeUnverified: $unv,
    includeCandidates: $cand) { items { id kind text fact { id tier status } } } }"""
Q_QUEUE = f"""query($sc: [String!]!) {{ reviewQueue(scopes: $sc) {{ sessions neededSessions
  contributors evidence {{ episodeId sessionId userId weight }} fact {{ {F} }} }} }}"""
Q_AUDIT = """query($f: AuditFilterInput, $first: Int! = 100, $after: String) {
  auditLog(filter: $f, first: $first, after: $after) { pageInfo { hasNextPage endCursor }
  nodes { id at actor actorType action targetType targetId before after confidenceDelta
  reason redacted } } }"""
Q_ALERTS = """query($from: DateTime) { alerts(from: $from) { total
  counts { action actor count } events { targetId actor reason } } }"""
M_APPROVE = "mutation($id: ID!) { approveFact(id: $id) { id status tier } }"
M_REJECT = "mutation($id: ID!, $r: String) { rejectFact(id: $id, reason: $r) { id status } }"
M_RETRACT = "mutation($id: ID!, $r: String) { retractFact(id: $id, reason: $r) { id status } }"
M_FORGET = """mutation($u: String!) { forgetContributor(userId: $u) { receipt episodesDeleted
  factVersionsDeleted factsDeletedByTier { tier count } factsRecomputed factsReturnedToReview
  factsReinstated dependentsFlagged auditEventsRedacted userDeleted } }"""
M_EXPIRE = "mutation { expireFacts { expired dependentsFlagged } }"
M_CONFIGURE = "mutation($p: TenantPolicyInput) { configureTenant(policy: $p) { version } }"


def ep(c: C, user: str, session: str, **kw: Any) -> str:
    payload = {
        "userId": user,
        "sessionId": session,
        "startedAt": T0,
        "summary": f"{user} talked with the support agent about the account and plans.",
        "outcome": "SUCCESS",
        "source": "user",
        "confidence": 0.8,
        **kw,
    }
    r = c.execute(M_EP, {"e": [payload]})["recordEpisodes"][0]
    assert r["ok"], r
    return str(r["id"])


def fct(s: str, p: str, o: str, eps: list[Any], **kw: Any) -> dict[str, Any]:
    cites = [
        {"episodeId": e} if isinstance(e, str) else {"episodeId": e[0], "weight": e[1]} for e in eps
    ]
    return {"subject": s, "predicate": p, "object": o, "episodes": cites, "source": "user", **kw}


def put(c: C, *facts: dict[str, Any], key: str | None = None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = c.execute(M_ASSERT, {"f": list(facts), "k": key})["assertFacts"][
        "results"
    ]
    return out


def one(c: C, item: dict[str, Any]) -> str:
    r = put(c, item)[0]
    assert r["ok"], r
    return str(r["factId"])


def code(r: dict[str, Any]) -> str | None:
    return (r.get("error") or {}).get("code")


def served(
    c: C, scopes: list[str], as_of: datetime | None = None, **flt: Any
) -> list[dict[str, Any]]:
    v = {"f": {"scopes": scopes, **flt}, "asOf": as_of.isoformat() if as_of else None}
    return [e["node"] for e in c.execute(Q_FACTS, v)["facts"]["edges"]]


def objs(c: C, scopes: list[str], as_of: datetime | None = None, **flt: Any) -> list[str]:
    return sorted(n["object"] for n in served(c, scopes, as_of, **flt))


def get(c: C, fid: str) -> dict[str, Any] | None:
    out: dict[str, Any] | None = c.execute(Q_FACT, {"id": fid})["fact"]
    return out


def hist(
    c: C, s: str, p: str, scopes: list[str], as_of: datetime | None = None
) -> list[dict[str, Any]]:
    v = {"s": s, "p": p, "sc": scopes, "asOf": as_of.isoformat() if as_of else None}
    return list(c.execute(Q_HISTORY, v)["history"]["versions"])


def audit(c: C, **flt: Any) -> list[dict[str, Any]]:
    f = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in flt.items()}
    return list(c.execute(Q_AUDIT, {"f": f, "first": 500})["auditLog"]["nodes"])


def recall_ids(
    c: C, q: str, scopes: list[str], as_of: datetime | None = None, **kw: Any
) -> set[str]:
    v = {"q": q, "sc": scopes, "asOf": as_of.isoformat() if as_of else None, **kw}
    return {i["id"] for i in c.execute(Q_RECALL, v)["recall"]["items"] if i["kind"] == "FACT"}


def err_code(call: Any) -> str:
    with pytest.raises(GraphMemoryClientError) as e:
        call()
    return e.value.code


def now_utc() -> datetime:
    return datetime.now(UTC)
