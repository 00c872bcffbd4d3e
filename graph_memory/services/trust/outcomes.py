"""reportOutcome: an agent says what memories it retrieved led to (helpful or harmful).

Recorded per (episode, memory) and counted on the memory; kept apart from confidence, which
stays what the evidence says. Recall ranks by it through salience (services/recall/salience.py): a
memory reported harmful more often than helpful is demoted. Unknown memories are reported
per item and the others recorded; an unknown episode refuses the whole report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from graph_memory.db import Database, Tx
from graph_memory.domain import Principal, Role, utcnow
from graph_memory.errors import Forbidden, NotFound, ValidationError
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.outcomes import OutcomeRepository
from graph_memory.services.audit import events as audit

__all__ = ["MAX_MEMORIES", "Outcome", "OutcomeReport", "OutcomeService"]

MAX_MEMORIES = 100


class Outcome(Enum):
    HELPFUL = "helpful"
    HARMFUL = "harmful"


@dataclass(frozen=True)
class OutcomeReport:
    memory_id: str
    recorded: bool
    kind: str | None  # fact | episode; None when no such memory
    helpful: int
    harmful: int
    error: str | None


class OutcomeService:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def report(
        self, principal: Principal, memory_ids: Sequence[str], outcome: Outcome, episode_id: str
    ) -> list[OutcomeReport]:
        """Agents and admins. Raises Forbidden, ValidationError (no ids, too many, blank),
        NotFound (episodeId)."""
        if principal.role not in (Role.AGENT, Role.ADMIN):
            raise Forbidden(f"role {principal.role.value} may not report outcomes")
        ids = list(dict.fromkeys(i.strip() for i in memory_ids))
        if not ids or len(ids) > MAX_MEMORIES or any(not i for i in ids):
            raise ValidationError(f"memoryIds: 1..{MAX_MEMORIES} non-blank ids", field="memoryIds")
        if not episode_id.strip():
            raise ValidationError("episodeId must not be blank", field="episodeId")
        tenant = principal.tenant

        async def work(tx: Tx) -> list[OutcomeReport]:
            now = utcnow()
            rows = await OutcomeRepository.report(
                tx, tenant, ids, outcome.value, episode_id, now, principal.actor
            )
            if not rows:
                raise NotFound(f"no episode {episode_id}", field="episodeId")
            out = [
                OutcomeReport(
                    memory_id=r["id"],
                    recorded=bool(r["recorded"]),
                    kind=r["kind"],
                    helpful=int(r["helpful"] or 0),
                    harmful=int(r["harmful"] or 0),
                    error=None if r["recorded"] else f"no memory {r['id']}",
                )
                for r in rows
            ]
            events = [
                audit.event(
                    principal,
                    "report_outcome",
                    o.kind or "memory",
                    o.memory_id,
                    now,
                    after={"outcome": outcome.value, "episode_id": episode_id},
                    reason=f"{outcome.value} in episode {episode_id}",
                )
                for o in out
                if o.recorded
            ]
            await AuditRepository.record_in_tx(tx, tenant, events)
            return out

        result: list[OutcomeReport] = await self.db.write_tx(work)
        return result
