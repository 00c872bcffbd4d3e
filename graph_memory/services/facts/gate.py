"""The write gate: refuses noise per item with a reason, before anything touches the store."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime

from graph_memory.domain import (
    MAX_FACT_FIELD,
    TIER_RANK,
    Cardinality,
    Citation,
    EpisodeInput,
    FactInput,
    Principal,
    Tier,
    check_fact_sizes,
    check_id,
    default_text,
    entity_key,
    normalise_predicate,
    parse_scope,
    require_aware,
)
from graph_memory.errors import Forbidden, GraphMemoryError, ValidationError
from graph_memory.ingestion import in_the_future
from graph_memory.policy import TenantPolicy, normalise_phrase
from graph_memory.services.access.session_scope import ScopeGuard
from graph_memory.services.facts import sensitive

__all__ = [
    "CheckedFact",
    "check_episode",
    "check_fact",
    "check_text",
    "default_text",
    "no_nul",
    "tier_for",
]

_PREDICATE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")
MAX_FIELD = MAX_FACT_FIELD


@dataclass(frozen=True)
class CheckedFact:
    item: FactInput
    subject_key: str
    predicate: str
    object_key: str
    tier: Tier
    text: str
    valid_from: datetime | None
    valid_to: datetime | None
    ttl_days: int | None


def tier_for(principal: Principal, source: str, policy: TenantPolicy) -> Tier:
    """A write's tier is its source's tier, but never above what the caller's role may claim."""
    if source not in policy.source_tiers:
        raise ValidationError(
            f"unknown source {source!r}; known: {sorted(policy.source_tiers)}", field="source"
        )
    wanted = policy.source_tiers[source]
    cap = policy.role_caps[principal.role]
    if TIER_RANK[wanted] > TIER_RANK[cap]:
        raise Forbidden(
            f"role {principal.role.value} cannot write with source {source!r} "
            f"({wanted.value} tier)",
            field="source",
        )
    return wanted


def no_nul(text: str, field: str) -> None:
    """A NUL character is valid Unicode but no memory's text: it truncates the string in
    most clients and terminals that show it, so what is stored is not what is read."""
    if "\x00" in text:
        raise ValidationError(f"{field} holds a NUL character (U+0000)", field=field)


def _refuse_noise(text: str, field: str, min_chars: int, policy: TenantPolicy) -> None:
    no_nul(text, field)
    if normalise_phrase(text) in policy.service_phrases:
        raise ValidationError(f"{field} is a service phrase ({text!r}), not a memory", field=field)
    if len(text.strip()) < min_chars:
        raise ValidationError(
            f"{field} is too short ({len(text.strip())} < {min_chars} characters)", field=field
        )
    if len(text) > MAX_FIELD:
        raise ValidationError(f"{field} is longer than {MAX_FIELD} characters", field=field)


def check_text(text: str, field: str, policy: TenantPolicy) -> None:
    """The gate's noise rules for a free-text memory (events, todos): service phrases, too
    short, too long. Raises ValidationError naming ``field``."""
    _refuse_noise(text, field, policy.min_text_chars, policy)


def check_fact(item: FactInput, principal: Principal, policy: TenantPolicy) -> CheckedFact:
    """Validate one fact write; raises a typed GraphMemoryError naming the offending field."""
    subject = entity_key(item.subject or "")
    if not subject:
        raise ValidationError("subject is empty", field="subject")
    no_nul(item.subject, "subject")
    predicate = normalise_predicate(item.predicate or "")
    check_id(predicate, "predicate")
    if not _PREDICATE.match(predicate):
        raise ValidationError(
            f"bad predicate {item.predicate!r}: want lower_snake words, dots for namespaces",
            field="predicate",
        )
    obj = (item.object or "").strip()
    if not obj:
        raise ValidationError("object is empty", field="object")
    no_nul(obj, "object")
    if normalise_phrase(obj) in policy.service_phrases:
        raise ValidationError(f"object is a service phrase ({obj!r}), not a memory", field="object")
    check_fact_sizes(item.subject, obj)
    text = item.text.strip() if item.text else default_text(item.subject, predicate, obj)
    if item.text is not None:
        _refuse_noise(item.text, "text", policy.min_text_chars, policy)
    if item.kind not in policy.known_kinds:
        raise ValidationError(
            f"unknown kind {item.kind!r}; known: {sorted(policy.known_kinds)}", field="kind"
        )
    if item.sensitivity not in ("low", "medium", "high"):
        raise ValidationError("sensitivity must be low, medium or high", field="sensitivity")
    if item.sensitivity == "high":
        raise ValidationError(
            "sensitivity high: sensitive data is never stored in memory", field="sensitivity"
        )
    if item.ttl_days is not None and not 1 <= item.ttl_days <= 365:
        raise ValidationError(f"ttlDays {item.ttl_days} outside 1..365", field="ttlDays")
    if item.scope is not None:
        parse_scope(item.scope)
    if not item.citations:
        raise ValidationError("a fact needs at least one episode it derives from", field="episodes")
    for c in item.citations:
        if c.weight is not None and not 0.0 < c.weight <= 1.0:
            raise ValidationError("citation weight must be in (0, 1]", field="weight")
    # An episode cited twice is one piece of evidence: its first citation stands, as a
    # corroboration keeps the weight an episode was first linked with.
    distinct: dict[str, Citation] = {}
    for c in item.citations:
        distinct.setdefault(c.episode_id, c)
    if len(distinct) < len(item.citations):
        item = dataclasses.replace(item, citations=tuple(distinct.values()))
    if item.cardinality is not None and not isinstance(item.cardinality, Cardinality):
        raise ValidationError("cardinality must be one or many", field="cardinality")
    valid_from = require_aware(item.valid_from, "validFrom")
    valid_to = require_aware(item.valid_to, "validTo")
    if valid_from is not None and valid_to is not None and valid_from >= valid_to:
        raise ValidationError(
            "validFrom must be before validTo (half-open interval)", field="validFrom"
        )
    tier = tier_for(principal, item.source, policy)
    if policy.is_protected(predicate) and TIER_RANK[tier] < TIER_RANK[Tier.ADMIN]:
        raise _protected(predicate, tier)
    if tier is Tier.INFERRED and policy.claims_authority(predicate, item.kind):
        # "Record that my refund limit is 10x" told to the model, three sessions running,
        # would otherwise become an active memory served to every agent.
        raise _protected(predicate, tier)
    if tier is Tier.INFERRED:
        # A model's extraction marked it low or medium: secrets and the categories the README
        # lists are high whoever they are about. An explicit write declares its own
        # sensitivity (a user's allergy an agent must know; a door code they asked it to keep).
        found = sensitive.secret_in(f"{item.subject}\n{obj}\n{item.text or ''}")
        found = found or sensitive.special_category(predicate, obj)
        if found is not None:
            raise ValidationError(
                f"an inference holding {found} is sensitive data, never stored in memory",
                field="sensitivity",
            )
    ttl = item.ttl_days if item.ttl_days is not None else policy.ttl_for(predicate, item.kind)
    return CheckedFact(
        item=item,
        subject_key=subject,
        predicate=predicate,
        object_key=entity_key(obj),
        tier=tier,
        text=text,
        valid_from=valid_from,
        valid_to=valid_to,
        ttl_days=ttl,
    )


def _protected(predicate: str, tier: Tier) -> GraphMemoryError:
    from graph_memory.errors import TierConflict

    return TierConflict(
        f"predicate {predicate!r} is in a protected namespace: {tier.value} tier cannot write it"
    )


def check_episode(item: EpisodeInput, principal: Principal, policy: TenantPolicy) -> str:
    """Validate an episode; returns its scope."""
    if not item.user_id.strip():
        raise ValidationError("userId is empty", field="userId")
    if not item.session_id.strip():
        raise ValidationError("sessionId is empty", field="sessionId")
    check_id(item.user_id.strip(), "userId")
    check_id(item.session_id.strip(), "sessionId")
    _refuse_noise(item.summary, "summary", policy.min_summary_chars, policy)
    started = require_aware(item.started_at, "startedAt")
    ended = require_aware(item.ended_at, "endedAt")
    for name, value in (("startedAt", started), ("endedAt", ended)):
        future = in_the_future(value)
        if future is not None:
            raise ValidationError(f"{name} {future}", field=name)
    if started is not None and ended is not None and ended < started:
        raise ValidationError("endedAt is before startedAt", field="endedAt")
    if not 0.0 < item.confidence <= 1.0:
        raise ValidationError("confidence must be in (0, 1]", field="confidence")
    tier_for(principal, item.source, policy)
    scope = parse_scope(item.scope or f"user:{item.user_id.strip()}")
    # A session token's bounds are checked here, per item, so an episode of another user
    # or scope is refused in its own slot and its siblings in the batch still land.
    ScopeGuard.same_user(principal, item.user_id, "userId")
    ScopeGuard.within(principal, [scope], "scope")
    return scope
