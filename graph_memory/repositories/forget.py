"""Excision of forgotten contributors: each step runs inside the purge batch's write transaction."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.domain import TIER_CAP, TIER_RANK, Tier, as_datetime
from graph_memory.repositories._scope import require_tenant
from graph_memory.repositories.timeline import life_of, link_of
from graph_memory.temporal.withdrawal import kept_telling, others_first, repromote, rest_on

__all__ = ["ForgetRepository", "FreeEpisodes", "Relinks", "RestedOn"]


@dataclass(frozen=True)
class FreeEpisodes:
    """Episodes a purge batch deletes, the procedures they evidence, and those of them that
    reported outcomes (whose reports go first)."""

    ids: list[str]
    procedures: list[str]
    judged: list[str]


@dataclass(frozen=True)
class RestedOn:
    """Surviving versions rebuilt from the evidence left: those that changed, and those
    among them now inferences (only an inference's tellings spoke for them)."""

    changed: list[str]
    inferred: list[str]
    # Versions the forgotten contributors said before anyone else: {id, first}, ``first``
    # when the others first said it (forget.redact_told_alone).
    told_alone: list[dict[str, str]] = field(default_factory=list)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _time(value: Any) -> datetime:
    out = as_datetime(value)
    if out is None:
        raise ValueError("a missing time on a surviving version")
    return out


@dataclass(frozen=True)
class Relinks:
    """What forget/relink rewrites around excised versions: ``links`` (newer, older): the
    surviving version that linked to an excised one and the nearest surviving older one it
    links to now (None: none); ``closes`` (older, via, closer): the surviving version the
    excised ``via`` had ended and the nearest surviving version along the enders (None:
    none, it is current again)."""

    links: list[dict[str, str | None]]
    closes: list[dict[str, str | None]]

    @property
    def survivors(self) -> set[str]:
        rows = [*self.links, *self.closes]
        return {str(r[k]) for r in rows for k in ("newer", "older", "closer") if r.get(k)}


class ForgetRepository:
    # Reads return one row of lists: thousands of ids cross the wire far faster as one value
    # than as thousands of records, and a forget of 10k facts has a latency budget.
    @staticmethod
    async def batch_facts(
        tx: Tx, tenant: str, contributors: list[str], limit: int, ends: bool
    ) -> Record:
        """doomed (+ doomed_tiers, same order), chained, premises, kept_slots, shared,
        shared_inferred, worded, episodes: the next ``limit`` facts citing the contributors
        (forget.batch_facts); ``ends``: only versions with an end (forget/_next_facts)."""
        rows = await tx.run(
            "forget.batch_facts",
            {
                "tenant": require_tenant(tenant),
                "contributors": contributors,
                "limit": limit,
                "ends": ends,
            },
        )
        return rows[0]

    @staticmethod
    async def batch_scopes(
        tx: Tx, tenant: str, contributors: list[str], limit: int, ends: bool
    ) -> list[str]:
        """Every scope the next batch can write in through its facts (forget.batch_scopes),
        to lock first."""
        rows = await tx.run(
            "forget.batch_scopes",
            {
                "tenant": require_tenant(tenant),
                "contributors": contributors,
                "limit": limit,
                "ends": ends,
            },
        )
        return [str(s) for s in rows[0]["scopes"]] if rows else []

    @staticmethod
    async def repoint_digests(tx: Tx, tenant: str, contributors: list[str]) -> int:
        """Facts citing a digest of the contributors' episodes cite its members instead
        (forget.repoint_digests); how many."""
        rows = await tx.run(
            "forget.repoint_digests",
            {"tenant": require_tenant(tenant), "contributors": contributors},
        )
        return int(rows[0]["facts"]) if rows else 0

    @staticmethod
    async def ends_left(tx: Tx, tenant: str, contributors: list[str]) -> bool:
        """Whether the purge is in its ends phase (forget.ends_left)."""
        rows = await tx.run(
            "forget.ends_left", {"tenant": require_tenant(tenant), "contributors": contributors}
        )
        return bool(rows[0]["ends_left"])

    @staticmethod
    async def ends_purged(tx: Tx, tenant: str, contributors: list[str]) -> None:
        """The ends phase is over (forget.ends_purged)."""
        await tx.run(
            "forget.ends_purged", {"tenant": require_tenant(tenant), "contributors": contributors}
        )

    @staticmethod
    async def episode_scopes(tx: Tx, tenant: str, contributors: list[str]) -> list[str]:
        """Every scope the contributors' episodes and their procedures are in
        (forget.episode_scopes): what any batch can write in through them."""
        rows = await tx.run(
            "forget.episode_scopes",
            {"tenant": require_tenant(tenant), "contributors": contributors},
        )
        return [str(s) for s in rows[0]["scopes"]] if rows else []

    @staticmethod
    async def free_episodes(
        tx: Tx,
        tenant: str,
        contributors: list[str],
        ids: list[str] | None,
        limit: int,
        facts: list[str] | None = None,
    ) -> FreeEpisodes:
        """Episodes of the contributors that no fact but ``facts`` (a batch's, which all
        stop citing them) cites: among ``ids``, or (None) the next ``limit`` of them once no
        fact cites any."""
        tenant = require_tenant(tenant)
        if ids is None:
            rows = await tx.run(
                "forget.batch_episodes",
                {"tenant": tenant, "contributors": contributors, "limit": limit},
            )
        elif ids:
            rows = await tx.run(
                "forget.free_episodes",
                {
                    "tenant": tenant,
                    "contributors": contributors,
                    "ids": ids,
                    "facts": dict.fromkeys(facts or (), True),
                },
            )
        else:
            return FreeEpisodes([], [], [])
        if not rows:
            return FreeEpisodes([], [], [])
        procedures = sorted({p for per in rows[0]["procedures"] for p in per})
        return FreeEpisodes(list(rows[0]["ids"]), procedures, list(rows[0]["judged"]))

    @staticmethod
    async def merge_copies(tx: Tx, tenant: str, ids: list[str], doomed: list[str]) -> list[str]:
        """Surviving entity-merge copies of these excised versions (``ids``, of ``doomed``),
        no longer naming them."""
        if not ids:
            return []
        rows = await tx.run(
            "forget.merge_copies", {"tenant": require_tenant(tenant), "ids": ids, "doomed": doomed}
        )
        return [str(i) for i in rows[0]["ids"]] if rows else []

    @staticmethod
    async def chains(tx: Tx, tenant: str, ids: list[str]) -> list[Record]:
        if not ids:
            return []
        rows = await tx.run("forget.chains", {"tenant": require_tenant(tenant), "ids": ids})
        return list(rows[0]["links"]) if rows else []

    @staticmethod
    async def procedures(tx: Tx, tenant: str, episode_ids: list[str]) -> list[str]:
        if not episode_ids:
            return []
        rows = await tx.run(
            "forget.procedures", {"tenant": require_tenant(tenant), "episode_ids": episode_ids}
        )
        return sorted(rows[0]["ids"]) if rows else []

    @staticmethod
    async def flag_dependents(
        tx: Tx, tenant: str, ids: list[str], now: datetime, reason: str
    ) -> list[Record]:
        if not ids:
            return []
        return await tx.run(
            "forget.flag_dependents",
            {
                "tenant": require_tenant(tenant),
                "ids": ids,
                "excised": dict.fromkeys(ids, True),
                "now": now,
                "reason": reason,
            },
        )

    @staticmethod
    async def threshold(tx: Tx, tenant: str) -> int | None:
        """The promotion threshold the forgets in flight judge by (forget.threshold)."""
        rows = await tx.run("forget.threshold", {"tenant": require_tenant(tenant)})
        value = rows[0]["promote_sessions"] if rows else None
        return None if value is None else int(value)

    @staticmethod
    async def rest_on_evidence_left(
        tx: Tx, tenant: str, fact_ids: list[str], promote_sessions: int
    ) -> RestedOn:
        """Surviving versions whose forgotten evidence was unlinked, as the evidence left
        says (graph_memory/temporal/withdrawal.rest_on and kept_telling, the rules the reads
        resolve a slot by while the purge is on its way): believed from when the others
        first said them, valid as the first of their tellings claimed, of the strongest
        tier they spoke with, said when they said it; an inference promoted by corroboration
        promoted from when the sessions left reach ``promote_sessions`` (withdrawal.repromote).
        Returns the ids that changed (their slots' timelines are rebuilt) and those now
        inferences (their promotion is judged again)."""
        if not fact_ids:
            return RestedOn([], [])
        tenant = require_tenant(tenant)
        rows = await tx.run("forget.evidence_left", {"tenant": tenant, "fact_ids": fact_ids})
        out: list[dict[str, Any]] = []
        alone: list[dict[str, str]] = []
        for r in rows:
            v = r["version"]
            life = life_of(v)
            kept = [link_of(x, False) for x in v["links"]]
            first = others_first(life, kept)
            if first is not None:
                alone.append({"id": life.id, "first": first.isoformat()})
            ends = [_time(t) for t in v["ends"]]
            new = rest_on(life, kept, ends)
            told = kept_telling(kept)
            tier = told.tier if told is not None else None
            lowered = tier is not None and tier.value != v["tier"]
            # The source the version keeps: that of the telling its tier now comes from.
            source = told.source if told is not None else None
            resourced = source is not None and source != v["source"]
            if (tier or Tier(v["tier"])) is Tier.INFERRED and not v["approved"]:
                new = repromote(new, kept, ends, promote_sessions)
            moved = new.recorded_at != life.recorded_at
            activated = new.activated_at != life.activated_at
            valid = (new.valid_from, new.valid_to, new.stated)
            if (
                not moved
                and not activated
                and not lowered
                and not resourced
                and valid == (life.valid_from, life.valid_to, life.stated)
                and new.tellings == life.tellings
            ):
                continue
            out.append(
                {
                    "id": new.id,
                    "first": _iso(new.recorded_at) if moved else None,
                    "activated_at": _iso(new.activated_at) if moved or activated else None,
                    "valid_from": _iso(new.valid_from),
                    "valid_to": _iso(new.valid_to),
                    "stated": new.stated,
                    "told_log_at": [_iso(t.at) for t in new.tellings],
                    "told_log": [_iso(t.told_at) for t in new.tellings],
                    "told_at": _iso(new.tellings[-1].told_at) if new.tellings else None,
                    "tier": tier.value if lowered and tier is not None else None,
                    "tier_rank": TIER_RANK[tier] if lowered and tier is not None else None,
                    "tier_cap": TIER_CAP[tier] if lowered and tier is not None else None,
                    "source": source if resourced else None,
                }
            )
        if not out:
            return RestedOn([], [], alone)
        done = await tx.run("forget.rest_on", {"tenant": tenant, "rows": out})
        inferred = [str(r["id"]) for r in out if r["tier"] == Tier.INFERRED.value]
        return RestedOn([str(r["id"]) for r in done], inferred, alone)

    @staticmethod
    async def redact_told_alone(
        tx: Tx, tenant: str, rows: list[dict[str, str]], now: datetime
    ) -> int:
        """Blank the audit events recording the forgotten contributors' own telling of
        versions others said only later (rows from ``RestedOn.told_alone``)."""
        if not rows:
            return 0
        done = await tx.run(
            "forget.redact_told_alone", {"tenant": require_tenant(tenant), "rows": rows, "now": now}
        )
        return int(done[0]["redacted"]) if done else 0

    @staticmethod
    async def unlink_contributors(
        tx: Tx, tenant: str, fact_ids: list[str], contributors: list[str]
    ) -> None:
        if fact_ids and contributors:
            await tx.run(
                "forget.unlink_contributors",
                {
                    "tenant": require_tenant(tenant),
                    "fact_ids": fact_ids,
                    "contributors": contributors,
                },
            )

    @staticmethod
    async def relink(tx: Tx, tenant: str, plan: Relinks, excised: list[str]) -> list[str]:
        """Rewrites the chains (forget/relink); returns the versions current again."""
        if not plan.links and not plan.closes:
            return []
        rows = await tx.run(
            "forget.relink",
            {
                "tenant": require_tenant(tenant),
                "links": plan.links,
                "closes": plan.closes,
                "excised": excised,
            },
        )
        return sorted(str(i) for i in rows[0]["reopened"]) if rows else []

    @staticmethod
    async def delete_facts(tx: Tx, tenant: str, ids: list[str]) -> tuple[int, int]:
        """Deletes the versions and the entities only they named: (facts, entities)."""
        if not ids:
            return 0, 0
        rows = await tx.run("forget.delete_facts", {"tenant": require_tenant(tenant), "ids": ids})
        return (int(rows[0]["deleted"]), int(rows[0]["entities"])) if rows else (0, 0)

    @staticmethod
    async def delete_episodes(tx: Tx, tenant: str, ids: list[str]) -> int:
        if not ids:
            return 0
        rows = await tx.run(
            "forget.delete_episodes", {"tenant": require_tenant(tenant), "ids": ids}
        )
        return int(rows[0]["deleted"]) if rows else 0

    @staticmethod
    async def demote_procedures(
        tx: Tx, tenant: str, ids: list[str], now: datetime, reason: str
    ) -> list[Record]:
        if not ids:
            return []
        return await tx.run(
            "forget.demote_procedures",
            {"tenant": require_tenant(tenant), "ids": ids, "now": now, "reason": reason},
        )

    @staticmethod
    async def recandidate(
        tx: Tx, tenant: str, ids: list[str], now: datetime, reason: str
    ) -> list[Record]:
        """Rows ``id, status_before, status, reopened`` of the inferred facts that lost a
        promotion (``reopened``: what it had ended, current again)."""
        if not ids:
            return []
        return await tx.run(
            "forget.recandidate",
            {"tenant": require_tenant(tenant), "ids": ids, "now": now, "reason": reason},
        )

    @staticmethod
    async def delete_predicates(
        tx: Tx, tenant: str, names: list[str], now: datetime, user_id: str | None
    ) -> int:
        if not names:
            return 0
        rows = await tx.run(
            "forget.delete_predicates",
            {"tenant": require_tenant(tenant), "names": names, "now": now, "user_id": user_id},
        )
        return len(rows)

    @staticmethod
    async def delete_contributors(tx: Tx, tenant: str, contributors: list[str]) -> int:
        if not contributors:
            return 0
        rows = await tx.run(
            "forget.delete_contributors",
            {"tenant": require_tenant(tenant), "contributors": contributors},
        )
        return int(rows[0]["deleted"]) if rows else 0

    @staticmethod
    async def redact_audit(tx: Tx, tenant: str, target_ids: list[str], now: datetime) -> int:
        if not target_ids:
            return 0
        rows = await tx.run(
            "audit.redact", {"tenant": require_tenant(tenant), "ids": target_ids, "now": now}
        )
        return int(rows[0]["redacted"]) if rows else 0

    @staticmethod
    async def survivor_trail(tx: Tx, tenant: str, ids: list[str]) -> list[Record]:
        if not ids:
            return []
        return await tx.run("forget.survivor_trail", {"tenant": require_tenant(tenant), "ids": ids})

    @staticmethod
    async def rewrite_events(tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime) -> int:
        """Rows ``{id, before, after, reason}``: audit events rewritten in place."""
        if not rows:
            return 0
        out = await tx.run(
            "forget.rewrite_events", {"tenant": require_tenant(tenant), "rows": rows, "now": now}
        )
        return int(out[0]["rewritten"]) if out else 0

    @staticmethod
    async def premise_dependents(
        tx: Tx, tenant: str, ids: list[str], excised: list[str]
    ) -> list[Record]:
        """Flagged conclusions of these premises: ``id, reason, changed`` ([premise id, what
        happened] for one premise that really changed, excised ones aside; or None)."""
        if not ids:
            return []
        return await tx.run(
            "forget.premise_dependents",
            {"tenant": require_tenant(tenant), "ids": ids, "excised": excised},
        )

    @staticmethod
    async def reflag(tx: Tx, tenant: str, rows: list[dict[str, Any]]) -> None:
        if rows:
            await tx.run("forget.reflag", {"tenant": require_tenant(tenant), "rows": rows})

    @staticmethod
    async def unflag(tx: Tx, tenant: str, ids: list[str]) -> list[str]:
        if not ids:
            return []
        rows = await tx.run("forget.unflag", {"tenant": require_tenant(tenant), "ids": ids})
        return [str(r["id"]) for r in rows]

    @staticmethod
    async def reword(tx: Tx, tenant: str, rows: list[dict[str, Any]]) -> int:
        """Rows ``{id, text, embedding}``: new text, and the embedding when there is one."""
        if not rows:
            return 0
        tenant = require_tenant(tenant)
        done = await tx.run(
            "forget.reword",
            {"tenant": tenant, "rows": [{"id": r["id"], "text": r["text"]} for r in rows]},
        )
        vectors = [{"id": r["id"], "embedding": r["embedding"]} for r in rows if r["embedding"]]
        if vectors:
            await tx.run("fact.set_embeddings", {"tenant": tenant, "rows": vectors})
        return len(done)

    # -- what the purge's batches do not reach: the user's reports, procedures and trail --
    @staticmethod
    async def drop_outcomes(tx: Tx, tenant: str, episode_ids: list[str], now: datetime) -> int:
        """The outcome reports of these episodes go (their audit events redacted); the
        memories they judged are recounted. Returns how many audit events were redacted."""
        if not episode_ids:
            return 0
        rows = await tx.run(
            "forget.drop_outcomes",
            {"tenant": require_tenant(tenant), "ids": episode_ids, "now": now},
        )
        return int(rows[0]["redacted"] or 0) if rows else 0

    @staticmethod
    async def user_procedures(
        tx: Tx, tenant: str, user_id: str, label: str, before: datetime, reason: str
    ) -> list[str]:
        """Deletes the procedures that are the user's own (forget.user_procedures); their ids."""
        rows = await tx.run(
            "forget.user_procedures",
            {
                "tenant": require_tenant(tenant),
                "scope": f"user:{user_id}",
                "label": label,
                "before": before,
                "reason": reason,
            },
        )
        return [str(i) for i in rows[0]["ids"]] if rows else []

    @staticmethod
    async def redact_acted_for(
        tx: Tx,
        tenant: str,
        user_id: str,
        label: str,
        stand_in: str,
        before: datetime,
        now: datetime,
    ) -> int:
        """Audit events of the session tokens that served the user (forget.redact_acted_for)."""
        rows = await tx.run(
            "forget.redact_acted_for",
            {
                "tenant": require_tenant(tenant),
                "user": user_id,
                "label": label,
                "stand_in": stand_in,
                "before": before,
                "now": now,
            },
        )
        return int(rows[0]["redacted"]) if rows else 0

    @staticmethod
    async def delete_merged_entities(tx: Tx, tenant: str) -> int:
        """Merged entities no fact of their group names any more (forget.merged_entities)."""
        rows = await tx.run("forget.merged_entities", {"tenant": require_tenant(tenant)})
        return int(rows[0]["deleted"]) if rows else 0

    @staticmethod
    async def drop_orphan_proposals(tx: Tx, tenant: str) -> list[str]:
        """Merge proposals naming an entity gone (forget.orphan_proposals); their ids."""
        rows = await tx.run("forget.orphan_proposals", {"tenant": require_tenant(tenant)})
        return [str(i) for i in rows[0]["ids"]] if rows else []

    @staticmethod
    async def scrub_consolidations(
        tx: Tx, tenant: str, scope: str, stand_in: str, now: datetime
    ) -> int:
        """Consolidation history of what was excised (forget.consolidation_trail): how many
        changes were redacted."""
        rows = await tx.run(
            "forget.consolidation_trail",
            {"tenant": require_tenant(tenant), "scope": scope, "stand_in": stand_in, "now": now},
        )
        return int(rows[0]["changes"] or 0) if rows else 0

    @staticmethod
    async def drop_scope_lock(tx: Tx, tenant: str, scope: str) -> bool:
        """The user's own scope lock, once their scope is empty (forget.drop_scope_lock)."""
        rows = await tx.run(
            "forget.drop_scope_lock", {"tenant": require_tenant(tenant), "scope": scope}
        )
        return bool(rows and rows[0]["dropped"])

    @staticmethod
    async def scrub_acted_for_marks(
        tx: Tx, tenant: str, user_id: str, label: str, stand_in: str
    ) -> int:
        """Marks a token serving the user left on others' facts and todos
        (forget.acted_for_marks)."""
        rows = await tx.run(
            "forget.acted_for_marks",
            {
                "tenant": require_tenant(tenant),
                "user": user_id,
                "label": label,
                "stand_in": stand_in,
            },
        )
        return int(rows[0]["marks"]) if rows else 0
