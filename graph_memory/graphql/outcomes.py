"""reportOutcome over GraphQL: what retrieved memories led to. Resolvers translate;
OutcomeService holds the rules (roles included)."""

from __future__ import annotations

from enum import Enum
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.denials import audit_item_denials
from graph_memory.graphql.types.episode import ItemError, item_error
from graph_memory.services.trust.outcomes import Outcome, OutcomeService

__all__ = ["OutcomeMutation"]


@strawberry.enum(description="What a retrieved memory led to.")
class MemoryOutcome(Enum):
    HELPFUL = "helpful"
    HARMFUL = "harmful"


@strawberry.type(description="One memory's outcome report: recorded, or why not.")
class OutcomeResult:
    memory_id: strawberry.ID
    recorded: bool
    counted: bool = strawberry.field(
        description="False when the memory's trust tier is above the reporter's role cap: "
        "the verdict is recorded and audited but does not change its salience."
    )
    kind: str | None = strawberry.field(description="fact | episode; null for no such memory.")
    helpful: int = strawberry.field(
        description="Contributors (reporting episodes' users) whose latest counted verdict "
        "is helpful."
    )
    harmful: int = strawberry.field(
        description="Contributors whose latest counted verdict is harmful."
    )
    error: str | None = strawberry.field(
        description="Why it was not recorded, as text; prefer itemError, which carries the "
        "code (NOT_FOUND, VALIDATION, FORBIDDEN) and the field as well."
    )
    item_error: ItemError | None = strawberry.field(
        description="Why it was not recorded (null when recorded): the same ItemError the "
        "other batch mutations report per item."
    )


@strawberry.type
class OutcomeMutation:
    @strawberry.mutation(
        description="Record what retrieved memories (facts, episodes) led to in an episode "
        "(agent, admin): one verdict per episode and memory (a second report replaces it). "
        "Kept apart from confidence: recall demotes a memory more contributors report "
        "harmful than helpful (score.salience), each user counted once; a verdict on a "
        "memory above the reporter's tier cap is recorded, not counted. One result per id "
        "given (1..100), in order: an unknown or blank id, or one of a memory outside a "
        "session token's scopes (FORBIDDEN), is reported in its place and the others are "
        "recorded."
    )
    async def report_outcome(
        self,
        info: Info[Any, None],
        memory_ids: list[strawberry.ID],
        outcome: MemoryOutcome,
        episode_id: strawberry.ID,
    ) -> list[OutcomeResult]:
        service: OutcomeService | None = info.context.services.outcomes
        if service is None:  # a container built without it: a wiring bug
            raise GraphMemoryError("the outcome service is not configured")
        rows = await service.report(
            info.context.principal,
            [str(i) for i in memory_ids],
            Outcome(outcome.value),
            str(episode_id),
        )
        results = [
            OutcomeResult(
                memory_id=strawberry.ID(r.memory_id),
                recorded=r.recorded,
                counted=r.counted,
                kind=r.kind,
                helpful=r.helpful,
                harmful=r.harmful,
                error=r.error.message if r.error else None,
                item_error=item_error(r.error),
            )
            for r in rows
        ]
        await audit_item_denials(info, (r.item_error for r in results))
        return results
