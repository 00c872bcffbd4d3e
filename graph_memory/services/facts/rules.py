"""Per-item rules of the fact write path: which items of a batch fail (unknown episodes,
premises or predicate cardinalities), where an item lands, and whether it only corroborates.

Each ``check_*`` drops the failing items from ``checked`` and returns their errors by index;
the service turns them into per-item results, so bad items never sink good ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph_memory.db import Record, Tx
from graph_memory.domain import (
    TIER_RANK,
    Cardinality,
    FactInput,
    Principal,
    Tier,
    as_datetime,
    parse_scope,
)
from graph_memory.errors import (
    Conflict,
    ContributorForgotten,
    Forbidden,
    GraphMemoryError,
    LimitExceeded,
    NotFound,
    TierConflict,
    ValidationError,
)
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.write_state import SlotState
from graph_memory.services.access.session_scope import ScopeGuard
from graph_memory.services.audit import events as audit
from graph_memory.services.facts import validity
from graph_memory.services.facts.citation_scope import refused
from graph_memory.services.facts.gate import CheckedFact

__all__ = [
    "Slot",
    "cardinalities",
    "check_citation_scopes",
    "check_citations",
    "check_premises",
    "check_shared_truth",
    "check_slot_capacity",
    "check_token_scopes",
    "corroborates",
    "hash_items",
    "scope_of",
    "scope_or_none",
    "shared_slots",
    "slots_of",
]

SlotKey = tuple[str, str, str]


@dataclass
class Slot:
    """What the batch knows about one (scope, subject, predicate) while deciding."""

    current: list[dict[str, Any]] = field(default_factory=list)
    max_version: int = 0
    # No version at all before this batch (so no segment): its timeline is settled in
    # memory from the batch's rows (services/facts/fresh_slots.py).
    fresh: bool = True


def _canonical(value: object) -> str:
    # One instant, one text: a replay may spell the same time with another offset.
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat()
    return str(value)


def hash_items(items: list[FactInput]) -> str:
    return hashlib.sha256(
        json.dumps([i.__dict__ for i in items], default=_canonical, sort_keys=True).encode()
    ).hexdigest()


def check_citations(
    checked: dict[int, CheckedFact], episodes: dict[str, Record]
) -> dict[int, GraphMemoryError]:
    failed: dict[int, GraphMemoryError] = {}
    for i, cf in list(checked.items()):
        missing = [c.episode_id for c in cf.item.citations if c.episode_id not in episodes]
        forgotten = [
            c.episode_id
            for c in cf.item.citations
            if c.episode_id not in missing and episodes[c.episode_id].get("forgotten")
        ]
        if missing:
            failed[i] = NotFound(f"unknown episode(s) {missing}", field="episodes")
            del checked[i]
        elif forgotten:
            failed[i] = ContributorForgotten(
                f"episode(s) {forgotten} belong to a forgotten contributor", field="episodes"
            )
            del checked[i]
    return failed


def check_citation_scopes(
    checked: dict[int, CheckedFact], episodes: dict[str, Record]
) -> dict[int, GraphMemoryError]:
    """The citation-scope rule (services/facts/citation_scope.py) on the episodes as read
    under the lock: one recorded after the batch's read before the locks (remember derives
    its episode's id from the key, so it can be cited before it exists) is seen only here."""
    order = sorted(checked)
    visible = {k: e for k, e in episodes.items() if not e.get("forgotten")}
    found = refused([checked[i].item for i in order], visible, {})
    failed: dict[int, GraphMemoryError] = {order[j]: err for j, err in found.items()}
    for i in failed:
        del checked[i]
    return failed


def check_token_scopes(
    principal: Principal,
    checked: dict[int, CheckedFact],
    episodes: Mapping[str, Record],
    premises: Mapping[str, str],
) -> dict[int, GraphMemoryError]:
    """A session token's bound scopes (services/access/session_scope.py) on each item: where
    it lands, the episodes it cites and the premises (by id, their scopes) it depends on. The
    only check of an assertFacts item's scopes (graphql/session_scope.py leaves them to it),
    so an item outside them is reported FORBIDDEN in its own slot and its siblings land. Run
    before the locks and again on the episodes as read under them: the first could not see
    the scope of an episode recorded since (a remember episode's id is known before it
    exists). Premises are checked before the locks only: a fact's scope never changes, and
    its id is known only once it exists. An unknown episode or premise is the write's own
    NOT_FOUND. Before the citation-scope rule: a scope the caller may not touch is FORBIDDEN
    whatever else is wrong with the item."""
    if principal.scopes is None:
        return {}
    failed: dict[int, GraphMemoryError] = {}
    for i, cf in list(checked.items()):
        cited = {str(e["scope"]) for c in cf.item.citations if (e := episodes.get(c.episode_id))}
        rests = {premises[p] for p in cf.item.depends_on if p in premises}
        try:
            # The field names what to change: where the fact lands, else what it rests on.
            ScopeGuard.within(principal, [scope_or_none(cf, episodes)], "scope")
            ScopeGuard.within(principal, cited, "episodes")
            ScopeGuard.within(principal, rests, "dependsOn")
        except Forbidden as e:
            failed[i] = e
            del checked[i]
    return failed


def check_slot_capacity(
    checked: dict[int, CheckedFact],
    scopes: Mapping[int, str],
    cards: Mapping[str, Cardinality],
    states: Mapping[SlotKey, SlotState],
    maximum: int,
) -> dict[int, GraphMemoryError]:
    """Items that would add a version to a slot already holding ``maximum`` competing ones
    (graph_memory.limits, max_slot_versions); an item retelling a current version adds none
    and passes (retelling an older one is a new version). The batch's own new versions count
    too."""
    failed: dict[int, GraphMemoryError] = {}
    added: dict[tuple[SlotKey, str | None], int] = {}
    for i, cf in list(checked.items()):
        key = (scopes[i], cf.subject_key, cf.predicate)
        many = cards.get(cf.predicate) is Cardinality.MANY
        state = states.get(key)
        lives = state.lives if state is not None else []
        # Those still believed: a retracted or rejected version no longer competes now.
        group = [
            v for v in lives if v.ended_at is None and (not many or v.object_key == cf.object_key)
        ]
        current = state.current if state is not None else []
        if any(v["object_key"] == cf.object_key for v in current):
            continue  # a re-telling of what the slot holds now: no new version
        slot_group = (key, cf.object_key if many else None)
        if len(group) + added.get(slot_group, 0) >= maximum:
            failed[i] = LimitExceeded(
                f"slot ({cf.item.subject!r}, {cf.predicate!r}) in {scopes[i]} already holds "
                f"{len(group) + added.get(slot_group, 0)} versions, the limit: retract or "
                "consolidate some, or make the predicate many-valued",
                field="object",
                limit="max_slot_versions",
                maximum=maximum,
            )
            del checked[i]
            continue
        added[slot_group] = added.get(slot_group, 0) + 1
    return failed


# The scope every reader of a tenant may combine with its own: facts held there at a higher
# tier are the tenant's shared truth (a policy, a company's data).
SHARED_SCOPE = "tenant"


def shared_slots(
    slots: Mapping[SlotKey, frozenset[str]], checked: Mapping[int, CheckedFact]
) -> dict[SlotKey, frozenset[str]]:
    """``slots`` (where a batch's items land, with the objects they name) and, for each slot
    of a narrower scope, the tenant-wide slot of its subject and predicate, which the items
    are held against (check_shared_truth): read with the batch's state, not locked (a write
    of the shared scope racing this one is ordered by its own lock). Only when an item is an
    inference, the only kind that rule holds: an explicit batch reads nothing more."""
    out = dict(slots)
    if not any(cf.tier is Tier.INFERRED for cf in checked.values()):
        return out
    for (scope, subject, predicate), objects in slots.items():
        if scope != SHARED_SCOPE:
            key = (SHARED_SCOPE, subject, predicate)
            out[key] = out.get(key, frozenset()) | objects
    return out


def _held_to_shared_truth(
    principal: Principal, cf: CheckedFact, scope: str, cards: Mapping[str, Cardinality]
) -> bool:
    """Whether an item is held against the tenant's shared truth (check_shared_truth)."""
    # Only an inference (a model's extraction, an agent's claim): the way a poisoned
    # conversation enters. A person's own explicit statement in their scope (a user-tier
    # preference beside the tenant's default) is theirs to make. A session token kept from
    # the tenant scope is not held to it: a refusal that depends on what the tenant holds
    # would tell it what it may not read.
    return (
        cf.tier is Tier.INFERRED
        and scope != SHARED_SCOPE
        and cards.get(cf.predicate) is Cardinality.ONE
        and (principal.scopes is None or SHARED_SCOPE in principal.scopes)
    )


# Who decides a predicate for the whole tenant (fact.tenant_rulings): an admin or the system.
RULING_TIERS = tuple(t.value for t in Tier if TIER_RANK[t] >= TIER_RANK[Tier.ADMIN])


def ruled_predicates(
    principal: Principal,
    checked: Mapping[int, CheckedFact],
    scopes: Mapping[int, str],
    cards: Mapping[str, Cardinality],
) -> set[str]:
    """The predicates whose tenant rulings check_shared_truth needs (fact.tenant_rulings)."""
    return {
        cf.predicate
        for i, cf in checked.items()
        if _held_to_shared_truth(principal, cf, scopes[i], cards)
    }


def check_shared_truth(
    principal: Principal,
    checked: dict[int, CheckedFact],
    scopes: Mapping[int, str],
    cards: Mapping[str, Cardinality],
    states: Mapping[SlotKey, SlotState],
    now: datetime,
    rulings: Mapping[str, list[Record]] | None = None,
) -> tuple[dict[int, GraphMemoryError], list[dict[str, Any]]]:
    """Inferred items of a narrower scope that would contradict the tenant's shared truth: a
    single-valued fact in force in the tenant scope, of a tier above the item's, with another
    object, over an overlapping stretch of validity. Reads that combine the two scopes would
    serve both as answers to one question ("the admin said I get 10x refunds" beside the
    admin's 1x); within one slot the write rule refuses that override (TIER_CONFLICT), and
    across scopes it does the same. Of a predicate an admin or the system decided for the
    tenant (``rulings``, fact.tenant_rulings), whatever the subject: the same sentence filed
    as the user's own ``refund_limit`` would otherwise be a candidate three sessions promote.
    Returns the refusals and their audit events (alerts)."""
    failed: dict[int, GraphMemoryError] = {}
    events: list[dict[str, Any]] = []
    now_us = validity.micros(now)
    assert now_us is not None
    for i, cf in list(checked.items()):
        if not _held_to_shared_truth(principal, cf, scopes[i], cards):
            continue
        state = states.get((SHARED_SCOPE, cf.subject_key, cf.predicate))
        ruled = (rulings or {}).get(cf.predicate, [])
        # The item's own validity as far as it is stated (an open start: when it is said,
        # now); a shared fact over another stretch of time is no contradiction.
        start = validity.micros(cf.valid_from) or now_us
        end = validity.micros(cf.valid_to)
        above = [
            v
            for v in [*(state.current if state is not None else []), *ruled]
            if v["status"] == "active"
            and v["object_key"] != cf.object_key
            and TIER_RANK[Tier(v["tier"])] > TIER_RANK[cf.tier]
            and served(v, now)
            and (v.get("valid_to_us") is None or v["valid_to_us"] > start)
            and (end is None or v.get("valid_from_us") is None or v["valid_from_us"] < end)
        ]
        if not above:
            continue
        top = max(above, key=lambda v: TIER_RANK[Tier(v["tier"])])
        # Ids and the shared fact's own words only: the writer's scope (a user's id) would
        # outlive a forget of them in this event, which is about the shared fact.
        err = TierConflict(
            f"{cf.tier.value}-tier write would contradict the tenant's {top['tier']}-tier "
            f"fact on ({cf.subject_key}, {cf.predicate})",
            field="object",
        )
        failed[i] = err
        events.append(
            audit.event(principal, "tier_conflict", "fact", top["id"], now, reason=err.message)
        )
        del checked[i]
    return failed, events


@dataclass
class Premises:
    """What a batch's dependsOn lists say (``check_premises``)."""

    failed: dict[int, GraphMemoryError] = field(default_factory=dict)
    # The earliest validTo among an item's premises: a conclusion's default end.
    ends: dict[int, datetime] = field(default_factory=dict)
    # An item derived from a premise already in doubt: (premise id, why), ids only.
    doubts: dict[int, tuple[str, str]] = field(default_factory=dict)


def _doubt(premise: Record) -> str | None:
    if premise.get("retracted_at") is not None:
        return "was retracted"
    if premise.get("superseded_at") is not None:
        return "was superseded"
    if premise.get("status") in ("expired", "rejected"):
        return f"was {premise['status']}"
    if premise.get("needs_verification"):
        return "needs verification"
    return None


async def check_premises(tx: Tx, tenant: str, checked: dict[int, CheckedFact]) -> Premises:
    """Items whose dependsOn names no fact of this tenant (it would silently never cascade) are
    refused; for the others, the premises' earliest end and whether one is already in doubt
    (a conclusion drawn from a doubted premise is born needing verification)."""
    out = Premises()
    wanted = sorted({p for cf in checked.values() for p in cf.item.depends_on})
    if not wanted:
        return out
    found = await FactRepository.get_in_tx(tx, tenant, wanted, forgotten=False)
    for i, cf in list(checked.items()):
        missing = [p for p in cf.item.depends_on if p not in found]
        if missing:
            out.failed[i] = NotFound(f"unknown premise fact(s) {missing}", field="dependsOn")
            del checked[i]
            continue
        premise_ends = [
            t for p in cf.item.depends_on if (t := as_datetime(found[p].get("valid_to")))
        ]
        if premise_ends:
            out.ends[i] = min(premise_ends)
        doubts = [(p, why) for p in cf.item.depends_on if (why := _doubt(found[p]))]
        if doubts:
            out.doubts[i] = doubts[0]
    return out


async def cardinalities(
    tx: Tx,
    tenant: str,
    policy: TenantPolicy,
    checked: dict[int, CheckedFact],
    now: datetime,
    registered: Mapping[str, str],
) -> tuple[dict[str, Cardinality], dict[int, GraphMemoryError], dict[str, Cardinality]]:
    """The cardinality of every predicate in the batch, the items refused, and the
    predicates an item declared (registered by this batch, first use). ``registered``: the
    tenant's registrations as read under the batch's locks (fact.write_state; the tenant lock
    is held when one of the batch's predicates is not among them). A predicate first used
    without a declaration is registered with the built-in default; that decides nothing new."""
    failed: dict[int, GraphMemoryError] = {}
    known: dict[str, Cardinality] = {n: Cardinality(c) for n, c in registered.items()}
    new_defs: dict[str, Cardinality] = {}
    declared_defs: dict[str, Cardinality] = {}
    for i, cf in list(checked.items()):
        declared = cf.item.cardinality
        have = known.get(cf.predicate) or new_defs.get(cf.predicate)
        if have is None:
            have = declared or policy.default_cardinality.get(cf.predicate)
            if have is None:
                failed[i] = ValidationError(
                    f"unknown predicate cardinality for {cf.predicate!r}: pass cardinality "
                    "ONE or MANY once (it is then registered for the tenant)",
                    field="cardinality",
                )
                del checked[i]
                continue
            new_defs[cf.predicate] = have
            if declared is not None:
                declared_defs[cf.predicate] = declared
        elif declared is not None and declared is not have:
            failed[i] = Conflict(
                f"predicate {cf.predicate!r} is registered as {have.value}, not {declared.value}",
                field="cardinality",
            )
            del checked[i]
    await FactRepository.define_predicates(
        tx, tenant, [{"name": n, "cardinality": c.value} for n, c in new_defs.items()], now
    )
    return {**known, **new_defs}, failed, declared_defs


def scope_or_none(cf: CheckedFact, episodes: Mapping[str, Record]) -> str | None:
    # An item with a bad scope or citing an unknown episode is refused by its own checks.
    try:
        return scope_of(cf, episodes)
    except (GraphMemoryError, KeyError, IndexError):
        return None


def scope_of(cf: CheckedFact, episodes: Mapping[str, Record]) -> str:
    if cf.item.scope:
        return parse_scope(cf.item.scope)
    return str(episodes[cf.item.citations[0].episode_id]["scope"])


def slots_of(states: Mapping[SlotKey, SlotState]) -> dict[SlotKey, Slot]:
    """What the batch works on while deciding, from the slots as read under the lock (copies:
    deciding moves versions in and out of ``current``)."""
    return {
        k: Slot([dict(v) for v in st.current], st.max_version, st.fresh) for k, st in states.items()
    }


def corroborates(existing: dict[str, Any], cf: CheckedFact, now: datetime) -> bool:
    """Whether re-asserting the same object only adds evidence to ``existing``.

    Not when the write outranks it (a user confirming an inference, an admin confirming a
    user: the claim moves up a tier), and not when ``existing`` is no longer served (expired,
    or past its TTL): then the write makes a fresh version with its own tier and TTL.
    """
    if TIER_RANK[cf.tier] > TIER_RANK[Tier(existing["tier"])]:
        return False
    if existing["status"] not in ("active", "candidate"):
        return False
    return served(existing, now)


def served(version: dict[str, Any], now: datetime) -> bool:
    """Not past its TTL at ``now`` (a version as fact.write_state reads it)."""
    expires_ms = version.get("expires_ms")
    return expires_ms is None or expires_ms > now.timestamp() * 1000
