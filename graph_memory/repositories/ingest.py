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

    @staticmethod
    async def drop_kept_turns(tx: Tx, tenant: str) -> int:
        """Forget the raw turns finished jobs kept (the policy stopped keeping them)."""
        rows = await tx.run("ingest.drop_kept_turns", {"tenant": require_tenant(tenant)})
        return int(rows[0]["dropped"]) if rows else 0

    async def get(self, tenant: str, job_id: str) -> Record | None:
        rows = await self.db.read(
            "ingest.get_job", {"tenant": require_tenant(tenant), "id": job_id}
        )
        return rows[0]["job"] if rows else None

    async def claim(
        self,
        owner: str,
        token: str,
        now: datetime,
        lease_until: datetime,
        tenants: list[str] | None = None,
        *,
        probe: bool = True,
        full: list[str] | None = None,
    ) -> Record | None:
        """Claim the oldest free job for ``owner`` until ``lease_until`` under the claim
        ``token``, or None.

        Jobs of every tenant share one queue: the worker serves them all and each job carries
        its own tenant, which every later step passes on. ``probe``: look first, without a
        lock, whether any job is free (an idle worker's poll then takes no write lock); a
        worker that just finished a job skips the look, since more are likely waiting.
        ``full``: tenants whose jobs are passed over (at their share of the worker's slots).
        The job comes with ``credential_revoked``: whether the key or session token that
        submitted it was revoked since."""
        params = {"now": now, "tenants": tenants, "full": full or []}
        if probe and not await self.db.read("ingest.any_due", params):
            return None
        rows = await self.db.write(
            "ingest.claim_job",
            {
                "owner": owner,
                "token": token,
                "now": now,
                "lease_until": lease_until,
                "tenants": tenants,
                "full": full or [],
            },
        )
        return rows[0]["job"] if rows else None

    async def update(self, tenant: str, job_id: str, token: str, changes: dict[str, Any]) -> bool:
        """Apply ``changes`` while the claim ``token`` still holds the job; False when it lost
        it."""
        rows = await self.db.write(
            "ingest.update_job",
            {"tenant": require_tenant(tenant), "id": job_id, "token": token, "changes": changes},
        )
        return bool(rows)

    @staticmethod
    async def complete_in_tx(
        tx: Tx,
        tenant: str,
        job_id: str,
        token: str,
        changes: dict[str, Any],
        *,
        episode_id: str,
        facts: list[dict[str, Any]],
        extractor: str,
        events: list[dict[str, Any]],
        vectors: dict[str, list[dict[str, Any]]],
    ) -> bool:
        """Inside the session's write transaction: mark the job done, tag what it wrote, record
        the session's audit ``events`` and set the vectors of what it created (``vectors``:
        {id, embedding} rows under episodes, facts, memos) (ingest.complete_job); False when
        the claim ``token`` no longer holds the job."""
        rows = await tx.run(
            "ingest.complete_job",
            {
                "tenant": require_tenant(tenant),
                "id": job_id,
                "token": token,
                "changes": changes,
                "episode_id": episode_id,
                "facts": facts,
                "extractor": extractor,
                "events": events,
                "episode_vectors": vectors.get("episodes", []),
                "fact_vectors": vectors.get("facts", []),
                "memo_vectors": vectors.get("memos", []),
            },
        )
        return bool(rows)

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
