"""Write one session's extraction through the existing services, item by item.

Nothing here writes around the rules: the episode goes through EpisodeService (the gate), facts
through FactService.assert_facts with source ``conversation`` (inferred tier: a candidate until
three sessions agree or someone approves it; the gate, trust tiers, protected namespaces and
the predicate registry all apply), procedures through ProcedureService. Every step can be
replayed by a resumed job without doubling: the episode is found by its job tag, facts go
under an idempotency key per (job, episode), memos have ids derived from the job.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError as PydanticError

from graph_memory.domain import (
    Cardinality,
    Citation,
    EpisodeInput,
    FactInput,
    Outcome,
    Principal,
    entity_id,
    normalise_predicate,
)
from graph_memory.errors import GraphMemoryError, ValidationError
from graph_memory.ingestion import SessionInput, Turn
from graph_memory.repositories.ingest import IngestRepository
from graph_memory.services.facts.predicates import PredicateService
from graph_memory.services.ingest.extraction_schema import (
    EventOut,
    Extraction,
    FactOut,
    TodoOut,
    item_error,
)
from graph_memory.services.ingest.memos import MemoDraft
from graph_memory.services.procedures.practice import learn_from_session, tool_steps

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["Applied", "JobScope", "apply_extraction"]

SOURCE = "conversation"


@dataclass(frozen=True)
class JobScope:
    job_id: str
    principal: Principal
    scope: str
    agent_role: str
    extractor: str
    attempt: int = 1


@dataclass
class Applied:
    episode_id: str | None = None
    items: list[dict[str, Any]] = field(default_factory=list)

    def add(self, kind: str, index: int, **kw: Any) -> None:
        err: GraphMemoryError | None = kw.pop("error", None)
        item: dict[str, Any] = {"kind": kind, "index": index, "ok": err is None, **kw}
        if err is not None:
            item.update(code=err.code, message=err.message, field=err.field)
        self.items.append(item)

    @property
    def written(self) -> int:
        return sum(1 for i in self.items if i["ok"] and i.get("action") not in (None, "skipped"))


def _when(value: str | None, name: str) -> datetime | None:
    if value is None or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as e:
        raise ValidationError(f"{name} {value!r} is not an ISO 8601 time", field=name) from e
    if parsed.tzinfo is None:
        raise ValidationError(f"{name} {value!r} carries no timezone", field=name)
    return parsed


def _grounded(turns: tuple[int, ...], count: int) -> None:
    bad = [t for t in turns if not 0 <= t < count]
    if bad:
        raise ValidationError(
            f"turns {bad} are not turns of this session (0..{count - 1})", field="turns"
        )


async def _resolve(services: Services, tenant: str, names: set[str]) -> dict[str, tuple[str, bool]]:
    """Per name: the tenant's own spelling of an entity it already knows (case and spacing
    aside, the key facts are filed under) and whether it knew it; one round trip for all."""
    ids = {n: entity_id(tenant, n) for n in names}
    found = await services.entity_repo.get(tenant, sorted(set(ids.values())))
    out: dict[str, tuple[str, bool]] = {}
    for name, eid in ids.items():
        known = found.get(eid)
        if known is not None and known.name:
            out[name] = (known.name, True)
        else:
            out[name] = (" ".join(name.split()), False)
    return out


async def apply_extraction(
    services: Services,
    job: JobScope,
    session: SessionInput,
    turns: tuple[Turn, ...],
    extraction: Extraction,
) -> Applied:
    """Write what qualifies; returns the per-item outcomes (nothing qualifies: no items)."""
    out = Applied()
    ep = extraction.episode
    if ep is None:
        return out  # nothing qualifies: nothing written (the validator forbids orphan items)
    principal = job.principal
    tenant = principal.tenant
    policy = await services.facts.policy(tenant)
    repo = IngestRepository(services.db)

    # Only a resumed job can have recorded its episode already: a first attempt skips the read.
    episode_id = (
        await repo.find_episode(tenant, session.user_id, session.session_id, job.job_id)
        if job.attempt > 1
        else None
    )
    action = "found" if episode_id else "recorded"
    if episode_id is None:
        ((episode_id, err),) = await services.episodes.record(
            principal,
            [
                EpisodeInput(
                    user_id=session.user_id,
                    session_id=session.session_id,
                    started_at=session.started_at,
                    ended_at=session.ended_at,
                    summary=ep.summary,
                    outcome=Outcome(ep.outcome),
                    topics=ep.topics,
                    key_entities=ep.key_entities,
                    source=SOURCE,
                    scope=job.scope,
                )
            ],
        )
        if err is not None or episode_id is None:
            out.add("episode", 0, text=ep.summary, error=err)
            dependents = (
                ("fact", extraction.facts),
                ("event", extraction.events),
                ("todo", extraction.todos),
            )
            for kind, raw in dependents:
                for i, _ in enumerate(raw):
                    out.add(kind, i, error=ValidationError("its episode was refused"))
            return out
        await repo.tag_episode(tenant, episode_id, job.job_id, job.extractor)
    out.episode_id = episode_id
    out.add("episode", 0, action=action, id=episode_id, text=ep.summary)

    # Facts, memos and the procedure each depend only on the episode: written concurrently,
    # their embeddings (worker threads) and round trips overlap. Outcomes keep a fixed order.
    facts, memos, practice = Applied(), Applied(), Applied()
    await asyncio.gather(
        _facts(services, job, extraction, len(turns), episode_id, policy, facts),
        _memos(services, job, session, extraction, len(turns), episode_id, policy, memos),
        _practice(services, job, extraction, turns, ep.outcome == "success", episode_id, practice),
    )
    out.items += facts.items + memos.items + practice.items
    return out


async def _practice(
    services: Services,
    job: JobScope,
    extraction: Extraction,
    turns: tuple[Turn, ...],
    success: bool,
    episode_id: str,
    out: Applied,
) -> None:
    if extraction.procedure is None or services.procedures is None:
        return
    steps = tool_steps(turns)
    if not steps:
        return
    res = await learn_from_session(
        services.procedures,
        job.principal,
        intent=extraction.procedure.intent,
        role=job.agent_role,
        steps=steps,
        success=success,
        episode_id=episode_id,
    )
    out.add(
        "procedure",
        0,
        action=res.action,
        id=res.procedure_id,
        status=res.status,
        text=f"{extraction.procedure.intent}: {' -> '.join(steps)}",
        reason=res.reason,
        error=res.error,
    )


async def _facts(
    services: Services,
    job: JobScope,
    extraction: Extraction,
    turn_count: int,
    episode_id: str,
    policy: Any,
    out: Applied,
) -> None:
    tenant = job.principal.tenant
    known = await PredicateService(services.db).list(job.principal, policy)
    inputs: list[FactInput] = []
    meta: list[tuple[int, FactOut, dict[str, Any]]] = []
    valid: list[tuple[int, FactOut, datetime | None, datetime | None]] = []
    for i, raw in enumerate(extraction.facts):
        try:
            f = FactOut.model_validate(raw)
            _grounded(f.turns, turn_count)
            valid_from = _when(f.valid_from, "validFrom")
            valid_to = _when(f.valid_to, "validTo")
        except PydanticError as e:
            where, msg = item_error(e)
            out.add("fact", i, error=ValidationError(msg, field=where))
            continue
        except ValidationError as e:
            out.add("fact", i, turns=list(raw.get("turns") or []), error=e)
            continue
        valid.append((i, f, valid_from, valid_to))
    names = await _resolve(
        services, tenant, {n for _, f, _, _ in valid for n in (f.subject, f.object)}
    )
    for i, f, valid_from, valid_to in valid:
        subject, subject_known = names[f.subject]
        obj, object_known = names[f.object]
        predicate = normalise_predicate(f.predicate)
        # The registry decides a known predicate; the model's proposal only registers a new
        # one (through the same path as an explicit cardinality, audited).
        proposed = None if predicate in known else f.cardinality
        inputs.append(
            FactInput(
                subject=subject,
                predicate=predicate,
                object=obj,
                citations=(Citation(episode_id),),
                scope=job.scope,
                object_is_entity=object_known,
                kind=f.kind or "fact",
                source=SOURCE,
                valid_from=valid_from,
                valid_to=valid_to,
                cardinality=Cardinality(proposed) if proposed else None,
            )
        )
        meta.append(
            (
                i,
                f,
                {
                    "subject_resolved": subject_known,
                    "object_resolved": object_known,
                    "cardinality_proposed": proposed,
                },
            )
        )
    if not inputs:
        return
    results = await services.facts.assert_facts(
        job.principal, inputs, idempotency_key=f"ingest:{job.job_id}:{episode_id}"
    )
    tags: list[dict[str, Any]] = []
    for (i, f, extra), fin, r in zip(meta, inputs, results, strict=True):
        text = f"{fin.subject} {fin.predicate} {fin.object}"
        if r.ok:
            tags.append({"fact_id": r.fact_id, "turns": list(f.turns)})
            out.add(
                "fact",
                i,
                action=r.action,
                id=r.fact_id,
                status=r.status,
                turns=list(f.turns),
                text=text,
                **extra,
            )
        else:
            err = GraphMemoryError(r.error_message or "refused", field=r.error_field)
            err.code = r.error_code or "VALIDATION"
            out.add("fact", i, turns=list(f.turns), text=text, error=err, **extra)
    await IngestRepository(services.db).tag_facts(
        tenant, episode_id, tags, job.job_id, job.extractor
    )


async def _memos(
    services: Services,
    job: JobScope,
    session: SessionInput,
    extraction: Extraction,
    turn_count: int,
    episode_id: str,
    policy: Any,
    out: Applied,
) -> None:
    drafts: list[MemoDraft] = []
    where: list[tuple[str, int]] = []
    for kind, raws in (("event", extraction.events), ("todo", extraction.todos)):
        for i, raw in enumerate(raws):
            try:
                if kind == "event":
                    ev = EventOut.model_validate(raw)
                    text, when, turns = ev.text, _when(ev.at, "at"), ev.turns
                else:
                    td = TodoOut.model_validate(raw)
                    text, when, turns = td.text, _when(td.due, "due"), td.turns
                _grounded(turns, turn_count)
            except PydanticError as e:
                field_, msg = item_error(e)
                out.add(kind, i, error=ValidationError(msg, field=field_))
                continue
            except ValidationError as e:
                out.add(kind, i, error=e)
                continue
            drafts.append(MemoDraft(kind, text, when, turns))
            where.append((kind, i))
    if not drafts or services.memos is None:
        return
    written = await services.memos.write(
        job.principal,
        policy,
        drafts=drafts,
        episode_id=episode_id,
        scope=job.scope,
        user_id=session.user_id,
        session_id=session.session_id,
        job_id=job.job_id,
        extractor=job.extractor,
    )
    for (kind, i), d, (memo, created, err) in zip(where, drafts, written, strict=True):
        out.add(
            kind,
            i,
            action=("created" if created else "found") if err is None else None,
            id=memo,
            status=("open" if kind == "todo" else None) if err is None else None,
            turns=list(d.turns),
            text=d.text,
            error=err,
        )
