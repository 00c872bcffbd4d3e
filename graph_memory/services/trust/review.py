"""Review: what waits for a human decision, and the decision.

Candidates wait here until corroborated (3 sessions) or a human decides; active facts flagged
for verification (a contradiction consolidation found, a premise in doubt) wait until a human
decides or fresh evidence verifies them. Only analysts and admins decide. Approval makes a
candidate active at once and marks it as human-approved, and clears a flag as verified (a
claim an entity merge left answering nothing beside a served version of another value is kept
as the answer: that version is turned down by the same decision, review/rival);
rejection ends either (status 'rejected', never served, kept in history) and flags facts
derived from it. Both are audited with who, when and the state before/after.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.domain import Principal, Role, parse_scopes, utcnow
from graph_memory.errors import Conflict, Forbidden, NotFound, TierConflict, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.timeline import TimelineRepository
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.facts.release import release_held
from graph_memory.services.facts.rows import premise_superseded
from graph_memory.services.facts.tier_guard import refuse_override
from graph_memory.versions import FactVersion

__all__ = ["ReviewItem", "ReviewService"]

MAX_QUEUE = 500
_REVIEWERS = (Role.ANALYST, Role.ADMIN)


@dataclass(frozen=True)
class ReviewItem:
    fact: FactVersion
    sessions: int
    needed_sessions: int
    contributors: list[str]
    evidence: list[Record]

    @property
    def reason(self) -> str | None:
        """Why it awaits a decision beyond corroboration: its flag's reason (a
        contradiction, a premise in doubt); None for a candidate that only awaits
        corroboration."""
        return self.fact.verification_reason if self.fact.needs_verification else None


def require_reviewer(principal: Principal) -> None:
    if principal.role not in _REVIEWERS:
        raise Forbidden(f"role {principal.role.value} may not review facts (analyst or admin)")


class ReviewService:
    def __init__(
        self, repo: TrustRepository, policy_for: Callable[[str], Awaitable[TenantPolicy]]
    ) -> None:
        self.repo = repo
        self._policy_for = policy_for

    async def queue(self, principal: Principal, scopes: list[str], first: int) -> list[ReviewItem]:
        """Flagged active facts in ``scopes`` (oldest flag first), then current candidates,
        best supported first, with their evidence. Anything past its TTL is left out (not
        worth a reviewer's time)."""
        require_reviewer(principal)
        if not 1 <= first <= MAX_QUEUE:
            raise ValidationError(f"first must be in 1..{MAX_QUEUE}", field="first")
        policy = await self._policy_for(principal.tenant)
        rows = await self.repo.review_queue(principal.tenant, parse_scopes(scopes), utcnow(), first)
        return [
            ReviewItem(
                fact=FactVersion.from_row(r["fact"]),
                sessions=int(r["sessions"]),
                needed_sessions=policy.promote_sessions,
                contributors=list(r["contributors"]),
                evidence=list(r["evidence"]),
            )
            for r in rows
        ]

    async def approve(self, principal: Principal, fact_id: str) -> FactVersion:
        """Candidate -> active, flagged -> verified (audited 'approve'). Raises Forbidden,
        NotFound, Conflict (not awaiting review)."""
        return await self._decide(principal, fact_id, "approve", None)

    async def reject(self, principal: Principal, fact_id: str, reason: str | None) -> FactVersion:
        """Candidate or flagged active fact -> rejected (audited 'reject'); facts depending on
        it are flagged. Raises Forbidden, NotFound, Conflict (not awaiting review)."""
        return await self._decide(principal, fact_id, "reject", reason)

    async def _decide(
        self, principal: Principal, fact_id: str, action: str, reason: str | None
    ) -> FactVersion:
        require_reviewer(principal)
        tenant = principal.tenant
        reason = reason.strip() if reason and reason.strip() else None
        policy = await self._policy_for(tenant)

        async def work(tx: Tx) -> Record | TierConflict:
            # Serialised with writers: a corroborating write cannot promote it mid-decision.
            await WriteLocks.facts(tx, tenant, [fact_id])
            # Read under the lock, never before a moment already in the fact's slot: times
            # follow commit order there whatever the clocks of other service processes.
            now = await TimelineRepository.clock(tx, tenant, [fact_id], utcnow())
            found = await FactRepository.get_in_tx(tx, tenant, [fact_id], forgotten=False)
            if fact_id not in found:
                raise NotFound(f"no fact {fact_id}")
            before = found[fact_id]
            # The served version a decision ends: a flagged fact rejected, or the one an
            # entity merge left answering the slot of a flagged claim the reviewer keeps.
            ending: Record | None = None
            if action == "reject" and before["status"] == "active":
                ending = before
            elif action == "approve" and before["status"] == "active":
                ending = await TrustRepository.rival(tx, tenant, fact_id)
            if ending is not None:
                # Ending a fact served as truth is an override, as a retraction is: a role
                # may not end a fact of a tier above its own (a candidate is always inferred).
                refused = await refuse_override(tx, principal, policy, ending, now, action)
                if refused is not None:
                    return refused  # its audit event commits with the transaction
            # What a served fact holds back from promotion, asked before the decision ends it.
            ended = str(ending["id"]) if ending is not None else None
            held = await FactRepository.held_back(tx, tenant, ended, now) if ended else {}
            if action == "approve":
                kept = f"turned down in review: fact {fact_id} was kept in its place"
                after = await TrustRepository.approve(
                    tx, tenant, fact_id, now, principal.actor, rival=ended, reason=kept
                )
            else:
                after = await TrustRepository.reject(
                    tx, tenant, fact_id, now, principal.actor, reason
                )
            if after is None:
                raise Conflict(
                    f"fact {fact_id} is {before['status']}"
                    f"{'' if before.get('needs_verification') else ' and not flagged'}: not "
                    "awaiting review (a current candidate, or an active fact flagged for "
                    "verification)"
                )
            was: dict[str, Any] = {"status": before["status"]}
            now_is: dict[str, Any] = {"status": after["status"]}
            closed = after.pop("closed", None)
            if closed is not None:
                now_is["supersedes"] = closed
            turned_down = after.pop("turned_down", None)
            if turned_down is not None:
                now_is["turned_down"] = turned_down
            if before.get("needs_verification"):  # what the decision settled, kept in the log
                was.update(
                    needs_verification=True, verification_reason=before.get("verification_reason")
                )
                now_is["needs_verification"] = bool(after.get("needs_verification"))
            events: list[dict[str, Any]] = [
                audit.event(
                    principal,
                    action,
                    "fact",
                    fact_id,
                    now,
                    before=was,
                    after=now_is,
                    reason=reason,
                    # A served fact rejected stops counting, as a retracted one does.
                    confidence_delta=-(before.get("confidence") or 0.0)
                    if action == "reject" and before["status"] == "active"
                    else 0.0,
                )
            ]
            if closed is not None:  # an approved candidate ended what it supersedes
                flagged = await FactRepository.flag_dependents(
                    tx, tenant, [premise_superseded(closed, fact_id, now)], now
                )
                events += audit.flagged(principal, flagged, now, "superseded")
            if turned_down is not None and ending is not None:  # kept over, in the same decision
                events.append(
                    audit.event(
                        principal,
                        "reject",
                        "fact",
                        turned_down,
                        now,
                        before={"status": ending["status"]},
                        after={"status": "rejected"},
                        reason=kept,
                        confidence_delta=-(ending.get("confidence") or 0.0),
                    )
                )
            rejected = fact_id if action == "reject" else turned_down
            if rejected is not None:
                premise = f"premise {rejected} rejected in review at {now.isoformat()}"
                flagged = await FactRepository.flag_dependents(
                    tx, tenant, [{"id": rejected, "reason": premise}], now
                )
                events += audit.flagged(principal, flagged, now, "rejected")
            # A served fact ended: what it held back from promotion may be promoted now.
            released = await release_held(tx, principal, policy, ended or fact_id, held, now)
            events += released.events
            changed = [fact_id, *released.changed]
            await AuditRepository.record_in_tx(tx, tenant, events)
            await TimelineRepository.settle_facts(tx, tenant, changed, now)
            return after

        result: Record | TierConflict = await self.repo.db.write_tx(work)
        if isinstance(result, TierConflict):
            raise result
        return FactVersion.from_row(result)
