"""Procedural memory: how to do things, versioned by (scope, intent, role), proven by outcomes.

Time semantics: a version is believed from ``createdAt`` until the next version's ``createdAt``
(its ``supersededAt``); ``asOf`` reads the version current then. Status is derived from the
outcome evidence (``EVIDENCED_BY`` edges to episodes), never set by hand:

* candidate -> active after ``PROMOTE_SUCCESSES`` successful episodes;
* -> demoted once failures outnumber successes by ``DEMOTE_MARGIN``, or once its latest
  ``DEMOTE_STREAK`` outcomes all failed (repeated failure: it worked, it does not now).

Admin-written procedures are reviewed knowledge and start active; agent-written ones start
as candidates and must earn their place. Procedures are served only for a matching intent.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import (
    Principal,
    Role,
    ft_token,
    normalise_name,
    parse_scope,
    parse_scopes,
    require_aware,
    utcnow,
)
from graph_memory.embeddings import Embedder
from graph_memory.errors import NotFound, ValidationError
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.episodes import EpisodeRepository
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.procedures import ProcedureRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.facts.gate import no_nul
from graph_memory.services.read_basis import ReadBasis
from graph_memory.services.recall.bookkeeping import RetrievalBookkeeper

__all__ = [
    "DEMOTE_MARGIN",
    "DEMOTE_STREAK",
    "PROMOTE_SUCCESSES",
    "OutcomeResult",
    "ProcedureService",
    "UpsertResult",
    "intent_text",
    "procedure_text",
]

# Three, like the corroboration threshold for facts: one success can be luck, two a
# coincidence, three independent runs are a pattern worth serving to every agent.
PROMOTE_SUCCESSES = 3
# Demote on a clear net failure, not on any failure: a proven procedure that fails now and
# then (a flaky tool) stays, one that fails three times more often than it works goes.
DEMOTE_MARGIN = 3
# Repeated failure: the latest three outcomes all failed, whatever it earned before (a flaky
# tool fails now and then; three in a row is a procedure that no longer works).
DEMOTE_STREAK = 3
MAX_STEPS = 50
MAX_STEP_CHARS = 1_000


def procedure_text(intent: str, role: str, steps: list[str], description: str | None) -> str:
    """What full-text search sees: the intent in words, the description and every step."""
    head = f"{intent.replace('_', ' ')} ({role.replace('_', ' ')})"
    if description:
        head += f": {description}"
    return head + "\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))


def intent_text(intent: str, description: str | None) -> str:
    """The text a procedure's vector is made from (also by a re-embedding)."""
    # The embedding is of the intent (and its description), not the steps: a procedure is
    # retrieved when the *need* matches, however its steps happen to be worded.
    words = intent.replace("_", " ").replace(".", " ")
    return f"{words}. {description}" if description else words


@dataclass
class UpsertResult:
    action: str  # created | new_version | unchanged
    procedure: Record


@dataclass
class OutcomeResult:
    procedure: Record
    status_before: str
    status: str


class ProcedureService:
    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        basis: ReadBasis,
        bookkeeper: RetrievalBookkeeper | None = None,
    ) -> None:
        self.db = db
        self.repo = ProcedureRepository(db)
        self.embedder = embedder
        self.basis = basis
        self.bookkeeper = bookkeeper

    async def upsert(
        self,
        principal: Principal,
        *,
        intent: str,
        role: str,
        steps: list[str],
        scope: str,
        description: str | None = None,
    ) -> UpsertResult:
        """Write the steps for (scope, intent, role): a new version when they changed.

        Same steps and description as the current version: nothing is written ("unchanged").
        Raises ValidationError on bad names, scope or steps.
        """
        intent = normalise_name(intent, "intent")
        role = normalise_name(role, "role")
        scope = parse_scope(scope)
        clean = self.clean_steps(steps)
        desc = " ".join(description.split()) if description else None
        if desc is not None:
            no_nul(desc, "description")
        vector = (
            (await self.embedder.embed([intent_text(intent, desc)]))[0]
            if self.embedder is not None
            else None
        )

        async def work(tx: Tx) -> UpsertResult:
            return await self.upsert_in_tx(
                tx,
                principal,
                intent=intent,
                role=role,
                steps=clean,
                scope=scope,
                description=desc,
                vector=vector,
            )

        result: UpsertResult = await self.db.write_tx(work)
        return result

    @staticmethod
    def clean_steps(steps: list[str]) -> list[str]:
        """Steps as stored; raises ValidationError on too many, empty or over-long ones."""
        clean = [" ".join(s.split()) for s in steps]
        if not 1 <= len(clean) <= MAX_STEPS or any(not s for s in clean):
            raise ValidationError(f"steps must be 1..{MAX_STEPS} non-empty strings", field="steps")
        if any(len(s) > MAX_STEP_CHARS for s in clean):
            raise ValidationError(
                f"a step is longer than {MAX_STEP_CHARS} characters", field="steps"
            )
        for s in clean:
            no_nul(s, "steps")  # the write gate's rule for every memory's text
        return clean

    @staticmethod
    async def upsert_in_tx(
        tx: Tx,
        principal: Principal,
        *,
        intent: str,
        role: str,
        steps: list[str],
        scope: str,
        description: str | None,
        vector: list[float] | None,
    ) -> UpsertResult:
        """upsert inside the caller's transaction, names, scope and steps already checked
        (normalise_name, parse_scope, clean_steps) and the intent embedded."""
        tenant = principal.tenant
        clean, desc = steps, description
        reviewed = principal.role is Role.ADMIN
        # Serialised per tenant: two concurrent upserts cannot both become version 2.
        await ProcedureRepository.lock_tenant(tx, tenant)
        # And the scope's lock, as every writer of a scope's memories takes it: its clock follows
        # the scope's commit order, and a read as of a moment waits on it (read_basis.py).
        await WriteLocks.scopes(tx, tenant, [scope])
        now = tx.clock(utcnow())
        current = await ProcedureRepository.current(tx, tenant, scope, intent, role)
        if (
            current is not None
            and list(current.get("steps") or []) == clean
            and current.get("description") == desc
        ):
            return UpsertResult("unchanged", current)
        version = int(current["version"]) + 1 if current else 1
        row = {
            "id": f"proc_{uuid.uuid4().hex}",
            "scope": scope,
            "ft_scope": ft_token(tenant, scope),
            "intent": intent,
            "role": role,
            "version": version,
            "steps": clean,
            "description": desc,
            "text": procedure_text(intent, role, clean, desc),
            "caption": f"{intent} · {role} · v{version}"[:120],
            "status": "active" if reviewed else "candidate",
            "reviewed": reviewed,
            "created_by": principal.actor,
            "supersedes": current["id"] if current else None,
            "embedding": vector,
        }
        created = await ProcedureRepository.create(tx, tenant, row, now)
        await AuditRepository.record_in_tx(
            tx,
            tenant,
            [
                audit.event(
                    principal,
                    "new_version" if current else "create",
                    "procedure",
                    str(row["id"]),
                    now,
                    before={
                        "id": current["id"],
                        "version": current["version"],
                        "steps": current.get("steps"),
                    }
                    if current
                    else None,
                    after={k: v for k, v in row.items() if k != "embedding"},
                )
            ],
        )
        return UpsertResult("new_version" if current else "created", created)

    async def record_outcome(
        self, principal: Principal, procedure_id: str, success: bool, episode_id: str
    ) -> OutcomeResult:
        """Record that following the procedure in an episode succeeded or failed.

        One episode is one piece of evidence (reporting it again replaces its verdict from then
        on; reads as of an earlier moment keep the earlier one: procedure/_verdicts); counts
        and status are recomputed from all evidence in the same transaction, and a promotion
        or demotion is audited. Raises NotFound for an unknown procedure or episode.
        """

        async def work(tx: Tx) -> OutcomeResult:
            return await self.record_outcome_in_tx(tx, principal, procedure_id, success, episode_id)

        result: OutcomeResult = await self.db.write_tx(work)
        return result

    @staticmethod
    async def record_outcome_in_tx(
        tx: Tx, principal: Principal, procedure_id: str, success: bool, episode_id: str
    ) -> OutcomeResult:
        """record_outcome inside the caller's transaction (which may have just written the
        episode)."""
        tenant = principal.tenant
        # Serialised per tenant: the recount reads every verdict, and a concurrent report
        # that flips an existing verdict locks only its own edge (a lost update otherwise).
        await ProcedureRepository.lock_tenant(tx, tenant)
        found = await ProcedureRepository.get_in_tx(tx, tenant, [procedure_id])
        if procedure_id not in found:
            raise NotFound(f"no procedure {procedure_id}", field="id")
        # Under its scope's lock too: counts and event times follow commit order, and a read
        # as of a moment waits on it (read_basis.py).
        await WriteLocks.scopes(tx, tenant, [str(found[procedure_id]["scope"])])
        now = tx.clock(utcnow())
        await EpisodeRepository.refuse_forgotten(tx, tenant, [episode_id])
        linked = await ProcedureRepository.add_evidence(
            tx, tenant, procedure_id, episode_id, success, now
        )
        if not linked:
            raise NotFound(f"no episode {episode_id}", field="episodeId")
        (rc,) = await ProcedureRepository.recompute(
            tx,
            tenant,
            [procedure_id],
            promote_successes=PROMOTE_SUCCESSES,
            demote_margin=DEMOTE_MARGIN,
            demote_streak=DEMOTE_STREAK,
            now=now,
        )
        events = [
            audit.event(
                principal,
                "outcome",
                "procedure",
                procedure_id,
                now,
                after={
                    "episode_id": episode_id,
                    "success": success,
                    "success_count": rc["success_count"],
                    "failure_count": rc["failure_count"],
                },
            )
        ]
        if rc["status"] != rc["status_before"]:
            action = {"active": "promote", "demoted": "demote"}.get(rc["status"], "status")
            events.append(
                audit.event(
                    principal,
                    action,
                    "procedure",
                    procedure_id,
                    now,
                    before={"status": rc["status_before"]},
                    after={"status": rc["status"]},
                    reason=f"{rc['success_count']} successes, {rc['failure_count']} failures",
                )
            )
        await AuditRepository.record_in_tx(tx, tenant, events)
        after = await ProcedureRepository.get_in_tx(tx, tenant, [procedure_id])
        return OutcomeResult(after[procedure_id], str(rc["status_before"]), str(rc["status"]))

    async def get(self, principal: Principal, ids: list[str]) -> dict[str, Record]:
        return await self.repo.get(principal.tenant, ids)

    async def list(
        self,
        principal: Principal,
        *,
        intent: str,
        scopes: list[str],
        role: str | None = None,
        include_candidates: bool = False,
        as_of: datetime | None = None,
        limit: int = 10,
    ) -> list[Record]:
        """Procedures for exactly this intent (and role, if given), current at asOf (default
        now), best proven first. Demoted procedures are never served."""
        if not 1 <= limit <= 100:
            raise ValidationError("first must be in 1..100", field="first")
        statuses = ["active", "candidate"] if include_candidates else ["active"]
        wanted, at = parse_scopes(scopes), require_aware(as_of, "asOf")
        # An answer as of a given moment is final before it is read (services/read_basis.py).
        await self.basis.settle(principal.tenant, wanted, at)
        rows = await self.repo.list(
            principal.tenant,
            wanted,
            intent=normalise_name(intent, "intent"),
            role=normalise_name(role, "role") if role else None,
            statuses=statuses,
            as_of=at or utcnow(),
            limit=limit,
        )
        if self.bookkeeper is not None and rows:
            self.bookkeeper.record(
                principal.tenant, [("procedure", r["id"]) for r in rows], utcnow()
            )
        return rows
