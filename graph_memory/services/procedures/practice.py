"""Procedural memory from practice: the tool calls an agent made in a session, as evidence.

A session whose tool calls served one intent (named by the extractor) is evidence for the
procedure (intent, agent role) whose steps are those calls in order. Through the existing
ProcedureService: a success upserts the procedure (the same steps find the current version,
different ones make a new candidate version) and records the session's episode as a success;
three successful sessions promote it, repeated failure demotes it. A failure counts only
against a procedure with exactly those steps: a failed improvisation is not a procedure. A
success never displaces an ACTIVE procedure with other steps (a proven way is not replaced by
one lucky alternative); it is reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from graph_memory.db import Tx
from graph_memory.domain import Principal, normalise_name, utcnow
from graph_memory.errors import Forbidden, GraphMemoryError
from graph_memory.ingestion import Turn
from graph_memory.repositories.procedures import ProcedureRepository
from graph_memory.services.access.session_scope import ScopeGuard
from graph_memory.services.procedures.service import ProcedureService, intent_text

__all__ = [
    "PracticeOutcome",
    "PracticePlan",
    "plan_practice",
    "practice_in_tx",
    "tool_steps",
    "tool_turns",
]

# Procedures learned from practice are shared by the tenant's agents, across users.
SCOPE = "tenant"


@dataclass(frozen=True)
class PracticeOutcome:
    ok: bool
    action: str  # success_recorded | failure_recorded | skipped
    procedure_id: str | None
    status: str | None
    reason: str | None = None
    error: GraphMemoryError | None = None


def tool_turns(turns: tuple[Turn, ...]) -> tuple[int, ...]:
    """The indices of the turns whose tool calls make up ``tool_steps``."""
    return tuple(i for i, t in enumerate(turns) if any(c.name.strip() for c in t.tool_calls))


def tool_steps(turns: tuple[Turn, ...]) -> list[str]:
    """The tool-call sequence: names only, since arguments differ in every session."""
    return [" ".join(c.name.split()) for t in turns for c in t.tool_calls if c.name.strip()]


def practice_succeeded(turns: tuple[Turn, ...], outcome: str) -> bool:
    """Whether following the steps succeeded: the session's outcome says so and no tool call
    whose result is known failed (a model that calls a session of failed calls a success
    must not make them a proven procedure)."""
    return outcome == "success" and not any(
        c.ok is False for t in turns for c in t.tool_calls if c.name.strip()
    )


@dataclass(frozen=True)
class PracticePlan:
    """What a session's tool calls will write, decided before the session's transaction:
    ``done`` when nothing is to be written (a skip, or a bad name), else the procedure a
    failure counts against (a success upserts its steps first)."""

    intent: str
    role: str
    steps: list[str]
    success: bool
    procedure_id: str | None = None
    done: PracticeOutcome | None = None
    # The turns whose tool calls the steps are: what the report cites, as for every item.
    turns: tuple[int, ...] = ()

    @property
    def text(self) -> str | None:
        """The text to embed for the upsert (None: no upsert, nothing to embed)."""
        return intent_text(self.intent, None) if self.done is None and self.success else None


async def plan_practice(
    procedures: ProcedureService,
    principal: Principal,
    *,
    intent: str,
    role: str,
    steps: list[str],
    success: bool,
) -> PracticePlan:
    try:
        # Practice teaches (or demotes) the tenant's procedures, what every agent of every
        # user is served: one user's sessions do not decide that, so a session token's do not,
        # even one that may write the tenant scope (its session's facts, events and todos
        # still land in its own scope). A key's sessions, many users', do.
        if principal.user_id is not None:
            raise Forbidden(
                "a session token's sessions do not teach the tenant's procedures",
                field="procedure",
            )
        ScopeGuard.within(principal, [SCOPE], "procedure")
        intent_n = normalise_name(intent, "intent")
        role_n = normalise_name(role, "role")
        clean = procedures.clean_steps(steps)
    except GraphMemoryError as e:
        return PracticePlan(intent, role, steps, success, None, _refused(e))
    current = await procedures.repo.list(
        principal.tenant,
        [SCOPE],
        intent=intent_n,
        role=role_n,
        statuses=["active", "candidate"],
        as_of=utcnow(),
        limit=1,
    )
    same = bool(current) and list(current[0].get("steps") or []) == clean
    plan = PracticePlan(intent_n, role_n, clean, success)
    if not success:
        if not same:
            skip = PracticeOutcome(True, "skipped", None, None, "failed steps match no procedure")
            return replace(plan, done=skip)
        return replace(plan, procedure_id=str(current[0]["id"]))
    if current and not same and current[0].get("status") == "active":
        skip = PracticeOutcome(
            True,
            "skipped",
            str(current[0]["id"]),
            "active",
            "an active procedure with other steps serves this intent",
        )
        return replace(plan, done=skip)
    return plan


async def practice_in_tx(
    tx: Tx,
    principal: Principal,
    plan: PracticePlan,
    vector: list[float] | None,
    episode_id: str,
) -> PracticeOutcome:
    """Write the plan inside the session's transaction, which wrote the episode."""
    if plan.done is not None:
        return plan.done
    try:
        proc_id = plan.procedure_id
        if plan.success:
            up = await ProcedureService.upsert_in_tx(
                tx,
                principal,
                intent=plan.intent,
                role=plan.role,
                steps=plan.steps,
                scope=SCOPE,
                description=None,
                vector=vector,
            )
            proc_id = str(up.procedure["id"])
            if up.action != "unchanged":  # a version these tool calls wrote
                await ProcedureRepository.mark_learned(tx, principal.tenant, proc_id)
        assert proc_id is not None  # a failure's plan names its procedure
        out = await ProcedureService.record_outcome_in_tx(
            tx, principal, proc_id, plan.success, episode_id
        )
    except GraphMemoryError as e:
        return _refused(e)
    return PracticeOutcome(
        True,
        "success_recorded" if plan.success else "failure_recorded",
        proc_id,
        out.status,
    )


def _refused(e: GraphMemoryError) -> PracticeOutcome:
    return PracticeOutcome(False, "skipped", None, None, e.message, e)
