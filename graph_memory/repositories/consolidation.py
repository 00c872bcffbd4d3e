"""Consolidation runs: leases, the run record with its diff, the snapshots a rollback restores,
and the reads each step plans from. Every method runs inside the caller's transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["ConsolidationRepository"]


class ConsolidationRepository:
    # -- the scheduler ----------------------------------------------------------------------
    @staticmethod
    async def due(
        tx: Tx, tenants: list[str] | None, now: datetime, every_seconds: int, limit: int
    ) -> list[Record]:
        """Tenants written to since their last run, whose cadence has come round."""
        return await tx.run(
            "consolidation.due",
            {"tenants": tenants, "now": now, "every_seconds": every_seconds, "limit": limit},
        )

    # -- timelines of the slots a batch moved versions between ------------------------------
    @staticmethod
    async def slot_rows(
        tx: Tx, tenant: str, slots: list[dict[str, str]]
    ) -> tuple[list[Record], list[Record]]:
        """The slots' versions (their lifecycle) and their stored segments, with ids."""
        tenant = require_tenant(tenant)
        state = await tx.run("timeline.slot_state", {"tenant": tenant, "slots": slots, "ids": []})
        stored = await tx.run("timeline.segments", {"tenant": tenant, "slots": slots})
        return state, stored

    @staticmethod
    async def write_segments(
        tx: Tx,
        tenant: str,
        moves: list[dict[str, Any]],
        delete: list[str],
        create: list[dict[str, Any]],
    ) -> None:
        """Relabel segments to the slot their version now lives in, delete and create."""
        tenant = require_tenant(tenant)
        if moves:
            await tx.run("consolidation.move_segments", {"tenant": tenant, "rows": moves})
        if create or delete:
            await tx.run(
                "timeline.apply",
                {"tenant": tenant, "close": [], "delete": delete, "create": create, "now": None},
            )

    # -- leases and the run record ----------------------------------------------------------
    @staticmethod
    async def abandon_stale(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[str]:
        rows = await tx.run(
            "consolidation.stale",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )
        return [r["id"] for r in rows]

    @staticmethod
    async def claim(
        tx: Tx, tenant: str, scopes: list[str], run: dict[str, Any], now: datetime, until: datetime
    ) -> list[Record]:
        """Leases for ``scopes`` and the run node; returns the scopes held by other runs
        (empty when the claim succeeded)."""
        rows = await tx.run(
            "consolidation.claim",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "run": run,
                "now": now,
                "until": until,
            },
        )
        return [r for r in rows if r["held"]]

    @staticmethod
    async def held(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        """(scope, run_id) of the leases other runs hold on ``scopes`` now."""
        return await tx.run(
            "consolidation.held",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )

    @staticmethod
    async def release(tx: Tx, tenant: str, run_id: str) -> None:
        await tx.run("consolidation.release", {"tenant": require_tenant(tenant), "run_id": run_id})

    @staticmethod
    async def finish(
        tx: Tx,
        tenant: str,
        run_id: str,
        status: str,
        props: dict[str, Any],
        changes: list[dict[str, Any]],
        now: datetime,
    ) -> None:
        await tx.run(
            "consolidation.finish",
            {
                "tenant": require_tenant(tenant),
                "run_id": run_id,
                "status": status,
                "props": props,
                "changes": changes,
                "now": now,
            },
        )

    @staticmethod
    async def run(tx: Tx, tenant: str, run_id: str) -> Record | None:
        rows = await tx.run("consolidation.run", {"tenant": require_tenant(tenant), "id": run_id})
        return rows[0]["run"] if rows else None

    @staticmethod
    async def runs(
        tx: Tx,
        tenant: str,
        ids: list[str] | None,
        scope: str | None,
        limit: int,
        diff: bool = True,
    ) -> list[Record]:
        """Runs newest first, each with its diff (``changes``; None when ``diff`` is off)."""
        return await tx.run(
            "consolidation.runs",
            {
                "tenant": require_tenant(tenant),
                "ids": ids,
                "scope": scope,
                "limit": limit,
                "diff": diff,
            },
        )

    @staticmethod
    async def reclaim(
        tx: Tx, tenant: str, scopes: list[str], run_id: str, now: datetime, until: datetime
    ) -> list[Record]:
        rows = await tx.run(
            "consolidation.reclaim",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "run_id": run_id,
                "now": now,
                "until": until,
            },
        )
        return [r for r in rows if r["held"]]

    @staticmethod
    async def set_status(
        tx: Tx, tenant: str, run_id: str, status: str, from_: list[str], props: dict[str, Any]
    ) -> bool:
        rows = await tx.run(
            "consolidation.set_status",
            {
                "tenant": require_tenant(tenant),
                "run_id": run_id,
                "status": status,
                "from": from_,
                "props": props,
            },
        )
        return bool(rows)

    @staticmethod
    async def progress(
        tx: Tx,
        tenant: str,
        run_id: str,
        props: dict[str, Any],
        changes: list[dict[str, Any]],
        prints: list[dict[str, str]],
        until: datetime,
    ) -> int:
        """Record a committed batch; returns how many leases the run still holds."""
        rows = await tx.run(
            "consolidation.progress",
            {
                "tenant": require_tenant(tenant),
                "run_id": run_id,
                "props": props,
                "changes": changes,
                "prints": prints,
                "until": until,
            },
        )
        return int(rows[0]["leases"]) if rows else 0

    @staticmethod
    async def seqs(tx: Tx, tenant: str, scopes: list[str]) -> list[int]:
        """[tenant write counter, then each scope lock's counter in scope order]."""
        rows = await tx.run(
            "consolidation.seqs",
            {"tenant": require_tenant(tenant), "scopes": sorted(set(require_scopes(scopes)))},
        )
        return [int(rows[0]["tenant_seq"])] + [int(s) for s in rows[0]["scope_seqs"]]

    # -- snapshots and rollback -------------------------------------------------------------
    @staticmethod
    async def touch(
        tx: Tx,
        tenant: str,
        run_id: str,
        batch: int,
        ids: list[str],
        fresh: set[str],
        settle: bool,
        keys: list[str] | None,
    ) -> dict[str, Record]:
        """The memories' state now (as fact.get gives it), snapshotting those in ``fresh`` as
        of run batch ``batch``; ``settle``: the batch settles their timeline by the rule;
        ``keys``: the only properties it can change (None: any, and the evidence)."""
        if not ids:
            return {}
        rows = await tx.run(
            "consolidation.touch",
            {
                "tenant": require_tenant(tenant),
                "run_id": run_id,
                "batch": batch,
                "rows": [
                    {"id": i, "fresh": i in fresh, "settle": settle, "keys": keys} for i in ids
                ],
            },
        )
        return {r["fact"]["id"]: r["fact"] for r in rows}

    @staticmethod
    async def snapshot_created(
        tx: Tx, tenant: str, run_id: str, batch: int, ids: list[str]
    ) -> None:
        """Mark memories run batch ``batch`` created: its rollback deletes them."""
        if ids:
            await tx.run(
                "consolidation.snapshot_created",
                {"tenant": require_tenant(tenant), "run_id": run_id, "batch": batch, "ids": ids},
            )

    @staticmethod
    async def journal(
        tx: Tx, tenant: str, run_id: str, batch: int, writes: dict[str, list[Any]]
    ) -> None:
        """A merge batch's timeline writes (moved, created, deleted), for its rollback."""
        await tx.run(
            "consolidation.journal",
            {"tenant": require_tenant(tenant), "run_id": run_id, "batch": batch, **writes},
        )

    @staticmethod
    async def snapshots(tx: Tx, tenant: str, run_id: str, limit: int) -> list[Record]:
        return await tx.run(
            "consolidation.snapshots",
            {"tenant": require_tenant(tenant), "run_id": run_id, "limit": limit},
        )

    @staticmethod
    async def later_versions(tx: Tx, tenant: str, run_id: str, since: Any) -> list[str]:
        """Versions others wrote since ``since`` into the slots the run's memories return to
        (consolidation.later_versions); a few ids, none when there are none."""
        rows = await tx.run(
            "consolidation.later_versions",
            {"tenant": require_tenant(tenant), "run_id": run_id, "since": since},
        )
        return [str(r["id"]) for r in rows]

    @staticmethod
    async def used_digests(tx: Tx, tenant: str, run_id: str) -> list[str]:
        """The run's digests a later fact cites or a later outcome judged
        (consolidation.used_digests); a few ids, none when there are none."""
        rows = await tx.run(
            "consolidation.used_digests", {"tenant": require_tenant(tenant), "run_id": run_id}
        )
        return [str(r["id"]) for r in rows]

    @staticmethod
    async def snapshot_prints(tx: Tx, tenant: str, run_id: str, batch: int) -> list[Record]:
        """(id, print) of run batch ``batch``'s snapshots not yet restored."""
        return await tx.run(
            "consolidation.snapshot_prints",
            {"tenant": require_tenant(tenant), "run_id": run_id, "batch": batch},
        )

    @staticmethod
    async def restore(
        tx: Tx, tenant: str, run_id: str, batch: int, limit: int, audit: dict[str, Any]
    ) -> list[Record]:
        """Restore up to ``limit`` of the memories run batch ``batch`` snapshotted, each
        audited with the shared event fields ``audit`` (at as ISO text, actor, actor_type,
        reason)."""
        return await tx.run(
            "consolidation.restore",
            {
                "tenant": require_tenant(tenant),
                "run_id": run_id,
                "batch": batch,
                "limit": limit,
                "audit": audit,
            },
        )

    @staticmethod
    async def undo_journal(tx: Tx, tenant: str, run_id: str, batch: int) -> None:
        """Invert run batch ``batch``'s journaled timeline writes, if it has any."""
        await tx.run(
            "consolidation.undo_journal",
            {"tenant": require_tenant(tenant), "run_id": run_id, "batch": batch},
        )

    @staticmethod
    async def resettle(tx: Tx, tenant: str, run_id: str, limit: int) -> list[Record]:
        """A page of spent snapshots deleted; each row says whether its slots are recomputed."""
        return await tx.run(
            "consolidation.resettle",
            {"tenant": require_tenant(tenant), "run_id": run_id, "limit": limit},
        )

    @staticmethod
    async def mark_rolled_back(tx: Tx, tenant: str, run_id: str, now: datetime, actor: str) -> None:
        await tx.run(
            "consolidation.mark_rolled_back",
            {"tenant": require_tenant(tenant), "run_id": run_id, "now": now, "actor": actor},
        )

    @staticmethod
    async def sweep(tx: Tx, tenant: str, run_id: str, limit: int) -> int:
        """Delete up to ``limit`` snapshots of a rolled-back run; how many went."""
        rows = await tx.run(
            "consolidation.sweep",
            {"tenant": require_tenant(tenant), "run_id": run_id, "limit": limit},
        )
        return int(rows[0]["dropped"]) if rows else 0

    @staticmethod
    async def unswept(tx: Tx, tenant: str, limit: int) -> list[str]:
        """Rolled-back runs of the tenant with snapshots still to sweep."""
        rows = await tx.run(
            "consolidation.unswept", {"tenant": require_tenant(tenant), "limit": limit}
        )
        return [str(r["id"]) for r in rows]

    # -- what the steps plan from -----------------------------------------------------------
    @staticmethod
    async def due_expiry(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        return await tx.run(
            "consolidation.due_expiry",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )

    @staticmethod
    async def expire(tx: Tx, tenant: str, ids: list[str], now: datetime) -> list[Record]:
        if not ids:
            return []
        return await tx.run(
            "consolidation.expire", {"tenant": require_tenant(tenant), "ids": ids, "now": now}
        )

    @staticmethod
    async def promotable(
        tx: Tx, tenant: str, scopes: list[str], now: datetime, promote_sessions: int
    ) -> list[str]:
        rows = await tx.run(
            "consolidation.promotable",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "now": now,
                "promote_sessions": promote_sessions,
            },
        )
        return [r["id"] for r in rows]

    @staticmethod
    async def duplicates(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        return await tx.run(
            "consolidation.duplicates",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now},
        )

    @staticmethod
    async def merge_duplicates(
        tx: Tx, tenant: str, moves: list[dict[str, str]], now: datetime
    ) -> None:
        """Each duplicate's evidence copied onto its survivor, the duplicate marked merged
        into it and retracted (as fact.retract does, naming the survivor)."""
        if moves:
            params = {"tenant": require_tenant(tenant), "moves": moves, "now": now}
            await tx.run("consolidation.move_evidence", params)
            await tx.run("consolidation.mark_merged", params)
            await tx.run("consolidation.retract_many", params | {"actor": "consolidation"})

    @staticmethod
    async def contradictions(tx: Tx, tenant: str, scopes: list[str], now: datetime) -> list[Record]:
        """Answers that disagree across the scopes (consolidation.contradictions), and
        claims an entity merge carried in that lost their slot to another value
        (consolidation.merge_disagreements)."""
        params = {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "now": now}
        across = await tx.run("consolidation.contradictions", params)
        return across + await tx.run("consolidation.merge_disagreements", params)

    @staticmethod
    async def collectable(
        tx: Tx,
        tenant: str,
        scopes: list[str],
        now: datetime,
        max_confidence: float,
        unused_days: int,
    ) -> list[Record]:
        return await tx.run(
            "consolidation.collectable",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "now": now,
                "max_confidence": max_confidence,
                "unused_days": unused_days,
            },
        )

    @staticmethod
    async def collect(tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime) -> list[str]:
        if not rows:
            return []
        done = await tx.run(
            "consolidation.collect",
            {"tenant": require_tenant(tenant), "rows": rows, "now": now, "actor": "consolidation"},
        )
        return [r["id"] for r in done]
