"""Per-tenant trust configuration (the write gate's policy) and the per-user capacity.

A tenant's override is JSON on its ``(:Tenant)`` node, merged over ``DEFAULT_POLICY`` when
loaded. Only the settings in ``OVERRIDABLE`` move: role caps never do (what a credential may
claim is security, not taste), and the built-in protected namespaces and service phrases can be
extended but not removed, so no tenant setting lets a user-tier write reach ``policy.*``.

Policies are cached per process for ``ttl_seconds``: the service is stateless and may run as
several processes, so a change made through another process is picked up within that window;
the process that made the change sees it at once.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.domain import Principal, Tier, utcnow
from graph_memory.errors import ValidationError
from graph_memory.policy import DEFAULT_POLICY, TenantPolicy, normalise_phrase
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.ingest import IngestRepository
from graph_memory.repositories.timeline import TimelineRepository
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.audit import events as audit

__all__ = [
    "OVERRIDABLE",
    "PolicyStore",
    "PolicyView",
    "apply_overrides",
    "enforce_capacity",
    "memory_value",
    "validate_overrides",
]

log = logging.getLogger("graph_memory.trust")

OVERRIDABLE = (
    "long_term_kinds",
    "short_term_kinds",
    "short_term_ttl_days",
    "sources",
    "protected_prefixes",
    "predicate_ttl_days",
    "promote_sessions",
    "min_text_chars",
    "min_summary_chars",
    "service_phrases",
    "user_capacity",
    "keep_raw_turns",
)
_KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_SOURCE = re.compile(r"^[a-z][a-z0-9_\-]{0,31}$")
_PREFIX = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*\.?$")
_BOUNDS = {
    "short_term_ttl_days": (1, 365),
    "promote_sessions": (1, 20),
    "min_text_chars": (1, 200),
    "min_summary_chars": (1, 500),
    "user_capacity": (1, 1_000_000),
}


def _int(name: str, value: Any) -> int:
    low, high = _BOUNDS.get(name, (1, 365))
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationError(f"{name} must be an integer in {low}..{high}", field=name)
    return value


def _names(name: str, value: Any, pattern: re.Pattern[str]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValidationError(f"{name} must be a list of strings", field=name)
    out = sorted({v.strip().lower() for v in value})
    bad = [v for v in out if not pattern.match(v)]
    if bad:
        raise ValidationError(f"{name}: bad entries {bad}", field=name)
    return out


def validate_overrides(raw: dict[str, Any]) -> dict[str, Any]:
    """Normalise a tenant override; raises ValidationError naming the offending setting."""
    unknown = sorted(set(raw) - set(OVERRIDABLE))
    if unknown:
        raise ValidationError(f"not configurable per tenant: {unknown}", field=unknown[0])
    out: dict[str, Any] = {}
    for name, value in raw.items():
        if value is None:
            continue
        if name in _BOUNDS:
            out[name] = _int(name, value)
        elif name == "keep_raw_turns":
            if not isinstance(value, bool):
                raise ValidationError("keep_raw_turns must be true or false", field=name)
            out[name] = value
        elif name in ("long_term_kinds", "short_term_kinds"):
            out[name] = _names(name, value, _KIND)
        elif name == "protected_prefixes":
            out[name] = _names(name, value, _PREFIX)
        elif name == "service_phrases":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValidationError("service_phrases must be a list of strings", field=name)
            out[name] = sorted({normalise_phrase(v) for v in value} - {""})
        elif name == "sources":
            if not isinstance(value, dict):
                raise ValidationError("sources must map a source to a tier", field=name)
            tiers = {t.value for t in Tier}
            for src, tier in value.items():
                if not _SOURCE.match(str(src)) or tier not in tiers:
                    raise ValidationError(f"bad source mapping {src!r}: {tier!r}", field=name)
            out[name] = {str(k): str(v) for k, v in sorted(value.items())}
        else:  # predicate_ttl_days
            if not isinstance(value, dict):
                raise ValidationError("predicate_ttl_days must map a prefix to days", field=name)
            for prefix, days in value.items():
                if not _PREFIX.match(str(prefix)):
                    raise ValidationError(f"bad predicate prefix {prefix!r}", field=name)
                _int(name, days)
            out[name] = {str(k): int(v) for k, v in sorted(value.items())}
    long_kinds = set(out.get("long_term_kinds", DEFAULT_POLICY.long_term_kinds))
    short_kinds = set(out.get("short_term_kinds", DEFAULT_POLICY.short_term_kinds))
    if not long_kinds | short_kinds:
        raise ValidationError("a tenant must keep at least one kind", field="long_term_kinds")
    both = sorted(long_kinds & short_kinds)
    if both:
        raise ValidationError(f"kinds both long- and short-term: {both}", field="short_term_kinds")
    return out


def apply_overrides(base: TenantPolicy, overrides: dict[str, Any]) -> TenantPolicy:
    """The effective policy: ``overrides`` (already validated) merged over ``base``."""
    changes: dict[str, Any] = {}
    for name in (
        "short_term_ttl_days",
        "promote_sessions",
        "min_text_chars",
        "min_summary_chars",
        "user_capacity",
        "keep_raw_turns",
    ):
        if name in overrides:
            changes[name] = overrides[name]
    for name in ("long_term_kinds", "short_term_kinds"):
        if name in overrides:
            changes[name] = frozenset(overrides[name])
    if "sources" in overrides:
        changes["source_tiers"] = {
            **base.source_tiers,
            **{k: Tier(v) for k, v in overrides["sources"].items()},
        }
    if "protected_prefixes" in overrides:
        extra = [p for p in overrides["protected_prefixes"] if p not in base.protected_prefixes]
        changes["protected_prefixes"] = (*base.protected_prefixes, *extra)
    if "predicate_ttl_days" in overrides:
        changes["predicate_ttl_days"] = {
            **base.predicate_ttl_days,
            **overrides["predicate_ttl_days"],
        }
    if "service_phrases" in overrides:
        changes["service_phrases"] = base.service_phrases | frozenset(overrides["service_phrases"])
    return replace(base, **changes)


@dataclass(frozen=True)
class PolicyView:
    policy: TenantPolicy
    overrides: dict[str, Any]
    version: int
    updated_at: datetime | None
    updated_by: str | None


class PolicyStore:
    def __init__(self, repo: TrustRepository, ttl_seconds: float = 5.0) -> None:
        self.repo = repo
        self.ttl = ttl_seconds
        self._cache: dict[str, tuple[float, TenantPolicy]] = {}

    async def policy_for(self, tenant: str) -> TenantPolicy:
        """The tenant's effective policy (cached); replaces the fixed default policy."""
        hit = self._cache.get(tenant)
        if hit is not None and hit[0] > time.monotonic():
            return hit[1]
        view = await self.describe(tenant)
        self._cache[tenant] = (time.monotonic() + self.ttl, view.policy)
        return view.policy

    async def describe(self, tenant: str) -> PolicyView:
        row = await self.repo.get_policy(tenant)
        return _view(row)

    async def configure(
        self, principal: Principal, changes: dict[str, Any], *, reset: bool = False
    ) -> PolicyView:
        """Apply ``changes`` (snake_case settings; each replaces that setting's override) on
        top of the tenant's override, or on a clean slate with ``reset``. Audited
        ('configure_tenant', before/after overrides). Raises ValidationError."""
        tenant = principal.tenant
        validate_overrides(changes)  # fail before opening a transaction

        async def work(tx: Tx) -> PolicyView:
            await FactRepository.lock_tenant(tx, tenant)
            now = utcnow()  # under the lock: event times follow commit order
            current = _view(await TrustRepository.get_policy_in_tx(tx, tenant))
            merged = validate_overrides({**({} if reset else current.overrides), **changes})
            after = _view(
                await TrustRepository.set_policy_in_tx(
                    tx, tenant, json.dumps(merged, sort_keys=True), now, principal.actor
                )
            )
            if current.policy.keep_raw_turns and not after.policy.keep_raw_turns:
                # Turning the keeping off ends what was kept, not only what comes next.
                await IngestRepository.drop_kept_turns(tx, tenant)
            await AuditRepository.record_in_tx(
                tx,
                tenant,
                [
                    audit.event(
                        principal,
                        "configure_tenant",
                        "tenant",
                        tenant,
                        now,
                        before=current.overrides,
                        after=merged,
                        reason="reset to defaults" if reset else None,
                    )
                ],
            )
            return after

        view: PolicyView = await self.repo.db.write_tx(work)
        self._cache.pop(tenant, None)
        return view


def _view(row: dict[str, Any] | None) -> PolicyView:
    raw = (row or {}).get("policy")
    overrides: dict[str, Any] = json.loads(raw) if raw else {}
    stamp = (row or {}).get("updated_at")
    updated_at: datetime | None = stamp.to_native() if stamp is not None else None
    return PolicyView(
        policy=apply_overrides(DEFAULT_POLICY, overrides),
        overrides=overrides,
        version=int((row or {}).get("version") or 0),
        updated_at=updated_at,
        updated_by=(row or {}).get("updated_by"),
    )


# -- capacity ---------------------------------------------------------------------------------
# Value of a memory, lowest evicted first (within the lowest tier first):
#   confidence x recency x (1 + ln(1 + retrieval_count)),
#   recency = 1 / (1 + days since last retrieved (or recorded) / RECENCY_DAYS).
# Expired facts are worth 0. System- and admin-tier facts are never evicted: they are the
# tenant's own records, not a user's accumulated memory. Mirrored in tenant/policy_evict.cypher.
RECENCY_DAYS = 30.0
EVICTION_ACTOR = "system:capacity"


def memory_value(
    confidence: float, days_idle: float, retrieval_count: int, expired: bool = False
) -> float:
    if expired:
        return 0.0
    recency = 1.0 / (1.0 + max(days_idle, 0.0) / RECENCY_DAYS)
    return confidence * recency * (1.0 + math.log1p(max(retrieval_count, 0)))


async def enforce_capacity(
    tx: Tx,
    principal: Principal,
    policy: TenantPolicy,
    creates: list[dict[str, Any]],
    now: datetime,
) -> list[dict[str, Any]]:
    """Evict the lowest-value memories of each user scope this batch grew past the tenant's
    ``user_capacity``; runs in the write's transaction, after the creates. Evicted facts are
    retracted (history keeps them, with the reason), their dependents flagged, and each
    eviction audited ('evict'). Facts created by this batch are never the ones evicted.
    Returns the audit events for the caller to record with the batch's own."""
    scopes = sorted({c["scope"] for c in creates if str(c["scope"]).startswith("user:")})
    if not scopes:
        return []
    tenant = principal.tenant
    evicted = await TrustRepository.evict_over_capacity(
        tx,
        tenant,
        scopes,
        policy.user_capacity,
        [c["id"] for c in creates],
        now,
        EVICTION_ACTOR,
        RECENCY_DAYS,
    )
    if not evicted:
        return []
    log.warning(
        "tenant %s: evicted %d memories over user capacity %d",
        tenant,
        len(evicted),
        policy.user_capacity,
    )
    events = [
        audit.event(
            principal,
            "evict",
            "fact",
            e["id"],
            now,
            actor=EVICTION_ACTOR,
            actor_type="system",
            confidence_delta=-float(e["confidence"] or 0.0),
            before={
                "status": e["status_before"],
                "tier": e["tier"],
                "confidence": e["confidence"],
                "value": round(e["value"], 6),
            },
            after={"status": "retracted"},
            reason=e["reason"],
        )
        for e in evicted
    ]
    flagged = await FactRepository.flag_dependents(
        tx,
        tenant,
        [
            {
                "id": e["id"],
                "reason": f"premise {e['id']} evicted at {now.isoformat()} (user capacity)",
            }
            for e in evicted
        ],
        now,
    )
    events += audit.flagged(
        principal, flagged, now, "evicted", actor=EVICTION_ACTOR, actor_type="system"
    )
    await TimelineRepository.settle_facts(tx, tenant, [e["id"] for e in evicted], now)
    return events
