"""Episode compaction, a consolidation step: episodes of one scope older than OLDER_THAN_DAYS
that GDS finds to be about one topic (Leiden communities over a kNN similarity graph of their
vectors) become one digest episode.

The digest keeps DERIVED_FROM provenance to each member and replaces them in recall (members
are marked compacted_into it; recall skips them); facts that cited a member keep citing it.
Its text is its members' summaries in time order, its vector their mean. A rollback deletes
the run's digests and serves the members again. Forgetting a contributor reaches through:
``forget_user`` (a ForgetService residue) deletes every digest one of their episodes went
into and serves its other members again.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import utcnow
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.compaction import CompactionRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.consolidation.context import ACTOR, Count, RunContext

__all__ = ["OLDER_THAN_DAYS", "Compactor", "mean_vector"]

OLDER_THAN_DAYS = 30
CANDIDATE = 0.6  # cosine for an edge of the similarity graph
TOP_K = 5
MAX_MEMBERS = 50  # a bigger community is split into digests of this many
MAX_DIGEST_CHARS = 4_000


def mean_vector(vectors: list[list[float]]) -> list[float]:
    """A digest's vector: its members' mean, unit length (also made again by a re-embedding)."""
    summed = [sum(col) for col in zip(*vectors, strict=True)]
    norm = math.sqrt(sum(x * x for x in summed)) or 1.0
    return [x / norm for x in summed]


def _digest(members: list[Record]) -> dict[str, Any]:
    ids = [str(m["id"]) for m in members]
    users = list(dict.fromkeys(str(m["user_id"]) for m in members if m["user_id"]))
    text = " | ".join(str(m["summary"] or "") for m in members)
    if len(text) > MAX_DIGEST_CHARS:
        text = text[: MAX_DIGEST_CHARS - 1] + "…"
    outcome = Counter(m["outcome"] for m in members).most_common(1)[0][0]
    return {
        # Named by its members: a dry run names the digest its run would make, and a run
        # after a rollback makes the same one again.
        "id": "ep_digest_" + hashlib.sha256(" ".join(sorted(ids)).encode()).hexdigest()[:32],
        "scope": members[0]["scope"],
        "ft_scope": members[0]["ft_scope"],
        # One contributor's episodes make their digest; several make a shared one.
        "user_id": users[0] if len(users) == 1 else "digest",
        "member_users": users,
        "started_at": min(m["started_at"] for m in members),
        "ended_at": max(m["ended_at"] or m["started_at"] for m in members),
        "summary": f"Digest of {len(members)} episodes: {text}",
        "outcome": outcome,
        "topics": sorted({t for m in members for t in (m["topics"] or [])}),
        "key_entities": sorted({k for m in members for k in (m["key_entities"] or [])}),
        "confidence": sum(float(m["confidence"] or 0.0) for m in members) / len(members),
        "embedding": mean_vector([list(m["embedding"]) for m in members]),
        "members": [m["id"] for m in members],
    }


class Compactor:
    def __init__(self, repo: CompactionRepository) -> None:
        self.repo = repo

    async def step(self, ctx: RunContext) -> None:
        ctx.zero("digests", "episodes_compacted")
        before = utcnow() - timedelta(days=OLDER_THAN_DAYS)
        groups: list[list[str]] = []
        for scope in ctx.scopes:
            # GDS reads committed data (a dry run: the store as it was before the run).
            found = await asyncio.to_thread(
                self.repo.communities, ctx.tenant, scope, before, CANDIDATE, TOP_K
            )
            for g in found:
                groups += [g[i : i + MAX_MEMBERS] for i in range(0, len(g), MAX_MEMBERS)]
        await ctx.each([g for g in groups if len(g) > 1], lambda c: self._compact(ctx, c), len)

    async def _compact(self, ctx: RunContext, groups: list[list[str]]) -> list[Count]:
        found = await CompactionRepository.members(
            ctx.tx, ctx.tenant, [i for g in groups for i in g]
        )
        by_id = {m["id"]: m for m in found}
        rows = []
        for g in groups:
            members = [by_id[i] for i in g if i in by_id and by_id[i]["embedding"]]
            if len(members) > 1:
                members.sort(key=lambda m: (m["started_at"], m["id"]))
                rows.append(_digest(members))
        made = await CompactionRepository.create_digests(
            ctx.tx, ctx.tenant, rows, ctx.run_id, ctx.now
        )
        count = {r["id"]: int(r["members"]) for r in made}
        events = []
        for row in rows:
            why = f"{len(row['members'])} episodes of one topic in {row['scope']} compacted"
            after = json.dumps({"members": row["members"], "summary": row["summary"][:200]})
            ctx.note("compact_episodes", row["id"], why, after)
            events.append(
                audit.event(
                    None,
                    "compact_episodes",
                    "episode",
                    row["id"],
                    ctx.now,
                    after={"members": row["members"]},
                    reason=why,
                    actor=ACTOR,
                    actor_type="consolidation",
                )
            )
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        return [Count("digests", len(made)), Count("episodes_compacted", sum(count.values()))]

    async def forget_user(
        self, tenant: str, user_id: str, before: datetime | None = None
    ) -> Record:
        """ForgetService residue: digests of the forgotten contributor's episodes (made before
        the forget) go; until then the reads hide them (forget/_hidden_episode)."""
        return await self.repo.forget_user(tenant, user_id.strip(), before)
