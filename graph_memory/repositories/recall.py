"""Hybrid search candidates, provenance of what was recalled, and retrieval bookkeeping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from neo4j.vector import Vector

from graph_memory.db import Database, Record
from graph_memory.repositories._scope import require_scopes, require_tenant
from graph_memory.repositories.shadow import Resolution, resolve_touched, touched_slot
from graph_memory.versions import Evidence

__all__ = ["QueryNames", "RecallRepository", "Search"]


# Each kind's search alone (cypher/recall/_*_search, which recall.search runs together).
_KIND_SEARCH = {
    "fact": "recall.facts",
    "episode": "recall.episodes",
    "procedure": "recall.procedures",
    "memo": "recall.memos",
}


@dataclass(frozen=True)
class Search:
    """What one recall searches with, every kind alike: each kind's query binds the part it
    declares (facts the candidate and tier filters, procedures their statuses, intent and
    role). ``content_vector``: the query without its names, each row's cosine to it given as
    ``content``; ``content_search``: search the vector index for its k nearest too."""

    tenant: str
    scopes: list[str]
    vector: list[float]
    lucene: str | None
    as_of: datetime
    valid_at: datetime
    # A plain recall's (RecallRequest's defaults) unless said otherwise.
    content_vector: list[float] | None = None
    content_search: bool = False
    include_candidates: bool = False
    include_expired: bool = False
    include_unverified: bool = False
    tiers: list[str] | None = None
    procedure_statuses: tuple[str, ...] = ("active",)
    intent: str | None = None
    role: str | None = None

    def params(self, k: int) -> dict[str, Any]:
        return {
            "tenant": require_tenant(self.tenant),
            "scopes": require_scopes(self.scopes),
            "vector": _vector(self.vector),
            "content_vector": _maybe_vector(self.content_vector),
            "content_search": self.content_search,
            "k": k,
            "lucene": self.lucene,
            "as_of": self.as_of,
            "valid_at": self.valid_at,
            "include_candidates": self.include_candidates,
            "include_expired": self.include_expired,
            "include_unverified": self.include_unverified,
            "tiers": self.tiers,
            "procedure_statuses": list(self.procedure_statuses),
            "intent": self.intent,
            "role": self.role,
        }


@dataclass(frozen=True)
class QueryNames:
    """Known names a query mentions (recall.entities); ``speakers``: those that label turns."""

    names: tuple[str, ...] = ()
    speakers: tuple[str, ...] = ()


def _vector(values: list[float]) -> Vector:
    # A native float32 VECTOR travels as one byte block; a list of 384 floats is packed one by
    # one in Python, which costs about a millisecond per search.
    return Vector(np.asarray(values, dtype=np.float32))


def _maybe_vector(values: list[float] | None) -> Vector | None:
    return None if values is None else _vector(values)


class RecallRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def evidence(self, tenant: str, ids: list[str]) -> dict[str, list[Evidence]]:
        """Each fact's evidence links (fact.provenance): what its confidence at a past moment
        is computed from (services/facts/belief.confidence_at)."""
        if not ids:
            return {}
        rows = await self.db.read("fact.provenance", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["id"]: [Evidence.from_row(e) for e in r["evidence"]] for r in rows}

    async def outcomes_at(
        self, tenant: str, ids: list[str], as_of: datetime
    ) -> dict[str, tuple[int, int]]:
        """Each fact's or episode's (helpful, harmful) counts as they stood at ``as_of``
        (outcome/counts_at: the rule the stored counts follow, bounded in time)."""
        if not ids:
            return {}
        rows = await self.db.read(
            "outcome.counts_at", {"tenant": require_tenant(tenant), "ids": ids, "as_of": as_of}
        )
        return {str(r["id"]): (int(r["helpful"]), int(r["harmful"])) for r in rows}

    async def search(
        self, search: Search, kinds: Sequence[str], k: int
    ) -> dict[str, tuple[list[Record], int]]:
        """Each kind's lean candidate rows for scoring and how many raw search hits they were
        filtered from (similarity is the index's (1 + cos) / 2), the ``k`` nearest and k best
        keyword hits per kind asked for, in one statement (recall.search says why)."""
        params = {**search.params(k), "kinds": list(kinds)}
        out = await self.db.read("recall.search", params)
        row = out[0] if out else {}
        found = {
            kind: (list(row.get(f"{kind}_rows") or []), int(row.get(f"{kind}_raw") or 0))
            for kind in kinds
        }
        if "fact" in found:
            rows, raw = found["fact"]
            found["fact"] = (await self._settled(search, rows), raw)
        return found

    async def search_kind(self, search: Search, kind: str, k: int) -> tuple[list[Record], int]:
        """One kind's search alone, as in ``search``: the service asks again with a larger k
        when the in-force filter left too few."""
        rows, raw = _pool(await self.db.read(_KIND_SEARCH[kind], search.params(k)))
        if kind == "fact":
            rows = await self._settled(search, rows)
        return rows, raw

    async def _settled(self, search: Search, rows: list[Record]) -> list[Record]:
        touched = {s for s in (touched_slot(r["touched"]) for r in rows) if s is not None}
        if not touched:
            return rows
        # A forget in flight touched these candidates' slots: each stays only if it answers
        # its slot as the purge will leave it.
        resolved = await resolve_touched(
            self.db,
            search.tenant,
            touched,
            as_of=search.as_of,
            valid_at=search.valid_at,
            include_candidates=search.include_candidates,
        )
        return [r for r in rows if r["touched"] is None or r["id"] in resolved.answers]

    async def replies(
        self,
        tenant: str,
        scopes: list[str],
        ids: list[str],
        *,
        vector: list[float],
        content_vector: list[float] | None = None,
        as_of: datetime,
        valid_at: datetime,
    ) -> list[tuple[str, Record]]:
        """(question id, lean candidate row of the episode that follows it) per linked pair."""
        if not ids:
            return []
        rows = await self.db.read(
            "recall.replies",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "ids": ids,
                "vector": _vector(vector),
                "content_vector": _maybe_vector(content_vector),
                "as_of": as_of,
                "valid_at": valid_at,
            },
        )
        return _pairs(rows)

    async def digest_members(
        self,
        tenant: str,
        scopes: list[str],
        ids: list[str],
        *,
        vector: list[float],
        content_vector: list[float] | None = None,
        lucene: str | None,
        k: int,
        as_of: datetime,
        valid_at: datetime,
    ) -> list[tuple[str, Record]]:
        """(digest id, lean candidate row of one of its members) for those of ``ids`` that
        are consolidation digests."""
        if not ids:
            return []
        rows = await self.db.read(
            "recall.digest_members",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "ids": ids,
                "vector": _vector(vector),
                "content_vector": _maybe_vector(content_vector),
                "lucene": lucene,
                "k": k,
                "as_of": as_of,
                "valid_at": valid_at,
            },
        )
        return _pairs(rows)

    async def entity_names(
        self, tenant: str, scopes: list[str], keys: list[str], as_of: datetime
    ) -> QueryNames:
        """Names among these normalised keys (entity_key): of entities that facts in these
        scopes recorded by ``as_of`` are about or point to, and speakers of episodes in these
        scopes recorded by ``as_of`` (a speaker is given as its key)."""
        if not keys:
            return QueryNames()
        rows = await self.db.read(
            "recall.entities",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "keys": keys,
                "as_of": as_of,
            },
        )
        return QueryNames(
            names=tuple(str(r["name"]) for r in rows),
            speakers=tuple(str(r["name"]) for r in rows if r["speaker"]),
        )

    async def hydrate(
        self,
        tenant: str,
        *,
        facts: list[str],
        episodes: list[str],
        procedures: list[str],
        memos: list[str],
        as_of: datetime,
    ) -> tuple[dict[str, tuple[Record, list[Record]]], Resolution]:
        """Full record and provenance (supporting episodes, contributors) per id, and how the
        facts a forget in flight changes read once the purge has been there
        (repositories/shadow.py)."""
        if not (facts or episodes or procedures or memos):
            return {}, Resolution()
        rows = await self.db.read(
            "recall.hydrate",
            {
                "tenant": require_tenant(tenant),
                "facts": facts,
                "episodes": episodes,
                "procedures": procedures,
                "memos": list(memos),
                # A procedure's verdicts as told by then (procedure/_verdicts).
                "as_of": as_of,
            },
        )
        out = {r["id"]: (dict(r["node"]), r["evidence"]) for r in rows}
        touched = [t for t in (touched_slot(r["touched"]) for r in rows) if t is not None]
        if not touched:
            return out, Resolution()
        resolved = await resolve_touched(
            self.db, tenant, touched, as_of=as_of, valid_at=as_of, include_candidates=True
        )
        return out, resolved

    async def touch(self, tenant: str, rows: list[dict[str, Any]]) -> int:
        """Add retrieval counts and move last-retrieved times forward; rows ``{kind, id,
        count, at}``. Returns how many nodes were found."""
        if not rows:
            return 0
        out = await self.db.write("recall.touch", {"tenant": require_tenant(tenant), "rows": rows})
        return int(out[0]["touched"] or 0) if out else 0


def _pairs(rows: list[Record]) -> list[tuple[str, Record]]:
    """(the episode it hangs off, lean candidate row) from recall.replies / digest_members."""
    return [(str(r["of"]), r["row"]) for r in rows]


def _pool(out: list[Record]) -> tuple[list[Record], int]:
    """(candidate rows, raw hits) from a recall search's single summary row."""
    if not out:
        return [], 0
    return list(out[0]["rows"]), int(out[0]["raw_hits"] or 0)
