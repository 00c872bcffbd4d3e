"""A session's extraction before its write: every item checked, every text embedded.

Nothing here writes around the rules: the episode passes EpisodeService's gate, facts
FactService's (source ``conversation``: inferred tier, a candidate until three sessions agree
or someone approves it; the gate, trust tiers, protected namespaces and the predicate
registry all apply), events and todos MemoService's, procedures ProcedureService's. What
passes is written by services/ingest/session_tx.py in ONE transaction with the job's
completion, through the same services' transaction-level functions: a crash or a lost lease
before the commit leaves nothing of the session written.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
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
    default_text,
    entity_id,
    normalise_predicate,
    unstorable_time,
)
from graph_memory.errors import LimitExceeded, ValidationError
from graph_memory.ingestion import SessionInput, Turn
from graph_memory.repositories.ingest import IngestRepository
from graph_memory.repositories.write_state import PrelockAhead, PrelockRepository
from graph_memory.services.episodes import EpisodeService
from graph_memory.services.facts import sensitive
from graph_memory.services.facts.gate import MAX_FIELD
from graph_memory.services.ingest.extraction_schema import (
    LIMITS,
    EventOut,
    Extraction,
    FactOut,
    TodoOut,
    item_error,
)
from graph_memory.services.ingest.memos import MemoDraft, MemoService, PreparedMemos
from graph_memory.services.ingest.plan import (
    Ahead,
    Applied,
    FactPlan,
    JobScope,
    SessionPlan,
    embed_plan,
)
from graph_memory.services.procedures.practice import (
    PracticeOutcome,
    PracticePlan,
    plan_practice,
    practice_succeeded,
    tool_steps,
    tool_turns,
)
from graph_memory.services.procedures.service import intent_text

if TYPE_CHECKING:
    from graph_memory.container import Services

__all__ = ["prepare_session"]


def clip_summary(text: str, limit: int = MAX_FIELD) -> str:
    """The model's summary as the episode's field takes it, rather than refusing the episode
    and with it every item of the session (they all cite it): a NUL the model emitted is
    dropped (the gate refuses one), and a summary made too long is cut at a word before the
    limit and marked."""
    text = text.replace("\x00", "")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip() + "\u2026"


SOURCE = "conversation"


def _when(value: str | None, name: str) -> datetime | None:
    if value is None or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as e:
        raise ValidationError(f"{name} {value!r} is not an ISO 8601 time", field=name) from e
    if parsed.tzinfo is None:
        raise ValidationError(f"{name} {value!r} carries no timezone", field=name)
    # What the DateTime scalar refuses at the API (graphql/scalars.py): a model's time is
    # input too, and the store refusing it deep in the write would fail the whole session.
    problem = unstorable_time(parsed)
    if problem is not None:
        raise ValidationError(f"{name} {value!r} cannot be stored: {problem}", field=name)
    return parsed


def _too_many(what: str, maximum: int, limit: str) -> LimitExceeded:
    """An item past what one session may write: no more than an assertFacts batch or a list
    argument holds (LIMITS)."""
    return LimitExceeded(
        f"more than {maximum} {what} in one session: the rest are refused",
        field=what,
        limit=limit,
        maximum=maximum,
    )


def _grounded(turns: tuple[int, ...], count: int) -> None:
    bad = [t for t in turns if not 0 <= t < count]
    if bad:
        # A number cut short says so: 10**30 must not read as 100000000000.
        cut = [str(t) if len(str(t)) <= 12 else str(t)[:12] + "\u2026" for t in bad[:5]]
        shown = ", ".join(cut) + (", ..." if len(bad) > 5 else "")
        raise ValidationError(
            f"turns [{shown}] are not turns of this session (0..{count - 1})", field="turns"
        )


# Whose words a fact may rest on: the user's, or a tool's result (data the agent looked up).
# The assistant's turns are the model's own words (a guess, a question, an offer), and the
# system prompt is the deployment's: a fact citing only those was never said by anyone.
_HEARD_FROM = frozenset({"user", "tool"})


def _heard(cited: tuple[int, ...], turns: tuple[Turn, ...]) -> None:
    """Refuses a fact that rests on no user or tool turn (its cited turns are grounded)."""
    if cited and not any(turns[t].role in _HEARD_FROM for t in cited):
        raise ValidationError(
            "rests only on the assistant's or the system's words: a fact must cite a turn "
            "of the user (or a tool's result)",
            field="turns",
        )


def _of_session(turns: tuple[int, ...], count: int) -> list[int]:
    """The turns a refused item cites that the session has (at most one per turn): what its
    report shows, never a number the API cannot carry or a list the size the model chose."""
    return sorted({t for t in turns if 0 <= t < count})


async def _resolve(
    services: Services, principal: Principal, names: set[str]
) -> dict[str, tuple[str, bool]]:
    """Per name: the tenant's own spelling of an entity it already knows (case and spacing
    aside, the key facts are filed under) and whether it knew it; one round trip for all.
    A session token knows only the entities its scopes' facts name (entity/_in_scopes): the
    spelling, or even the existence, of a name only other users' memories hold is not told
    to it through the job's report."""
    tenant = principal.tenant
    ids = {n: entity_id(tenant, n) for n in names}
    found = await services.entity_repo.get(tenant, sorted(set(ids.values())), principal.scopes)
    out: dict[str, tuple[str, bool]] = {}
    for name, eid in ids.items():
        known = found.get(eid)
        if known is not None and known.name:
            out[name] = (known.name, True)
        else:
            out[name] = (" ".join(name.split()), False)
    return out


async def prepare_session(
    services: Services,
    job: JobScope,
    session: SessionInput,
    turns: tuple[Turn, ...],
    extraction: Extraction,
    known: dict[str, Any],
) -> SessionPlan | Applied:
    """Check every item, and start embedding every text of the session in one embedder call
    (``SessionPlan.vectors``; the caller writes the plan or drops them: plan.drop_vectors).

    Returns the plan to write, or the outcomes when nothing is to be written: nothing
    qualifies (no items), or the gate refused the episode (it and its dependents refused).
    ``known``: the tenant's registered predicates (name -> cardinality)."""
    out = Applied()
    ep = extraction.episode
    if ep is None:
        return out  # nothing qualifies: nothing written (the validator forbids orphan items)
    principal = job.principal
    tenant = principal.tenant
    policy = await services.facts.policy(tenant)

    # Only a resumed job can have recorded its episode: a first attempt skips the read (and
    # since the session commits with the job's completion, only a job of an older worker).
    found = (
        await IngestRepository(services.db).find_episode(
            tenant, session.user_id, session.session_id, job.job_id
        )
        if job.attempt > 1
        else None
    )
    rows: list[dict[str, Any]] = []
    # A secret told in the session (a card number, a password given) is not kept in its
    # summary either: the episode keeps the rest.
    summary = clip_summary(sensitive.redact_secrets(ep.summary))
    if found is None:
        verdicts, rows = EpisodeService.prepare(
            principal,
            policy,
            [
                EpisodeInput(
                    user_id=session.user_id,
                    session_id=session.session_id,
                    started_at=session.started_at,
                    ended_at=session.ended_at,
                    summary=summary,
                    outcome=Outcome(ep.outcome),
                    topics=ep.topics,
                    key_entities=ep.key_entities,
                    source=SOURCE,
                    scope=job.scope,
                )
            ],
        )
        ((episode_id, err),) = verdicts
        if err is not None or episode_id is None:
            out.add("episode", 0, text=summary, error=err)
            dependents = (
                ("fact", extraction.facts),
                ("event", extraction.events),
                ("todo", extraction.todos),
            )
            for kind, raw in dependents:
                for i, _ in enumerate(raw):
                    out.add(kind, i, error=ValidationError("its episode was refused"))
            return out
    else:
        episode_id = found

    fact_refused, memo_refused = Applied(), Applied()
    memos, where = (
        _memos(job, session, extraction, len(turns), episode_id, policy, memo_refused)
        if services.memos is not None
        else (None, [])
    )
    valid = _valid_facts(extraction, turns, fact_refused)
    ahead = Ahead(services.embedder, _likely_texts(extraction, rows, memos, valid))
    try:
        # The two reads (entity resolution, the current procedure) overlap, and the
        # embedding of the texts they will most likely leave as they are runs beside them.
        facts, practice = await asyncio.gather(
            _facts(services, job, valid, episode_id, known),
            _practice(services, job, extraction, turns),
        )
        plan = SessionPlan(
            job=job,
            policy=policy,
            episode_id=episode_id,
            episode_rows=rows,
            episode_text=summary,
            episode_action="found" if found else "recorded",
            facts=facts,
            memos=memos,
            memo_where=where,
            practice=practice,
            practice_text=practice.text if practice is not None else None,
            fact_refused=fact_refused,
            memo_refused=memo_refused,
        )
    except BaseException:
        ahead.close()
        raise
    # Only the facts still standing after the gate are written (FactService.prepare decided
    # the gate and the citation scopes), so only their vectors are kept. Not awaited here:
    # the session's transaction runs its statements while the texts are embedded.
    plan.vectors = asyncio.ensure_future(embed_plan(services, plan, ahead))
    return plan


def _likely_texts(
    extraction: Extraction,
    episode_rows: list[dict[str, Any]],
    memos: PreparedMemos | None,
    valid: Valid,
) -> list[str]:
    """The texts the session will write unless a read changes them: the episode's, the
    memos', each fact's default text as the model spelled it, the procedure's intent. A fact
    the write gate will refuse as sensitive is left out: its text goes to no embedder (which
    may be another provider than the model's)."""
    texts = [str(r["text"]) for r in episode_rows]
    texts += memos.texts if memos is not None else []
    for _, f, *_ in valid:
        predicate = normalise_predicate(f.predicate)
        text = default_text(f.subject, predicate, f.object)
        if f.sensitivity == "high" or sensitive.secret_in(text):
            continue
        if sensitive.special_category(predicate, f.object):
            continue
        texts.append(text)
    if extraction.procedure is not None:
        texts.append(intent_text(extraction.procedure.intent, None))
    return texts


async def _practice(
    services: Services,
    job: JobScope,
    extraction: Extraction,
    turns: tuple[Turn, ...],
) -> PracticePlan | None:
    if extraction.procedure is None or services.procedures is None or extraction.episode is None:
        return None
    steps = tool_steps(turns)
    if not steps:  # the model named an intent, but nothing was done to learn steps from
        return PracticePlan(
            extraction.procedure.intent,
            job.agent_role,
            [],
            False,
            done=PracticeOutcome(
                True, "skipped", None, None, "the session made no tool calls to learn steps from"
            ),
        )
    plan = await plan_practice(
        services.procedures,
        job.principal,
        intent=extraction.procedure.intent,
        role=job.agent_role,
        steps=steps,
        success=practice_succeeded(turns, extraction.episode.outcome),
    )
    return replace(plan, turns=tool_turns(turns))


# Per fact that passed the extraction's checks: its index, the item and its times.
Valid = list[tuple[int, FactOut, datetime | None, datetime | None]]


def _valid_facts(extraction: Extraction, turns: tuple[Turn, ...], out: Applied) -> Valid:
    """The model's facts that pass the extraction's own checks (grounded in heard turns,
    storable times); the others reported in ``out``."""
    turn_count = len(turns)
    valid: Valid = []
    for i, raw in enumerate(extraction.facts):
        if i >= LIMITS.max_batch:
            out.add("fact", i, error=_too_many("facts", LIMITS.max_batch, "max_batch"))
            continue
        try:
            f = FactOut.model_validate(raw)
            _grounded(f.turns, turn_count)
            _heard(f.turns, turns)
            valid_from = _when(f.valid_from, "validFrom")
            valid_to = _when(f.valid_to, "validTo")
        except PydanticError as e:
            where, msg = item_error(e)
            out.add("fact", i, error=ValidationError(msg, field=where))
            continue
        except ValidationError as e:
            out.add("fact", i, turns=_of_session(f.turns, turn_count), error=e)
            continue
        valid.append((i, f, valid_from, valid_to))
    return valid


async def _facts(
    services: Services,
    job: JobScope,
    valid: Valid,
    episode_id: str,
    known: dict[str, Any],
) -> FactPlan:
    if not valid:
        return FactPlan([], [], None)
    # The episode and the predicates the batch will read before its locks are known now:
    # those reads run beside the entity resolution instead of after it.
    ahead = PrelockAhead(
        PrelockRepository(services.db),
        job.principal.tenant,
        [episode_id],
        [normalise_predicate(f.predicate) for _, f, *_ in valid],
    )
    try:
        names = await _resolve(
            services, job.principal, {n for _, f, *_ in valid for n in (f.subject, f.object)}
        )
        return await _fact_batch(services, job, valid, episode_id, known, names, ahead)
    finally:
        await ahead.close()


async def _fact_batch(
    services: Services,
    job: JobScope,
    valid: Valid,
    episode_id: str,
    known: dict[str, Any],
    names: dict[str, tuple[str, bool]],
    prelock: PrelockAhead,
) -> FactPlan:
    inputs: list[FactInput] = []
    meta: list[tuple[int, FactOut, dict[str, Any]]] = []
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
                sensitivity=f.sensitivity,
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
    batch = await services.facts.prepare(job.principal, inputs, embed=False, prelock=prelock)
    return FactPlan(inputs, meta, batch)


def _memos(
    job: JobScope,
    session: SessionInput,
    extraction: Extraction,
    turn_count: int,
    episode_id: str,
    policy: Any,
    out: Applied,
) -> tuple[PreparedMemos | None, list[tuple[str, int]]]:
    drafts: list[MemoDraft] = []
    where: list[tuple[str, int]] = []
    for kind, raws in (("event", extraction.events), ("todo", extraction.todos)):
        for i, raw in enumerate(raws):
            if i >= LIMITS.max_list:
                out.add(kind, i, error=_too_many(f"{kind}s", LIMITS.max_list, "max_list"))
                continue
            try:
                if kind == "event":
                    ev = EventOut.model_validate(raw)
                    text, when, turns = ev.text, _when(ev.at, "at"), ev.turns
                else:
                    td = TodoOut.model_validate(raw)
                    text, when, turns = td.text, _when(td.due, "due"), td.turns
                _grounded(turns, turn_count)
                problem = sensitive.memo_problem(text)
                if problem is not None:  # the model keeps no sensitivity on a memo: ours
                    raise ValidationError(
                        f"the {kind} names {problem}: sensitive data is never stored in memory",
                        field="sensitivity",
                    )
            except PydanticError as e:
                field_, msg = item_error(e)
                out.add(kind, i, error=ValidationError(msg, field=field_))
                continue
            except ValidationError as e:
                out.add(kind, i, error=e)
                continue
            drafts.append(MemoDraft(kind, text, when, turns))
            where.append((kind, i))
    if not drafts:
        return None, where
    prepared = MemoService.prepare(
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
    return prepared, where
