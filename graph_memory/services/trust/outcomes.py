"""reportOutcome: an agent says what memories it retrieved led to (helpful or harmful).

Recorded per (episode, memory) and counted on the memory; kept apart from confidence, which
stays what the evidence says. Recall ranks by it through salience (services/recall/salience.py): a
memory reported harmful by more contributors than helpful is demoted. Two rules keep one
credential from burying memory for everyone:

* the counts are per contributor (the reporting episode's user, their latest verdict), so a
  user recording many episodes to vote with still counts once;
* a verdict on a memory whose trust tier is above the reporter's role cap (the tier it may
  write at, TenantPolicy.role_caps: an agent key or session token writes at most user tier)
  is recorded and audited but not counted, so it cannot demote system or admin memory, as it
  could not supersede it.

Unknown or blank memory ids, and for a session token ids of memories outside its scopes
(FORBIDDEN, as a read of them is), are reported per item and the others recorded; an unknown
episode refuses the whole report.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from graph_memory.db import Database, Tx
from graph_memory.domain import TIER_RANK, Principal, Role, Tier, utcnow
from graph_memory.errors import Forbidden, GraphMemoryError, NotFound, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.episodes import EpisodeRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.outcomes import OutcomeRepository
from graph_memory.services.access.session_scope import ScopeGuard
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
    counted: bool  # False: the memory's tier is above the reporter's cap, the verdict only kept
    kind: str | None  # fact | episode; None when no such memory
    helpful: int
    harmful: int
    error: GraphMemoryError | None  # why it was not recorded (NOT_FOUND, VALIDATION)


class OutcomeService:
    def __init__(
        self,
        db: Database,
        policy_for: Callable[[str], Awaitable[TenantPolicy]],
        guard: ScopeGuard,
    ) -> None:
        self.db = db
        self._policy_for = policy_for
        self.guard = guard

    async def report(
        self, principal: Principal, memory_ids: Sequence[str], outcome: Outcome, episode_id: str
    ) -> list[OutcomeReport]:
        """Agents and admins: one report per id given, in order (a blank or unknown id, or one
        outside a session token's scopes, is reported, its siblings recorded). Raises
        Forbidden (role), ValidationError (no ids, more than MAX_MEMORIES, blank episodeId),
        NotFound (episodeId)."""
        if principal.role not in (Role.AGENT, Role.ADMIN):
            raise Forbidden(f"role {principal.role.value} may not report outcomes")
        # The bound counts what was sent (a repeated id is still work to answer); a blank id
        # is reported in its place and its siblings are recorded.
        if not memory_ids or len(memory_ids) > MAX_MEMORIES:
            raise ValidationError(f"memoryIds: 1..{MAX_MEMORIES} ids", field="memoryIds")
        given = [i.strip() for i in memory_ids]
        # A memory's scope never changes, so what is outside now stays outside in the write.
        outside = await self.guard.outside(principal, given)
        ids = [i for i in dict.fromkeys(given) if i and i not in outside]
        if not episode_id.strip():
            raise ValidationError("episodeId must not be blank", field="episodeId")
        tenant = principal.tenant
        cap = (await self._policy_for(tenant)).role_caps[principal.role]
        outranking = [t.value for t in Tier if TIER_RANK[t] > TIER_RANK[cap]]

        async def work(tx: Tx) -> list[OutcomeReport]:
            # Under the tenant lock a forget's mark also takes: a forget either committed
            # before this read (and is refused here) or waits for this report (and its purge
            # drops it).
            await WriteLocks.tenant(tx, tenant)
            # And the locks of the reported memories' scopes, as every writer of a scope's
            # memories: the verdicts' times follow its commit order, and a recall as of a
            # moment (salience from the verdicts told by then) waits on them (read_basis.py).
            await WriteLocks.memories(tx, tenant, ids)
            await EpisodeRepository.refuse_forgotten(tx, tenant, [episode_id])
            now = tx.clock(utcnow())
            # No row at all names an unknown episode (as with [""]: no id to report on).
            rows = await OutcomeRepository.report(
                tx, tenant, ids or [""], outcome.value, episode_id, now, principal.actor, outranking
            )
            if not rows:
                raise NotFound(f"no episode {episode_id}", field="episodeId")
            by_id = {
                r["id"]: OutcomeReport(
                    memory_id=r["id"],
                    recorded=bool(r["recorded"]),
                    counted=bool(r["counted"]),
                    kind=r["kind"],
                    helpful=int(r["helpful"] or 0),
                    harmful=int(r["harmful"] or 0),
                    error=None
                    if r["recorded"]
                    else NotFound(f"no memory {r['id']}", field="memoryIds"),
                )
                for r in rows
                if r["id"]
            }
            out = [by_id.get(i) or _refused(i, outside) for i in given]
            events = [
                audit.event(
                    principal,
                    "report_outcome",
                    o.kind or "memory",
                    o.memory_id,
                    now,
                    after={
                        "outcome": outcome.value,
                        "episode_id": episode_id,
                        "counted": o.counted,
                    },
                    reason=f"{outcome.value} in episode {episode_id}",
                )
                for o in by_id.values()
                if o.recorded
            ]
            await AuditRepository.record_in_tx(tx, tenant, events)
            return out

        result: list[OutcomeReport] = await self.db.write_tx(work)
        return result


def _refused(memory_id: str, outside: set[str]) -> OutcomeReport:
    """The report of an id not sent to the write: outside the token's scopes, or blank."""
    error: GraphMemoryError = (
        Forbidden(
            f"this session token may not touch memory {memory_id}: it is outside its scopes",
            field="memoryIds",
        )
        if memory_id in outside
        else ValidationError("a memory id must not be blank", field="memoryIds")
    )
    return OutcomeReport(
        memory_id=memory_id,
        recorded=False,
        counted=False,
        kind=None,
        helpful=0,
        harmful=0,
        error=error,
    )
