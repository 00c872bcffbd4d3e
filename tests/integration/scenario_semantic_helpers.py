"""Shared GraphQL text and small helpers of the semantic scenario suites."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError

US = timedelta(microseconds=1)
D2018 = datetime(2018, 2, 1, tzinfo=UTC)
D2020 = datetime(2020, 3, 15, 12, 30, tzinfo=UTC)
D2023 = datetime(2023, 7, 1, tzinfo=UTC)

RECORD = """mutation($eps: [EpisodeInput!]!) {
  recordEpisodes(episodes: $eps) { index ok id error { code field } } }"""
ASSERT = """mutation($facts: [FactInput!]!, $key: String) {
  assertFacts(facts: $facts, idempotencyKey: $key) {
    accepted rejected
    results { index ok action factId version status confidence supersedes
              error { code message field } } } }"""
FACTS = """query($f: FactFilterInput!, $asOf: DateTime, $validAt: DateTime, $first: Int!,
               $after: String) {
  facts(filter: $f, asOf: $asOf, validAt: $validAt, first: $first, after: $after) {
    edges { cursor node { id object status version recordedAt } }
    pageInfo { hasNextPage endCursor } } }"""
ENTITY_FACTS = """query($id: ID!, $scopes: [String!]!, $asOf: DateTime, $validAt: DateTime) {
  entity(id: $id) { key facts(scopes: $scopes, asOf: $asOf, validAt: $validAt) { id object } } }"""
HISTORY = """query($s: String!, $p: String!, $scopes: [String!]!, $asOf: DateTime) {
  history(subject: $s, predicate: $p, scopes: $scopes, asOf: $asOf) {
    subject predicate
    versions { id object status version recordedAt supersededAt supersededBy retractedAt
               retractedBy retractReason validFrom validTo confidence
               provenance { episodeId sessionId userId weight } } } }"""
FACT = """query($id: ID!) { fact(id: $id) { id object status version confidence
  recordedAt supersededAt retractedAt subjectEntity { id key name } } }"""
RETRACT = """mutation($id: ID!, $reason: String) {
  retractFact(id: $id, reason: $reason) { id status retractedAt retractedBy retractReason } }"""
DEFINE = (
    """mutation($p: [PredicateInput!]!) { definePredicates(predicates: $p) { name cardinality } }"""
)


def iso(d: datetime) -> str:
    return d.isoformat()


def ts(s: str) -> datetime:
    return datetime.fromisoformat(s)


def code_of(c: GraphMemoryClient, query: str, variables: dict[str, Any]) -> str:
    with pytest.raises(GraphMemoryClientError) as ei:
        c.execute(query, variables)
    return ei.value.code


def episodes(c: GraphMemoryClient, *sessions: str, user: str = "alice", **kw: Any) -> list[str]:
    eps = [
        {
            "userId": user,
            "sessionId": s,
            "startedAt": iso(D2018 - timedelta(days=30)),
            "summary": f"{user} chatted with the assistant about moving and languages.",
            "outcome": "SUCCESS",
            "source": "user",
            "confidence": 0.8,
            **kw,
        }
        for s in sessions
    ]
    out = c.execute(RECORD, {"eps": eps})["recordEpisodes"]
    assert all(r["ok"] for r in out), out
    return [r["id"] for r in out]


def f(
    s: str, p: str, o: str, eps: list[str], *, w: float | None = None, **kw: Any
) -> dict[str, Any]:
    cites = [{"episodeId": e, **({"weight": w} if w is not None else {})} for e in eps]
    return {"subject": s, "predicate": p, "object": o, "episodes": cites, **kw}


def write(
    c: GraphMemoryClient, items: list[dict[str, Any]], key: str | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = c.execute(ASSERT, {"facts": items, "key": key})["assertFacts"]
    return out


def one(c: GraphMemoryClient, item: dict[str, Any]) -> dict[str, Any]:
    r: dict[str, Any] = write(c, [item])["results"][0]
    assert r["ok"], r
    return r


def objects(c: GraphMemoryClient, scopes: list[str], **kw: Any) -> list[str]:
    v = {"f": {"scopes": scopes, **kw.pop("flt", {})}, "first": 100, **kw}
    return sorted(e["node"]["object"] for e in c.execute(FACTS, v)["facts"]["edges"])


def history(
    c: GraphMemoryClient, s: str, p: str, scopes: list[str], **kw: Any
) -> list[dict[str, Any]]:
    h = c.execute(HISTORY, {"s": s, "p": p, "scopes": scopes, **kw})["history"]
    return list(h["versions"])
