"""ingestSession / ingestJob: validate a session, queue it once, report how its job went.

The job is stored at once and extracted out of band by a worker (services/ingest/worker.py),
so the agent never waits for the model. One job per (tenant, user, session): submitting the
same session again returns the first job (queued again if it failed: ingest.create_jobs);
the same session with different turns is a Conflict (it would need a new session id, or a
re-run by a later extractor).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import Principal, Role, parse_scopes, utcnow
from graph_memory.errors import Conflict, LlmNotConfigured, NotFound, ValidationError
from graph_memory.ingestion import (
    IngestJob,
    IngestOptions,
    SessionInput,
    check_session,
    request_hash,
    turns_from_json,
    turns_to_json,
)
from graph_memory.repositories.ingest import IngestRepository
from graph_memory.services.facts.group_commit import GroupCommit
from graph_memory.settings import Settings

__all__ = ["Citation", "IngestService", "Submission"]


@dataclass(frozen=True)
class Citation:
    fact_id: str
    episode_id: str
    session_id: str
    user_id: str
    turns: tuple[int, ...]
    extractor: str | None
    quotes: tuple[str, ...] | None


@dataclass(frozen=True)
class Submission:
    job: IngestJob
    created: bool


class IngestService:
    def __init__(self, repo: IngestRepository, settings: Settings) -> None:
        self.repo = repo
        self.settings = settings
        self._commits: GroupCommit[dict[str, Any], tuple[Record, bool]] = GroupCommit(self._create)

    async def _create(self, rows: list[dict[str, Any]]) -> list[tuple[Record, bool]]:
        made = await self.repo.create_many(rows, utcnow())
        return [made[r["id"]] for r in rows]

    async def submit(
        self, principal: Principal, session: SessionInput, options: IngestOptions
    ) -> Submission:
        """Queue the session; returns at once. Raises LlmNotConfigured (no extraction model),
        InvalidInput (every problem of the session, code VALIDATION) and Conflict (this
        session was already submitted with other content)."""
        if not self.settings.llm_configured:
            raise LlmNotConfigured(
                "session ingestion needs an extraction model: set GRAPH_MEMORY_LLM_MODEL "
                "(and GRAPH_MEMORY_LLM_BASE_URL / GRAPH_MEMORY_LLM_API_KEY); assertFacts and "
                "recordEpisodes work without one"
            )
        scope = check_session(session, options)
        digest = request_hash(session, options)
        row: dict[str, Any] = {
            "id": f"job_{uuid.uuid4().hex}",
            "tenant": principal.tenant,
            "user_id": session.user_id.strip(),
            "session_id": session.session_id.strip(),
            "started_at": session.started_at,
            "ended_at": session.ended_at,
            "scope": scope,
            "agent_role": options.agent_role.strip(),
            "keep_turns": options.keep_turns,
            "turns_json": turns_to_json(session.turns),
            "turn_count": len(session.turns),
            "request_hash": digest,
            # The worker acts as the caller did: same tenant, role (tier cap) and key, and a
            # session token's binding (its scopes and user), which every write and read of
            # the job obeys as the token's own requests do.
            "principal_role": principal.role.value,
            "principal_key": principal.key_id,
            "principal_name": principal.name,
            "principal_scopes": sorted(principal.scopes) if principal.scopes is not None else None,
            "principal_user": principal.user_id,
            "max_attempts": self.settings.ingest_max_attempts,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "model_ms": 0.0,
            "model_calls": 0,
        }
        record, created = await self._commits.submit(row)
        if not created and record.get("request_hash") != digest:
            raise Conflict(
                f"session {row['session_id']} of user {row['user_id']} was already submitted "
                f"with other content (job {record['id']})",
                field="sessionId",
            )
        return Submission(IngestJob.from_record(record), created)

    async def get(self, principal: Principal, job_id: str) -> IngestJob:
        """The job as it stands; raises NotFound (unknown id or another tenant's)."""
        record = await self.repo.get(principal.tenant, job_id)
        if record is None:
            raise NotFound(f"no ingest job {job_id}", field="id")
        return IngestJob.from_record(record)

    async def fact_citations(
        self, principal: Principal, scopes: list[str], fact_ids: list[str]
    ) -> list[Citation]:
        """Per fact and supporting episode: the turns ingestion found it in, and their words
        when the tenant keeps raw turns. Facts not written by ingestion have none."""
        if len(fact_ids) > 100:
            raise ValidationError("at most 100 facts at a time", field="ids")
        out: list[Citation] = []
        rows = await self.repo.fact_turns(principal.tenant, parse_scopes(scopes), fact_ids)
        for r in rows:
            turns = [int(t) for t in r["turns"] or []]
            kept = turns_from_json(r["turns_json"]) if r.get("turns_json") else None
            quotes = (
                tuple(f"{kept[t].role}: {kept[t].content}" for t in turns if t < len(kept))
                if kept is not None
                else None
            )
            out.append(
                Citation(
                    fact_id=str(r["fact_id"]),
                    episode_id=str(r["episode_id"]),
                    session_id=str(r["session_id"]),
                    user_id=str(r["user_id"]),
                    turns=tuple(turns),
                    extractor=r.get("extractor"),
                    quotes=quotes,
                )
            )
        return out

    async def forget_user(
        self, tenant: str, user_id: str, before: datetime | None = None
    ) -> tuple[int, int]:
        """Delete the user's ingest jobs and memos (made before ``before``, the forget: the
        user id talking since is a new contributor); returns (jobs, memos) deleted.

        The hook forgetContributor needs: memos already stop being served once the user's
        episodes are deleted (they are served only while their episode exists), but their
        nodes and the jobs' item texts stay until this runs."""
        return await self.repo.forget_user(tenant, user_id.strip(), before)


def principal_of(record: dict[str, object]) -> Principal:
    scopes = record.get("principal_scopes")
    user = record.get("principal_user")
    return Principal(
        tenant=str(record["tenant"]),
        role=Role(str(record.get("principal_role") or "agent")),
        key_id=str(record.get("principal_key") or "ingest"),
        name=str(record.get("principal_name") or ""),
        scopes=frozenset(str(s) for s in scopes) if isinstance(scopes, list) else None,
        user_id=str(user) if user is not None else None,
    )
