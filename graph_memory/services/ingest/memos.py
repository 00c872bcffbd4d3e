"""Events and todos: memories of their own kind, extracted from a session and citing it.

An event is something that happened or is scheduled ("flight to Lisbon on 3 May"); a todo is
an open commitment ("send the invoice by Friday") that stays served until someone closes it.
Both pass the write gate's text checks and carry the tier of their source; both cite the
episode (and its turns) they came from. Events are short-term: they expire after the
tenant's short-term TTL. Todos do not expire; they are closed.

Time: ``recordedAt`` is the server clock at write; ``at`` is the event's time or the todo's due
time when the conversation stated one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import TIER_CAP, Principal, ft_token, parse_scopes, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import Conflict, GraphMemoryError, NotFound, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.memos import MemoRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.facts.gate import check_text, tier_for
from graph_memory.services.recall.keywords import score_pool
from graph_memory.services.recall.ranking import build_lucene

__all__ = ["MEMO_KINDS", "MemoDraft", "MemoService", "PreparedMemos", "memo_id"]

MEMO_KINDS = ("event", "todo")
MAX_PAGE = 200


@dataclass(frozen=True)
class MemoDraft:
    kind: str  # event | todo
    text: str
    at: datetime | None
    turns: tuple[int, ...]


def memo_id(job_id: str, kind: str, index: int) -> str:
    """Stable per (job, kind, index): a resumed job writes the same memo, not a second one."""
    return "memo_" + hashlib.sha256(f"{job_id}\x00{kind}\x00{index}".encode()).hexdigest()[:24]


@dataclass
class PreparedMemos:
    """Drafts after the gate: per draft (id, error) in order, and the rows to write."""

    episode_id: str
    drafts: list[MemoDraft]
    verdicts: list[tuple[str | None, GraphMemoryError | None]]
    rows: list[dict[str, Any]]

    @property
    def texts(self) -> list[str]:
        return [r["text"] for r in self.rows]

    def embed(self, vectors: list[list[float]]) -> None:
        for r, v in zip(self.rows, vectors, strict=True):
            r["embedding"] = v

    def outcomes(
        self, written: dict[str, tuple[str, bool]]
    ) -> list[tuple[str | None, bool, GraphMemoryError | None]]:
        """Per draft (id, created, error), given what the write did with each row (the memo
        it landed on, whether it created it; a row the write did not return: its episode is
        gone). A draft the session told again reports the memo its first telling made as
        found, not created a second time."""
        gone = NotFound(f"episode {self.episode_id} is gone", field="episodeId")
        out: list[tuple[str | None, bool, GraphMemoryError | None]] = []
        reported: set[str] = set()
        for rid, err in self.verdicts:
            if rid is None:
                out.append((None, False, err))
            elif rid not in written:
                out.append((None, False, gone))
            else:
                memo, made = written[rid]
                out.append((memo, made and rid not in reported, None))
                reported.add(rid)
        return out


class MemoService:
    def __init__(self, db: Database, embedder: Embedder | None) -> None:
        self.db = db
        self.repo = MemoRepository(db)
        self.embedder = embedder

    @staticmethod
    def prepare(
        principal: Principal,
        policy: TenantPolicy,
        *,
        drafts: list[MemoDraft],
        episode_id: str,
        scope: str,
        user_id: str,
        session_id: str,
        job_id: str,
        extractor: str,
        source: str = "conversation",
    ) -> PreparedMemos:
        """The gate's verdict per draft and the rows of those it let through (embeddings
        still None: the caller embeds ``texts``, alone or with other texts)."""
        out: list[tuple[str | None, GraphMemoryError | None]] = []
        rows: list[dict[str, Any]] = []
        now = utcnow()
        counters = {k: 0 for k in MEMO_KINDS}
        # One memo per thing said: the model listing a todo (or an event) twice in one
        # session, for the same moment, gives one memo, which both items report (case and
        # spacing aside); the same text for another moment is another memo.
        seen: dict[tuple[str, str, datetime | None], str] = {}
        for d in drafts:
            index = counters[d.kind]
            counters[d.kind] += 1
            try:
                if d.kind not in MEMO_KINDS or d.kind not in policy.known_kinds:
                    raise ValidationError(
                        f"kind {d.kind!r} is not kept by this tenant", field="kind"
                    )
                text = " ".join(d.text.split())
                check_text(text, "text", policy)
                tier = tier_for(principal, source, policy)
            except GraphMemoryError as e:
                out.append((None, e))
                continue
            same = seen.get((d.kind, text.casefold(), d.at))
            if same is not None:
                out.append((same, None))
                continue
            ttl = policy.ttl_for("", d.kind) if d.kind == "event" else None
            rid = memo_id(job_id, d.kind, index)
            seen[(d.kind, text.casefold(), d.at)] = rid
            rows.append(
                {
                    "id": rid,
                    "episode_id": episode_id,
                    "scope": scope,
                    "ft_scope": ft_token(principal.tenant, scope),
                    "kind": d.kind,
                    "text": text,
                    "caption": text[:80],
                    "at": d.at,
                    "status": "open" if d.kind == "todo" else None,
                    "user_id": user_id,
                    "session_id": session_id,
                    "source": source,
                    "tier": tier.value,
                    # One session's word: the trust tier's cap, like one inferred fact's.
                    "confidence": min(0.5, TIER_CAP[tier]),
                    "expires_at": now + timedelta(days=ttl) if ttl else None,
                    "extractor": extractor,
                    "job_id": job_id,
                    "turns": list(d.turns),
                    "embedding": None,
                }
            )
            out.append((rid, None))
        return PreparedMemos(episode_id, drafts, out, rows)

    @staticmethod
    async def write_in_tx(
        tx: Tx, principal: Principal, prepared: PreparedMemos
    ) -> tuple[dict[str, tuple[str, bool]], list[dict[str, Any]]]:
        """Write prepared rows inside the caller's transaction: per row id the memo it landed
        on and whether it was created (False: a resumed job found it, or the same thing was
        told in an earlier session), and the audit events of those created, for the caller
        to record in the same transaction."""
        rows = prepared.rows
        now = tx.clock(utcnow())  # under the session's scope locks (ingest/session_tx.py)
        landed = await MemoRepository.create_in_tx(tx, principal.tenant, rows, now)
        written = {str(w["row_id"]): (str(w["id"]), bool(w["created"])) for w in landed}
        created = {rid: made for rid, (mid, made) in written.items() if mid == rid}
        events = [
            audit.event(
                principal,
                "record",
                r["kind"],
                r["id"],
                now,
                after={k: v for k, v in r.items() if k != "embedding"},
            )
            for r in rows
            if created.get(r["id"])
        ]
        return written, events

    async def list(
        self,
        principal: Principal,
        scopes: list[str],
        *,
        kinds: list[str] | None = None,
        statuses: list[str] | None = None,
        query: str | None = None,
        limit: int = 20,
    ) -> list[tuple[Record, list[Record], float | None]]:
        """Memos in scope, newest first, or best matching ``query`` first (hybrid search).

        Todos default to open ones; expired events are never served."""
        if not 1 <= limit <= MAX_PAGE:
            raise ValidationError(f"first must be in 1..{MAX_PAGE}", field="first")
        kinds = list(kinds or MEMO_KINDS)
        if any(k not in MEMO_KINDS for k in kinds):
            raise ValidationError(f"kinds must be some of {list(MEMO_KINDS)}", field="kinds")
        statuses = list(statuses or ["open"])
        if any(s not in ("open", "done") for s in statuses):
            raise ValidationError("statuses must be some of ['open', 'done']", field="statuses")
        parsed = parse_scopes(scopes)
        now = utcnow()
        if not query or not query.strip():
            rows = await self.repo.page(
                principal.tenant, parsed, kinds=kinds, statuses=statuses, now=now, limit=limit
            )
            return [(r["memo"], list(r["provenance"]), None) for r in rows]
        if self.embedder is None:
            raise ValidationError("search needs an embedder", field="query")
        (vector,) = await self.embedder.embed([query])
        rows = await self.repo.search(
            principal.tenant,
            parsed,
            vector=vector,
            lucene=build_lucene(principal.tenant, parsed, query),
            k=max(limit * 4, 20),
            kinds=kinds,
            statuses=statuses,
            now=now,
        )
        # Keyword scores on the found memos' own statistics, as recall's (recall/keywords.py):
        # Lucene's come from the index every tenant shares, so another tenant's writes would
        # reorder these answers. The index only finds candidates.
        pool = [{**r, "text": r["memo"].get("text")} for r in rows]
        (found,), _ = await score_pool([pool], query)
        top = max((float(r["keyword"] or 0.0) for r in found), default=0.0) or 1.0
        scored = [
            (r, 0.7 * float(r["similarity"] or 0.0) + 0.3 * float(r["keyword"] or 0.0) / top)
            for r in found
        ]
        scored.sort(key=lambda x: -x[1])
        return [(r["memo"], list(r["provenance"]), s) for r, s in scored[:limit]]

    async def close_todo(
        self, principal: Principal, memo_id: str, reason: str | None
    ) -> tuple[Record, Sequence[Record]]:
        """Mark a todo done (now, by the caller), audited. Raises NotFound (unknown id, not a
        todo, another tenant's) and Conflict when it is already done. Returns the memo as
        closed and its provenance."""
        found = await self.repo.get(principal.tenant, [memo_id])
        if not found or found[0]["memo"]["kind"] != "todo":
            raise NotFound(f"no todo {memo_id}", field="id")
        if found[0]["memo"].get("status") == "done":
            raise Conflict(f"todo {memo_id} is already done", field="id")
        tenant = principal.tenant

        async def work(tx: Tx) -> Record | None:
            # Under the todo's scope lock, as every writer of a scope's memories: closedAt
            # follows the scope's commit order, and a read as of a moment waits for it
            # (services/read_basis.py). The close and its audit event commit together.
            await WriteLocks.scopes(tx, tenant, [str(found[0]["memo"]["scope"])])
            now = tx.clock(utcnow())
            row = await MemoRepository.close_in_tx(
                tx, tenant, memo_id, now, principal.actor, principal.user_id, reason
            )
            if row is not None and row["before"] == "done":
                # Closed by a concurrent call since the check above: one close, one event.
                raise Conflict(f"todo {memo_id} is already done", field="id")
            if row is not None:
                event = audit.event(
                    principal,
                    "close",
                    "todo",
                    memo_id,
                    now,
                    before={"status": row["before"]},
                    after={"status": "done"},
                    reason=reason,
                )
                await AuditRepository.record_in_tx(tx, tenant, [event])
            return row

        row = await self.db.write_tx(work)
        if row is None:
            raise NotFound(f"no todo {memo_id}", field="id")
        memo: Record = row["memo"]
        return memo, [p for p in found[0]["provenance"] if p]
