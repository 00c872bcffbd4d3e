"""Write resolvers: episodes, facts, retraction. Batches report per item."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.types import Info

from graph_memory.domain import Cardinality as DCardinality
from graph_memory.domain import Citation, EpisodeInput, FactInput, Role
from graph_memory.domain import Outcome as DOutcome
from graph_memory.graphql.context import require_role
from graph_memory.graphql.denials import audit_item_denials
from graph_memory.graphql.inputs import prebuilt
from graph_memory.graphql.types.episode import ItemError, Outcome, item_error
from graph_memory.graphql.types.fact import (
    Cardinality,
    Fact,
    FactStatus,
    Predicate,
    fact_from_record,
    fact_from_version,
)
from graph_memory.services.facts.writes import ItemResult

__all__ = ["MemoryMutation"]

_WRITERS = (Role.AGENT, Role.ADMIN)


@prebuilt()
@strawberry.input(name="EpisodeInput", description="A structured session summary.")
class EpisodeInputGQL:
    user_id: str
    session_id: str
    started_at: datetime | None = strawberry.field(
        default=None, description="Defaults to endedAt when only that is given, else now."
    )
    ended_at: datetime | None = strawberry.field(default=None, description="Defaults to startedAt.")
    summary: str
    outcome: Outcome
    topics: list[str] = strawberry.field(default_factory=list)
    key_entities: list[str] = strawberry.field(default_factory=list)
    source: str = "conversation"
    confidence: float = 0.7
    scope: str | None = strawberry.field(default=None, description="Defaults to user:<userId>.")


@strawberry.type
class EpisodeResult:
    index: int
    ok: bool
    id: strawberry.ID | None
    error: ItemError | None


@prebuilt()
@strawberry.input
class CitationInput:
    episode_id: strawberry.ID
    weight: float | None = strawberry.field(
        default=None, description="Support in (0, 1]; defaults to the episode's confidence."
    )


@prebuilt(episodes=CitationInput)
@strawberry.input(name="FactInput", description="One (subject, predicate, object) claim.")
class FactInputGQL:
    subject: str
    predicate: str
    object: str
    episodes: list[CitationInput] = strawberry.field(
        default_factory=list,
        description="The supporting episodes (at least one; in `remember` the recorded "
        "episode is added): of the fact's scope, tenant, or the other kind (another user's "
        "or team's episode is VALIDATION: its readers may not see it).",
    )
    scope: str | None = strawberry.field(
        default=None, description="Defaults to the first cited episode's scope."
    )
    object_is_entity: bool = False
    text: str | None = None
    kind: str = "fact"
    source: str = strawberry.field(
        default="user",
        description="Where it came from: user (stated by the user, active at once), "
        "conversation/agent/extraction (inferred: a candidate until 3 sessions agree), tool, "
        "document; admin keys also system/policy/admin.",
    )
    sensitivity: str = "low"
    valid_from: datetime | None = strawberry.field(
        default=None,
        description="When it became true (inclusive). Default: when the earliest cited "
        "episode began; with validTo alone, the start of the claim about this object it ends.",
    )
    valid_to: datetime | None = strawberry.field(
        default=None,
        description="When it stopped being true (exclusive). Default: open, or for a "
        "conclusion the earliest end among its premises.",
    )
    ttl_days: int | None = None
    cardinality: Cardinality | None = None
    depends_on: list[strawberry.ID] = strawberry.field(
        default_factory=list,
        description="Premises: when one is superseded or retracted this fact (and what was "
        "drawn from it) is flagged needsVerification; derived from a doubted premise, it is "
        "born flagged.",
    )


@strawberry.type
class FactResult:
    index: int
    ok: bool
    action: str | None = strawberry.field(description="created | superseded | corroborated")
    fact_id: strawberry.ID | None
    version: int | None
    status: FactStatus | None
    confidence: float | None
    supersedes: strawberry.ID | None = strawberry.field(
        description="The version this write superseded; for a new CANDIDATE (action "
        "created), the one it will supersede once promoted (corroborated or approved): "
        "until then that version stays ACTIVE."
    )
    error: ItemError | None

    @strawberry.field
    async def fact(self, info: Info[Any, None]) -> Fact | None:
        if not self.fact_id:
            return None
        found = await info.context.loaders.facts.load(str(self.fact_id))
        return fact_from_version(found) if found else None


@strawberry.type
class AssertFactsPayload:
    results: list[FactResult]
    accepted: int
    rejected: int


def _episode_input(e: EpisodeInputGQL) -> EpisodeInput:
    return EpisodeInput(
        user_id=e.user_id,
        session_id=e.session_id,
        started_at=e.started_at,
        ended_at=e.ended_at,
        summary=e.summary,
        outcome=DOutcome(e.outcome.value),
        topics=tuple(e.topics),
        key_entities=tuple(e.key_entities),
        source=e.source,
        confidence=e.confidence,
        scope=e.scope,
    )


def _fact_payload(results: list[ItemResult]) -> AssertFactsPayload:
    out = [
        FactResult(
            index=r.index,
            ok=r.ok,
            action=r.action,
            fact_id=strawberry.ID(r.fact_id) if r.fact_id else None,
            version=r.version,
            status=FactStatus(r.status) if r.status else None,
            confidence=r.confidence,
            supersedes=strawberry.ID(r.supersedes) if r.supersedes else None,
            error=ItemError(code=r.error_code, message=r.error_message or "", field=r.error_field)
            if r.error_code
            else None,
        )
        for r in results
    ]
    ok = sum(1 for r in results if r.ok)
    return AssertFactsPayload(results=out, accepted=ok, rejected=len(results) - ok)


@strawberry.type(description="What remember recorded: the episode, then each fact citing it.")
class RememberPayload:
    episode_id: strawberry.ID | None = strawberry.field(
        description="Null when the episode was refused (see episodeError): then no fact is written."
    )
    episode_error: ItemError | None
    facts: AssertFactsPayload


def _fact_input(f: FactInputGQL) -> FactInput:
    return FactInput(
        subject=f.subject,
        predicate=f.predicate,
        object=f.object,
        citations=tuple(Citation(str(c.episode_id), c.weight) for c in f.episodes),
        scope=f.scope,
        object_is_entity=f.object_is_entity,
        text=f.text,
        kind=f.kind,
        source=f.source,
        sensitivity=f.sensitivity,
        valid_from=f.valid_from,
        valid_to=f.valid_to,
        ttl_days=f.ttl_days,
        cardinality=DCardinality(f.cardinality.value) if f.cardinality else None,
        depends_on=tuple(str(d) for d in f.depends_on),
    )


@strawberry.type
class MemoryMutation:
    @strawberry.mutation(
        description="Record session summaries (up to 200 a call by default: "
        "GRAPH_MEMORY_LIMIT_MAX_EPISODE_BATCH; more is VALIDATION with extensions.limit)."
    )
    async def record_episodes(
        self, info: Info[Any, None], episodes: list[EpisodeInputGQL]
    ) -> list[EpisodeResult]:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)
        items = [_episode_input(e) for e in episodes]
        out = await ctx.services.episodes.record(ctx.principal, items)
        results = [
            EpisodeResult(
                index=i,
                ok=err is None,
                id=strawberry.ID(ep_id) if ep_id else None,
                error=item_error(err),
            )
            for i, (ep_id, err) in enumerate(out)
        ]
        await audit_item_denials(info, (r.error for r in results))
        return results

    @strawberry.mutation(description="Record one session summary; errors are raised.")
    async def record_episode(
        self, info: Info[Any, None], episode: EpisodeInputGQL
    ) -> strawberry.ID:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)
        item = _episode_input(episode)
        [(ep_id, err)] = await ctx.services.episodes.record(ctx.principal, [item])
        if err is not None:
            # The gate's own error, type and all: a FORBIDDEN one is audited as a denial
            # (graphql/denials.py) like any refused field.
            raise err
        return strawberry.ID(str(ep_id))

    @strawberry.mutation(
        description="Assert up to 1,000 facts (GRAPH_MEMORY_LIMIT_MAX_BATCH). Same object: "
        "corroborates the current version; "
        "new object of a single-valued predicate: supersedes it. Idempotent under the key."
    )
    async def assert_facts(
        self,
        info: Info[Any, None],
        facts: list[FactInputGQL],
        idempotency_key: str | None = None,
    ) -> AssertFactsPayload:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)
        results = await ctx.services.facts.assert_facts(
            ctx.principal, [_fact_input(f) for f in facts], idempotency_key
        )
        payload = _fact_payload(results)
        await audit_item_denials(info, (r.error for r in payload.results))
        return payload

    @strawberry.mutation(
        description="Record one session's episode and the facts it established in one call: "
        "each fact cites the new episode (besides any `episodes` it names), so no episode id "
        "is carried between calls. The episode goes through the same gate as recordEpisode "
        "(refused: episodeError, and no fact is written); the facts as in assertFacts, each "
        "reported on its own. Idempotent under the key: a replay answers as the first call."
    )
    async def remember(
        self,
        info: Info[Any, None],
        episode: EpisodeInputGQL,
        facts: list[FactInputGQL] | None = None,
        idempotency_key: str | None = None,
    ) -> RememberPayload:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)
        got = await ctx.services.remember.remember(
            ctx.principal,
            _episode_input(episode),
            [_fact_input(f) for f in facts or []],
            idempotency_key,
        )
        payload = _fact_payload(got.facts)
        refused = item_error(got.episode_error)
        # Its episode's and facts' per-item refusals are audited as assertFacts' are.
        await audit_item_denials(info, [refused, *(r.error for r in payload.results)])
        return RememberPayload(
            episode_id=strawberry.ID(got.episode_id) if got.episode_id else None,
            episode_error=refused,
            facts=payload,
        )

    @strawberry.mutation(
        description="Retract a fact (agent, admin): belief ends now; history keeps it."
    )
    async def retract_fact(
        self, info: Info[Any, None], id: strawberry.ID, reason: str | None = None
    ) -> Fact:
        ctx = info.context
        require_role(ctx.principal, *_WRITERS)  # analysts read and review; they do not write
        rec = await ctx.services.facts.retract(ctx.principal, str(id), reason)
        return fact_from_record(rec)


@strawberry.input
class PredicateInput:
    name: str
    cardinality: Cardinality


@strawberry.type
class PredicateMutation:
    @strawberry.mutation(
        description="Register predicates' cardinality (ONE: a new object supersedes; MANY: "
        "objects accumulate). A registered cardinality cannot change."
    )
    async def define_predicates(
        self, info: Info[Any, None], predicates: list[PredicateInput]
    ) -> list[Predicate]:
        ctx = info.context
        require_role(ctx.principal, Role.ADMIN)
        defs = {p.name.strip().lower(): DCardinality(p.cardinality.value) for p in predicates}
        out = await ctx.services.predicates.define(ctx.principal, defs)
        return [Predicate(name=n, cardinality=Cardinality(c.value)) for n, c in out.items()]
