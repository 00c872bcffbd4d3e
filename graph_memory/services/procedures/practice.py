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

from dataclasses import dataclass

from graph_memory.domain import Principal, utcnow
from graph_memory.errors import GraphMemoryError
from graph_memory.ingestion import Turn
from graph_memory.services.procedures.service import ProcedureService, normalise_name

__all__ = ["PracticeOutcome", "learn_from_session", "tool_steps"]

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


def tool_steps(turns: tuple[Turn, ...]) -> list[str]:
    """The tool-call sequence: names only, since arguments differ in every session."""
    return [" ".join(c.name.split()) for t in turns for c in t.tool_calls if c.name.strip()]


async def learn_from_session(
    procedures: ProcedureService,
    principal: Principal,
    *,
    intent: str,
    role: str,
    steps: list[str],
    success: bool,
    episode_id: str,
) -> PracticeOutcome:
    try:
        intent_n = normalise_name(intent, "intent")
        role_n = normalise_name(role, "role")
        current = await procedures.repo.list(
            principal.tenant,
            [SCOPE],
            intent=intent_n,
            role=role_n,
            statuses=["active", "candidate"],
            as_of=utcnow(),
            limit=1,
        )
        same = bool(current) and list(current[0].get("steps") or []) == steps
        if not success:
            if not same:
                return PracticeOutcome(
                    True, "skipped", None, None, "failed steps match no procedure"
                )
            proc_id = str(current[0]["id"])
        else:
            if current and not same and current[0].get("status") == "active":
                return PracticeOutcome(
                    True,
                    "skipped",
                    str(current[0]["id"]),
                    "active",
                    "an active procedure with other steps serves this intent",
                )
            up = await procedures.upsert(
                principal, intent=intent_n, role=role_n, steps=steps, scope=SCOPE
            )
            proc_id = str(up.procedure["id"])
        out = await procedures.record_outcome(principal, proc_id, success, episode_id)
        return PracticeOutcome(
            True,
            "success_recorded" if success else "failure_recorded",
            proc_id,
            out.status,
        )
    except GraphMemoryError as e:
        return PracticeOutcome(False, "skipped", None, None, e.message, e)
