"""Entity resolution, a consolidation step: entities of one scope whose names GDS finds alike
(kNN, cosine over name vectors from the service's embedder), scored by name_match (meaning and
spelling), are proposed for a merge into the review list above ``propose``, and merged at
once above ``auto_merge``.

A merge carries only that scope's believed versions about the absorbed entity over to the
survivor (never across tenants or scopes), from the run's moment on: each becomes a copy about
the survivor, keeping where it came from (``subject_merged_from``, ``merged_from``, a
MERGED_INTO edge with the run and score), and the version itself is retracted then, naming its
copy. Nothing before the run changes: a read at an earlier asOf finds the versions under the
absorbed name. A rollback deletes the copies, reopens the versions, drops the run's merge edges
and proposals.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import as_datetime
from graph_memory.embeddings import Embedder
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.resolution import ResolutionRepository
from graph_memory.repositories.similarity import SimilarEntities, SimilarityRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.consolidation.context import ACTOR, Count, RunContext
from graph_memory.services.consolidation.name_match import name_score, same_name_groups

__all__ = ["AUTO_MERGE", "PROPOSE", "EntityResolver", "MergeProposal"]

# GDS proposes neighbours at name-vector cosine >= CANDIDATE (the local embedder gives
# "boreal motors"/"boreal motors inc." 0.83, "alice smith"/"alice jones" 0.78); name_match
# scores them: one name spelled two ways 1.0, "new york"/"new york city" 0.80, "john
# smith"/"jon smith" 0.74, "meridian freight"/"meridian logistics" 0.60 (see bench/consolidate.py).
CANDIDATE = 0.75
PROPOSE = 0.7
AUTO_MERGE = 0.9
TOP_K = 10
_EMBED_BATCH = 256
# All a merge changes on a version it carries over (resolution.merge_many retracts it, naming
# its copy): the snapshot a rollback restores holds just these.
MERGE_KEYS = (
    "status",
    "retracted_at",
    "retracted_by",
    "retract_reason",
    "merged_into",
    "merged_at",
    "changes_at",
    "changes",
)


@dataclass(frozen=True)
class MergeProposal:
    id: str
    scope: str
    entity_a: str
    name_a: str
    entity_b: str
    name_b: str
    score: float
    run_id: str
    created_at: datetime | None


def _survivor(p: SimilarEntities) -> tuple[str, str]:
    """(kept, absorbed): the entity more facts are about; on a tie the shorter name."""
    a_first = (p.a_facts, -len(p.a_key)) >= (p.b_facts, -len(p.b_key))
    return (p.a_key, p.b_key) if a_first else (p.b_key, p.a_key)


class EntityResolver:
    def __init__(
        self,
        repo: ResolutionRepository,
        similarity: SimilarityRepository,
        embedder: Embedder,
        propose: float = PROPOSE,
        auto_merge: float = AUTO_MERGE,
    ) -> None:
        self.repo = repo
        self.similarity = similarity
        self.embedder = embedder
        self.propose = propose
        self.auto_merge = auto_merge

    async def prepare(self, tenant: str, scopes: list[str]) -> int:
        """Name vectors for the scopes' entities that lack one, committed before the run (GDS
        reads committed data); derived from the name, so not part of any run's diff."""
        done = 0
        while rows := await self.repo.unembedded(tenant, scopes, _EMBED_BATCH):
            vectors = await self.embedder.embed([r["key"] for r in rows])
            await self.repo.set_embeddings(
                tenant, [{"id": r["id"], "vector": v} for r, v in zip(rows, vectors, strict=True)]
            )
            done += len(rows)
        return done

    async def step(self, ctx: RunContext) -> None:
        ctx.zero("merged", "facts_moved", "proposed")
        for scope in ctx.scopes:
            # GDS reads committed data (a dry run: the store as it was before the run).
            pairs = await asyncio.to_thread(
                self.similarity.similar, ctx.tenant, scope, CANDIDATE, TOP_K
            )
            pairs += await self._spelled_alike(ctx.tenant, scope, pairs)
            scored = sorted(
                ((name_score(p.a_key, p.b_key, p.score), p) for p in pairs),
                key=lambda sp: (-sp[0], sp[1].a_key, sp[1].b_key),
            )
            absorbed: set[str] = set()
            kept: set[str] = set()
            merges: list[dict[str, Any]] = []
            rows: list[dict[str, object]] = []
            for score, p in scored:
                if score < self.propose:
                    continue
                if p.a_key in absorbed or p.b_key in absorbed:
                    continue  # one merge per entity per run: no chains through a survivor
                if score >= self.auto_merge:
                    keep, gone = _survivor(p)
                    if gone in kept:
                        continue  # nor is a survivor absorbed later in the same run
                    facts = p.a_facts if gone == p.a_key else p.b_facts
                    merges.append(
                        {"scope": scope, "keep": keep, "gone": gone, "score": score, "facts": facts}
                    )
                    absorbed.add(gone)
                    kept.add(keep)
                else:
                    rows.append(
                        {
                            "id": f"mp_{uuid.uuid4().hex}",
                            "scope": scope,
                            "a": p.a_key,
                            "b": p.b_key,
                            "name_a": p.a_name,
                            "name_b": p.b_name,
                            "score": score,
                        }
                    )
            # A batch of merges moves about ctx.batch_size facts (each entity has several).
            await ctx.each(merges, lambda chunk: self._merge(ctx, chunk), lambda m: m["facts"])
            await ctx.each(rows, lambda chunk: self._propose(ctx, chunk))

    async def _spelled_alike(
        self, tenant: str, scope: str, found: list[SimilarEntities]
    ) -> list[SimilarEntities]:
        """Pairs of the scope's entities whose names are alike by spelling alone
        (name_match.same_name_groups) that kNN did not find: a vector can rate one name
        spelled two ways far apart ("IBM" / "I.B.M." 0.34). name_score does not read their
        cosine (none is given)."""
        rows = {str(r["key"]): r for r in await self.repo.scope_names(tenant, scope)}
        known = {(p.a_key, p.b_key) for p in found}
        out: list[SimilarEntities] = []
        for group in same_name_groups(list(rows)):
            for i, a in enumerate(group):
                for b in group[i + 1 :]:
                    if (a, b) in known:
                        continue
                    ra, rb = rows[a], rows[b]
                    out.append(
                        SimilarEntities(
                            scope,
                            a,
                            str(ra["name"]),
                            int(ra["facts"]),
                            b,
                            str(rb["name"]),
                            int(rb["facts"]),
                            0.0,
                        )
                    )
        return out

    async def _merge(self, ctx: RunContext, merges: list[dict[str, Any]]) -> list[Count]:
        found = await ResolutionRepository.facts_about(ctx.tx, ctx.tenant, merges)
        ids = [r["id"] for r in found]
        before = await ctx.touch(ids, settle=False, keys=MERGE_KEYS)
        carried = await ResolutionRepository.merge_facts(
            ctx.tx, ctx.tenant, merges, ctx.run_id, ctx.now
        )
        copies = [r["copy"] for r in carried]
        relinked = {
            r["id"]: {"supersedes": r["supersedes"], "superseded_by": r["superseded_by"]}
            for r in await ResolutionRepository.link_copies(
                ctx.tx, ctx.tenant, [{"id": r["id"], "copy": r["copy"]} for r in carried]
            )
        }
        await ctx.created(copies)
        # Each version is retracted at the run's moment and its copy believed from it: both
        # slots' timelines settle at that moment (journaled: a quiet rollback inverts them),
        # every earlier segment stays as it was.
        await ctx.settle(ids + copies)
        why, after, copied, events = _carried(ctx, merges, found, before, carried, relinked)
        # One diff entry per version carried over (its after names the copy); the copies
        # are fingerprinted too, so a rollback sees a later change to one.
        events += await ctx.record("merge_entity", before, why, after)
        ctx.printed(copied)
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        return [Count("merged", len(merges)), Count("facts_moved", len(copies))]

    async def _propose(self, ctx: RunContext, rows: list[dict[str, object]]) -> list[Count]:
        out = await ResolutionRepository.propose(ctx.tx, ctx.tenant, rows, ctx.run_id, ctx.now)
        created = {r["id"] for r in out if r["created"]}
        events = []
        for row in rows:
            if row["id"] not in created:
                continue  # the pair was already proposed: its score is refreshed
            why = f"'{row['name_a']}' and '{row['name_b']}' may be one entity in {row['scope']}"
            after = json.dumps({k: row[k] for k in ("scope", "a", "b", "score")})
            ctx.note("propose_merge", str(row["id"]), why, after)
            events.append(
                audit.event(
                    None,
                    "propose_merge",
                    "entity_pair",
                    str(row["id"]),
                    ctx.now,
                    after=json.loads(after),
                    reason=why,
                    actor=ACTOR,
                    actor_type="consolidation",
                )
            )
        await AuditRepository.record_in_tx(ctx.tx, ctx.tenant, events)
        return [Count("proposed", len(created))]

    async def proposals(self, tenant: str, scopes: list[str], first: int) -> list[MergeProposal]:
        rows = await self.repo.proposals(tenant, scopes, first)
        return [
            MergeProposal(
                id=r["id"],
                scope=r["scope"],
                entity_a=r["entity_a"],
                name_a=r["name_a"],
                entity_b=r["entity_b"],
                name_b=r["name_b"],
                score=float(r["score"]),
                run_id=r["run_id"],
                created_at=as_datetime(r.get("created_at")),
            )
            for r in rows
        ]


def _carried(
    ctx: RunContext,
    merges: list[dict[str, Any]],
    found: list[Record],
    before: dict[str, Record],
    carried: list[Record],
    relinked: dict[str, dict[str, Any]],
) -> tuple[dict[str, str | None], dict[str, Record], dict[str, Record], list[dict[str, Any]]]:
    """A merge batch's outcome per version carried over: the reason, the version's state after
    and its copy's (the state before with what the statements changed: no read back of
    thousands of versions), and the copy's audit event."""
    by_gone = {m["gone"]: m for m in merges}
    gone_of = {r["id"]: r["gone"] for r in found}
    why: dict[str, str | None] = {}
    after: dict[str, Record] = {}
    copied: dict[str, Record] = {}
    events: list[dict[str, Any]] = []
    for r in carried:
        m = by_gone[gone_of[r["id"]]]
        said = (
            f"entity '{m['gone']}' merged into '{m['keep']}' in {m['scope']} "
            f"(name similarity {m['score']:.3f})"
        )
        why[r["id"]] = f"{said}; continued as {r['copy']}"
        after[r["id"]] = {**before[r["id"]], **r["retracted"]}
        copied[r["copy"]] = {**before[r["id"]], **r["carried"], **relinked.get(r["copy"], {})}
        events.append(
            audit.event(
                None,
                "merge_entity",
                "fact",
                r["copy"],
                ctx.now,
                after={k: r["carried"][k] for k in ("subject", "merged_from")},
                reason=f"{said}; carries over {r['id']}",
                actor=ACTOR,
                actor_type="consolidation",
            )
        )
    return why, after, copied, events
