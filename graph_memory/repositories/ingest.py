"""Ingest jobs in the graph: created once per session, claimed under a lease, checkpointed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.repositories._scope import require_scopes, require_tenant

__all__ = ["IngestRepository"]


class IngestRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def create_many(
        self, rows: list[dict[str, Any]], now: datetime
    ) -> dict[str, tuple[Record, bool]]:
        """Per row id: the job for the row's (tenant, user, session), the one just created or
        the existing one, and whether it was created. One transaction for all rows."""
        for row in rows:
            require_tenant(row.get("tenant"))
        out = await self.db.write("ingest.create_jobs", {"rows": rows, "now": now})
        return {str(r["row_id"]): (r["job"], bool(r["created"])) for r in out}

    async def get(self, tenant: str, job_id: str) -> Record | None:
        rows = await self.db.read(
            "ingest.get_job", {"tenant": require_tenant(tenant), "id": job_id}
        )
        return rows[0]["job"] if rows else None

    async def claim(
        self,
        owner: str,
        now: datetime,
        lease_until: datetime,
        tenants: list[str] | None = None,
    ) -> Record | None:
        """Claim the oldest free job for ``owner`` until ``lease_until``, or None.

        Jobs of every tenant share one queue: the worker serves them all and each job carries
        its own tenant, which every later step passes on."""
        if not await self.db.read("ingest.any_due", {"now": now, "tenants": tenants}):
            return None

        async def work(tx: Tx) -> Record | None:
            await tx.run("ingest.lock_queue", {})
            rows = await tx.run(
                "ingest.claim_job",
                {"owner": owner, "now": now, "lease_until": lease_until, "tenants": tenants},
            )
            return rows[0]["job"] if rows else None

        job: Record | None = await self.db.write_tx(work)
        return job

    async def update(self, tenant: str, job_id: str, owner: str, changes: dict[str, Any]) -> bool:
        """Apply ``changes`` while ``owner`` still holds the lease; False when it lost it."""

        async def work(tx: Tx) -> bool:
            # Under the queue lock, as claims are: a renewal can never interleave with a
            # takeover of the same job.
            await tx.run("ingest.lock_queue", {})
            rows = await tx.run(
                "ingest.update_job",
                {
                    "tenant": require_tenant(tenant),
                    "id": job_id,
                    "owner": owner,
                    "changes": changes,
                },
            )
            return bool(rows)

        ok: bool = await self.db.write_tx(work)
        return ok

    async def find_episode(
        self, tenant: str, user_id: str, session_id: str, job_id: str
    ) -> str | None:
        rows = await self.db.read(
            "ingest.find_episode",
            {
                "tenant": require_tenant(tenant),
                "user_id": user_id,
                "session_id": session_id,
                "job_id": job_id,
            },
        )
        return str(rows[0]["id"]) if rows else None

    async def tag_episode(self, tenant: str, episode_id: str, job_id: str, extractor: str) -> None:
        await self.db.write(
            "ingest.tag_episode",
            {
                "tenant": require_tenant(tenant),
                "id": episode_id,
                "job_id": job_id,
                "extractor": extractor,
            },
        )

    async def tag_facts(
        self,
        tenant: str,
        episode_id: str,
        rows: list[dict[str, Any]],
        job_id: str,
        extractor: str,
    ) -> None:
        if not rows:
            return
        await self.db.write(
            "ingest.tag_facts",
            {
                "tenant": require_tenant(tenant),
                "episode_id": episode_id,
                "rows": rows,
                "job_id": job_id,
                "extractor": extractor,
            },
        )

    async def fact_turns(self, tenant: str, scopes: list[str], ids: list[str]) -> list[Record]:
        return await self.db.read(
            "ingest.fact_turns",
            {"tenant": require_tenant(tenant), "scopes": require_scopes(scopes), "ids": ids},
        )

    async def forget_user(
        self, tenant: str, user_id: str, before: datetime | None = None
    ) -> tuple[int, int]:
        rows = await self.db.write(
            "ingest.forget_user",
            {"tenant": require_tenant(tenant), "user_id": user_id, "before": before},
        )
        return int(rows[0]["jobs"]), int(rows[0]["memos"])
