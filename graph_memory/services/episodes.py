"""Episodic memory: record session summaries (never raw transcripts) and list them."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import (
    EpisodeInput,
    Principal,
    ft_token,
    parse_scopes,
    require_aware,
    speaker_key,
    utcnow,
)
from graph_memory.embeddings import Embedder
from graph_memory.errors import Conflict, GraphMemoryError, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.episodes import EpisodeRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.services.audit import events as audit
from graph_memory.services.facts.gate import check_episode

# Like `facts`: a page is bounded, and an out-of-range `first` is the caller's mistake.
MAX_PAGE = 500

__all__ = ["ContributorChanged", "EpisodeResult", "EpisodeService"]

EpisodeResult = tuple[str | None, GraphMemoryError | None]


class ContributorChanged(Conflict):
    """An episode whose id was derived from its user's contributor was not written: the user
    was forgotten in between (the id belongs to the forgotten contributor)."""


class EpisodeService:
    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        policy_for: Callable[[str], Awaitable[TenantPolicy]],
    ) -> None:
        self.repo = EpisodeRepository(db)
        self.audit = AuditRepository(db)
        self.embedder = embedder
        self._policy_for = policy_for

    async def record(
        self,
        principal: Principal,
        items: list[EpisodeInput],
        *,
        ids: list[str] | None = None,
        contributor: str | None = None,
    ) -> list[EpisodeResult]:
        """Record episodes; each gets (id, None) or (None, error). recordedAt is now (UTC).

        ``ids``: one per item, for a caller that derives them (``remember`` under an
        idempotency key); otherwise each episode gets a fresh one. ``contributor``: the
        contributor key the ids were derived from (``contributor``); ContributorChanged if
        the user was forgotten since, and nothing is written."""
        policy = await self._policy_for(principal.tenant)
        out, rows = self.prepare(principal, policy, items, ids=ids)
        for row in rows:
            row["contributor"] = contributor
        if rows:
            if self.embedder is not None:
                vectors = await self.embedder.embed([r["text"] for r in rows])
                for r, v in zip(rows, vectors, strict=True):
                    r["embedding"] = v

            async def work(tx: Tx) -> None:
                events = await self.record_in_tx(tx, principal, rows)
                # The episodes and their audit events land together or not at all.
                await AuditRepository.record_in_tx(tx, principal.tenant, events)

            await self.repo.db.write_tx(work)
        return out

    async def stored_form(
        self, principal: Principal, item: EpisodeInput, episode_id: str
    ) -> dict[str, Any] | GraphMemoryError:
        """The row ``record`` would store for ``item`` under ``episode_id`` (or the gate's
        refusal): what a replay under an idempotency key is compared with."""
        policy = await self._policy_for(principal.tenant)
        [(_, error)], rows = self.prepare(principal, policy, [item], ids=[episode_id])
        return error if error is not None else rows[0]

    @staticmethod
    def prepare(
        principal: Principal,
        policy: TenantPolicy,
        items: list[EpisodeInput],
        *,
        ids: list[str] | None = None,
    ) -> tuple[list[EpisodeResult], list[dict[str, Any]]]:
        """The write gate's verdict per item, and the rows of those it let through (their
        ``embedding`` still None: the caller embeds ``text``, alone or with other texts).
        ``ids``: one per item when the caller derives them (see ``record``)."""
        out: list[EpisodeResult] = []
        rows: list[dict[str, Any]] = []
        for n, item in enumerate(items):
            try:
                scope = check_episode(item, principal, policy)
            except GraphMemoryError as e:
                out.append((None, e))
                continue
            ep_id = ids[n] if ids is not None else f"ep_{uuid.uuid4().hex}"
            # An episode reported without times happened now (and took no time); one with only
            # an end took no time either, so it cannot end before it starts.
            begun = item.started_at or item.ended_at
            started = begun.astimezone(UTC) if begun else utcnow()
            text = item.summary.strip()
            if item.topics:
                text += "\nTopics: " + ", ".join(item.topics)
            rows.append(
                {
                    "id": ep_id,
                    "scope": scope,
                    "ft_scope": ft_token(principal.tenant, scope),
                    # Ids as they are looked up later (forgetContributor strips too).
                    "user_id": item.user_id.strip(),
                    "session_id": item.session_id.strip(),
                    "started_at": started,
                    "ended_at": item.ended_at.astimezone(UTC) if item.ended_at else started,
                    "summary": item.summary.strip(),
                    "text": text,
                    "caption": item.summary.strip()[:80],
                    "outcome": item.outcome.value,
                    "topics": list(item.topics),
                    "key_entities": list(item.key_entities),
                    # "Leo: I passed my exam": the label is who spoke, not what was said;
                    # recall knows it as a name (recall/entities), like an entity's.
                    "speaker": speaker_key(item.summary),
                    "source": item.source,
                    "confidence": item.confidence,
                    "embedding": None,
                    # Its place in the batch: turns of one session sent together with the
                    # same start time keep the order they were sent in (episode.link_sessions).
                    "seq": len(rows),
                }
            )
            out.append((ep_id, None))
        return out, rows

    @staticmethod
    async def record_in_tx(
        tx: Tx, principal: Principal, rows: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """Write prepared rows inside the caller's transaction; returns their audit events,
        for the caller to record in the same transaction."""
        # Serialised with forgetContributor (and fact writes): an episode filed while
        # its user is being forgotten waits, then lands attributed to a live user
        # node instead of linking to one the forget just deleted.
        await WriteLocks.scopes(tx, principal.tenant, {r["scope"] for r in rows})
        # Under the lock, after the scope's last stamp: recordedAt follows commit order, and the
        # lock remembers it at commit (a read as of a moment waits on it: read_basis.py).
        now = tx.clock(utcnow())
        events = [
            audit.event(
                principal,
                "record",
                "episode",
                r["id"],
                now,
                after={k: v for k, v in r.items() if k != "embedding"},
            )
            for r in rows
        ]
        written = await EpisodeRepository.record_in_tx(tx, principal.tenant, rows, now)
        if len(written) != len(rows):
            raise ContributorChanged(
                "the user was forgotten while the episode was being recorded: nothing was "
                "written; retry"
            )
        # Consecutive episodes of a session are NEXT to each other, in the same
        # transaction: recall follows the chain from a question to its answer.
        sessions = {(r["scope"], r["session_id"]) for r in rows}
        await EpisodeRepository.link_sessions_in_tx(
            tx,
            principal.tenant,
            [{"scope": sc, "session_id": sid} for sc, sid in sorted(sessions)],
        )
        return events

    async def contributor(self, principal: Principal, user_id: str) -> str:
        """The key of the contributor ``user_id`` names now, made if there is none yet (a
        forget lets go of the id, so the next one is another contributor)."""
        return await self.repo.contributor(principal.tenant, user_id.strip(), utcnow())

    async def get(self, principal: Principal, ids: list[str]) -> dict[str, Record]:
        return await self.repo.get(principal.tenant, ids)

    async def list(
        self,
        principal: Principal,
        scopes: list[str],
        *,
        user_id: str | None = None,
        session_id: str | None = None,
        start: datetime | None = None,
        end: datetime | None = None,
        after: tuple[datetime, str] | None = None,
        limit: int = 20,
    ) -> list[Record]:
        if not 1 <= limit <= MAX_PAGE:
            raise ValidationError(f"first must be in 1..{MAX_PAGE}", field="first")
        return await self.repo.list(
            principal.tenant,
            parse_scopes(scopes),
            # Naive bounds would compare as LOCAL DATETIME and silently match nothing.
            # Stored stripped (record), so looked up stripped.
            user_id=user_id.strip() if user_id is not None else None,
            session_id=session_id.strip() if session_id is not None else None,
            start=require_aware(start, "startedFrom"),
            end=require_aware(end, "startedTo"),
            after=after,
            limit=limit,
        )
