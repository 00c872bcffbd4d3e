"""Where each item of a batch lands, decided in memory from the slots read under the lock.

Per item, in batch order (an item sees the versions the items before it created): refused
(an end before its start, a lower tier overriding a higher one), corroborating a version the
slot holds (evidence only), or a new version (superseding the one in force where it starts).
No I/O: the caller writes what this returns (services/facts/effects.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import TIER_RANK, Cardinality, Principal, Tier
from graph_memory.errors import TierConflict, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.services.audit import events as audit
from graph_memory.services.facts import rows as fact_rows
from graph_memory.services.facts import rules as fact_rules
from graph_memory.services.facts import validity
from graph_memory.services.facts.confidence_steps import Touch
from graph_memory.services.facts.gate import CheckedFact
from graph_memory.services.facts.results import ItemResult
from graph_memory.services.facts.rules import Premises, Slot

__all__ = ["Decided", "decide_items"]

SlotKey = tuple[str, str, str]


@dataclass
class Decided:
    """The batch's new version rows, the evidence for versions already held, every accepted
    item's touch, the premises it supersedes, the slots where an item only corroborated, and
    the audit events of refused overrides."""

    creates: list[dict[str, Any]] = field(default_factory=list)
    evidence: list[dict[str, Any]] = field(default_factory=list)
    touches: list[Touch] = field(default_factory=list)
    superseded: list[dict[str, str]] = field(default_factory=list)
    corroborated: set[SlotKey] = field(default_factory=set)
    events: list[dict[str, Any]] = field(default_factory=list)


def decide_items(
    principal: Principal,
    policy: TenantPolicy,
    checked: dict[int, CheckedFact],
    vectors: dict[int, list[float]],
    results: dict[int, ItemResult],
    now: datetime,
    episodes: dict[str, Record],
    premises: Premises,
    cards: dict[str, Cardinality],
    slots: dict[SlotKey, Slot],
    scopes: dict[int, str],
) -> Decided:
    """Decide every checked item; each one's result goes into ``results``."""
    out = Decided()
    creates, evidence, touches = out.creates, out.evidence, out.touches
    superseded, corroborated, events = out.superseded, out.corroborated, out.events
    for i, cf in sorted(checked.items()):
        key = (scopes[i], cf.subject_key, cf.predicate)
        slot = slots[key]
        cites = [
            {
                "episode_id": c.episode_id,
                "weight": c.weight
                if c.weight is not None
                else float(episodes[c.episode_id]["confidence"] or 0.5),
            }
            for c in cf.item.citations
        ]
        claim = fact_rows.claimed_validity(cf, episodes, now, slot.current, premises.ends.get(i))
        valid_from, valid_to = claim.valid_from, claim.valid_to
        if cf.valid_to is not None and cf.valid_to <= valid_from:
            results[i] = ItemResult.failed(
                i,
                ValidationError(
                    f"validTo {cf.valid_to.isoformat()} is not after validFrom "
                    f"{valid_from.isoformat()} (defaulted to when the cited episode began)",
                    field="validTo",
                ),
            )
            continue
        # Each link keeps what its telling said: a forget of the others rebuilds the version
        # from it (graph_memory/temporal/withdrawal.py).
        cites = [{**c, **fact_rows.link_claim(cf, claim)} for c in cites]
        told = fact_rows.told_at(cf, episodes, now)
        spot = validity.place(
            slot.current,
            cf.object_key,
            cards[cf.predicate],
            valid_from,
            valid_to,
            told=told,
            stated=claim.stated,
            explicit=claim.explicit,
        )
        same = spot.same
        if same is not None and fact_rules.corroborates(same, cf, now):
            evidence.append({"id": same["id"], "citations": cites})
            corroborated.add(key)
            touches.append(Touch(i, same["id"], cites, created=False))
            # Told again: it now counts as said at its latest telling (add_evidence).
            same["told_us"] = max(same.get("told_us") or 0, validity.micros(told) or 0)
            results[i] = ItemResult(
                index=i,
                ok=True,
                action="corroborated",
                fact_id=same["id"],
                version=same["version"],
            )
            continue
        # The new version supersedes the one in force where it starts (ONE: any object;
        # MANY: the same object's); see services/facts/validity.py. A candidate only links
        # to it (Placement.supersedes).
        active = fact_rows.starts_active(cf, cites, episodes, policy.promote_sessions)
        prior = spot.supersedes(active)
        # Not only the newest: a lower-tier version in between (one that only interrupted a
        # higher-tier fact) must not let this write end the higher-tier one.
        top = max(spot.ended, key=lambda v: TIER_RANK[Tier(v["tier"])], default=None)
        if top is not None and TIER_RANK[cf.tier] < TIER_RANK[Tier(top["tier"])]:
            err = TierConflict(
                f"{cf.tier.value}-tier write would override a {top['tier']}-tier fact "
                f"on ({cf.subject_key}, {cf.predicate})",
                field="object",
            )
            results[i] = ItemResult.failed(i, err)
            events.append(
                audit.event(principal, "tier_conflict", "fact", top["id"], now, reason=err.message)
            )
            continue
        row = fact_rows.new_row(
            cf,
            key[0],
            cards[cf.predicate],
            cites,
            prior,
            principal,
            vectors.get(i),
            episodes,
            now,
            policy.promote_sessions,
            slot.max_version + 1,
            claim,
            told,
        )
        slot.max_version += 1
        creates.append(row)
        touches.append(Touch(i, row["id"], cites, created=True))
        new_version = {
            "id": row["id"],
            "object_key": cf.object_key,
            "tier": cf.tier.value,
            "status": row["status"],
            "version": row["version"],
            "valid_from_us": validity.micros(valid_from),
            "valid_to_us": validity.micros(valid_to),
            "valid_from_stated": claim.stated,
            "told_us": validity.micros(told),
        }
        if prior is not None and active:
            slot.current = [v for v in slot.current if v["id"] != prior["id"]]
            superseded.append(fact_rows.premise_superseded(prior["id"], row["id"], now))
        slot.current.append(new_version)
        results[i] = ItemResult(
            index=i,
            ok=True,
            action="superseded" if prior and active else "created",
            fact_id=row["id"],
            version=row["version"],
            supersedes=prior["id"] if prior else None,
        )
    return out
