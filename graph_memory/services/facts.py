"""Semantic memory writes: assert (new version / corroborate / supersede) and retract.

Time semantics: ``recordedAt`` is the server's clock at commit (belief time); ``validFrom``
defaults to the earliest cited episode's start (when the thing was said), ``validTo`` to open.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import (
    TIER_RANK,
    Cardinality,
    FactInput,
    Principal,
    Tier,
    parse_scope,
    utcnow,
)
from graph_memory.embeddings import Embedder
from graph_memory.errors import (
    Conflict,
    GraphMemoryError,
    NotFound,
    TierConflict,
    ValidationError,
)
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.idempotency import IdempotencyRepository
from graph_memory.services import audit, fact_rows
from graph_memory.services.gate import CheckedFact, check_fact
from graph_memory.services.trust import enforce_capacity

__all__ = ["MAX_BATCH", "FactService", "ItemResult"]

MAX_BATCH = 1_000


@dataclass
class ItemResult:
    index: int
    ok: bool
    action: str | None = None  # created | superseded | corroborated | unchanged
    fact_id: str | None = None
    version: int | None = None
    status: str | None = None
    confidence: float | None = None
    supersedes: str | None = None
    error_code: str | None = None
    error_message: str | None = None
    error_field: str | None = None

    @classmethod
    def failed(cls, index: int, err: GraphMemoryError) -> ItemResult:
        return cls(
            index=index,
            ok=False,
            error_code=err.code,
            error_message=err.message,
            error_field=err.field,
        )


@dataclass
class _Slot:
    """What the batch knows about one (scope, subject, predicate) while deciding."""

    current: list[dict[str, Any]] = field(default_factory=list)
    max_version: int = 0


class FactService:
    def __init__(self, db: Database, embedder: Embedder | None, policy_for: Any) -> None:
        self.db = db
        self.facts = FactRepository(db)
        self.audit = AuditRepository(db)
        self.idem = IdempotencyRepository(db)
        self.embedder = embedder
        self._policy_for = policy_for

    async def policy(self, tenant: str) -> TenantPolicy:
        policy: TenantPolicy = await self._policy_for(tenant)
        return policy

    async def assert_facts(
        self,
        principal: Principal,
        items: list[FactInput],
        idempotency_key: str | None = None,
    ) -> list[ItemResult]:
        """Write a batch; each item gets its own result, bad items never sink good ones.

        Raises ValidationError for a batch over MAX_BATCH, Conflict when an idempotency key is
        replayed with a different payload. Replaying the same key returns the first results.
        """
        if len(items) > MAX_BATCH:
            raise ValidationError(f"batch of {len(items)} exceeds the limit of {MAX_BATCH}")
        tenant = principal.tenant
        request_hash = _hash_items(items)
        if idempotency_key:
            prior = await self.idem.get(tenant, f"facts:{idempotency_key}")
            if prior is not None:
                if prior["request_hash"] != request_hash:
                    raise Conflict("idempotency key reused with a different batch")
                return [ItemResult(**r) for r in json.loads(prior["result"])]
        policy = await self.policy(tenant)
        results: dict[int, ItemResult] = {}
        checked: dict[int, CheckedFact] = {}
        for i, item in enumerate(items):
            try:
                checked[i] = check_fact(item, principal, policy)
            except GraphMemoryError as e:
                results[i] = ItemResult.failed(i, e)
        embeddings = await self._embed([c.text for c in checked.values()])
        vectors = dict(zip(checked.keys(), embeddings, strict=True)) if embeddings else {}

        async def work(tx: Tx) -> list[ItemResult]:
            await FactRepository.lock_tenant(tx, tenant)
            # The clock is read under the lock, so recordedAt/supersededAt follow commit order.
            now = utcnow()
            if idempotency_key:
                # Checked again under the lock: of two concurrent replays only one writes.
                stored = await IdempotencyRepository.get_in_tx(
                    tx, tenant, f"facts:{idempotency_key}"
                )
                if stored is not None:
                    if stored["request_hash"] != request_hash:
                        raise Conflict("idempotency key reused with a different batch")
                    return [ItemResult(**r) for r in json.loads(stored["result"])]
            # A retried transaction starts from the gate's verdicts, not a half-decided batch.
            attempt = dict(results)
            await self._decide_and_write(
                tx, principal, policy, dict(checked), vectors, attempt, now
            )
            ordered = [attempt[i] for i in range(len(items))]
            if idempotency_key:
                # Recorded in the same transaction: a crash cannot land the facts without it.
                await IdempotencyRepository.put_in_tx(
                    tx,
                    tenant,
                    f"facts:{idempotency_key}",
                    request_hash,
                    json.dumps([r.__dict__ for r in ordered]),
                    now,
                )
            return ordered

        # The whole batch's valid items commit together; the tier-conflict audit rides along.
        return await self.db.write_tx(work)

    async def _embed(self, texts: list[str]) -> list[list[float]]:
        if not texts or self.embedder is None:
            return []
        return await self.embedder.embed(texts)

    async def _decide_and_write(
        self,
        tx: Tx,
        principal: Principal,
        policy: TenantPolicy,
        checked: dict[int, CheckedFact],
        vectors: dict[int, list[float]],
        results: dict[int, ItemResult],
        now: datetime,
    ) -> list[dict[str, Any]]:
        tenant = principal.tenant
        # Protected-namespace refusals were raised by the gate; they are audited alerts too.
        events = [
            audit.event(principal, "tier_conflict", "fact", "-", now, reason=r.error_message)
            for r in results.values()
            if r.error_code == TierConflict.code
        ]
        cited_ids = sorted({c.episode_id for cf in checked.values() for c in cf.item.citations})
        episodes = await FactRepository.cited_episodes(tx, tenant, cited_ids) if cited_ids else {}
        for i, cf in list(checked.items()):
            missing = [c.episode_id for c in cf.item.citations if c.episode_id not in episodes]
            if missing:
                results[i] = ItemResult.failed(
                    i, NotFound(f"unknown episode(s) {missing}", field="episodes")
                )
                del checked[i]
        await self._check_premises(tx, tenant, checked, results)
        cards = await self._cardinalities(tx, tenant, policy, checked, results, now)
        scopes = {i: self._scope_of(cf, episodes) for i, cf in checked.items()}
        slot_keys = {(scopes[i], cf.subject_key, cf.predicate) for i, cf in checked.items()}
        slots: dict[tuple[str, str, str], _Slot] = {k: _Slot() for k in slot_keys}
        for row in await FactRepository.current_slots(
            tx, tenant, [{"scope": s, "subject": su, "predicate": p} for s, su, p in slot_keys]
        ):
            slot = slots[(row["scope"], row["subject"], row["predicate"])]
            slot.max_version = max(slot.max_version, int(row["max_version"]))
            if row["id"] is not None:
                slot.current.append(dict(row))

        creates: list[dict[str, Any]] = []
        evidence: list[dict[str, Any]] = []
        superseded: list[dict[str, str]] = []
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
            same = next((v for v in slot.current if v["object_key"] == cf.object_key), None)
            if same is not None and _corroborates(same, cf, now):
                evidence.append({"id": same["id"], "citations": cites})
                results[i] = ItemResult(
                    index=i,
                    ok=True,
                    action="corroborated",
                    fact_id=same["id"],
                    version=same["version"],
                )
                continue
            # A new version replaces the slot's current one (ONE), or the same object's own
            # version when it cannot simply be corroborated (MANY: expired, or a higher tier).
            if cards[cf.predicate] is Cardinality.ONE:
                prior = max(slot.current, key=lambda v: v["version"]) if slot.current else None
            else:
                prior = same
            if prior is not None and TIER_RANK[cf.tier] < TIER_RANK[Tier(prior["tier"])]:
                err = TierConflict(
                    f"{cf.tier.value}-tier write would override a {prior['tier']}-tier fact "
                    f"on ({cf.subject_key}, {cf.predicate})",
                    field="object",
                )
                results[i] = ItemResult.failed(i, err)
                events.append(
                    audit.event(
                        principal, "tier_conflict", "fact", prior["id"], now, reason=err.message
                    )
                )
                continue
            row = fact_rows.new_row(
                i,
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
            )
            slot.max_version += 1
            creates.append(row)
            new_version = {
                "id": row["id"],
                "object_key": cf.object_key,
                "tier": cf.tier.value,
                "status": row["status"],
                "version": row["version"],
            }
            if prior is not None:
                slot.current = [v for v in slot.current if v["id"] != prior["id"]]
                superseded.append(
                    {
                        "id": prior["id"],
                        "reason": f"premise {prior['id']} ({cf.subject_key} {cf.predicate}) "
                        f"superseded by {row['id']} at {now.isoformat()}",
                    }
                )
            slot.current.append(new_version)
            results[i] = ItemResult(
                index=i,
                ok=True,
                action="superseded" if prior else "created",
                fact_id=row["id"],
                version=row["version"],
                supersedes=prior["id"] if prior else None,
            )

        await FactRepository.write_versions(tx, tenant, creates, now)
        await FactRepository.add_evidence(tx, tenant, evidence, now)
        # New versions got their confidence from their citations; only corroborated ones
        # need the evidence recounted from their edges.
        recomputed = await FactRepository.recompute_confidence(
            tx, tenant, sorted({e["id"] for e in evidence}), policy.promote_sessions, now
        )
        by_id = {r["id"]: r for r in recomputed}
        for fact_id, rec in fact_rows.created_confidence(creates).items():
            # A version created and corroborated in one batch: the recount is the truth.
            by_id.setdefault(fact_id, rec)
        for r in results.values():
            if r.ok and r.fact_id in by_id:
                r.status = by_id[r.fact_id]["status"]
                r.confidence = by_id[r.fact_id]["after"]
        events += fact_rows.write_events(principal, results, creates, by_id, now)
        flagged = await FactRepository.flag_dependents(tx, tenant, superseded, now)
        events += [
            audit.event(
                principal,
                "flag_needs_verification",
                "fact",
                f["id"],
                now,
                reason=f"premise {f['premise']} superseded",
            )
            for f in flagged
        ]
        # Per-user capacity: evict lowest-value memories, audited, in this same transaction.
        events += await enforce_capacity(tx, principal, policy, creates, now)
        await AuditRepository.record_in_tx(tx, tenant, events)
        return events

    @staticmethod
    async def _check_premises(
        tx: Tx, tenant: str, checked: dict[int, CheckedFact], results: dict[int, ItemResult]
    ) -> None:
        """A dependsOn that names no fact of this tenant would silently never cascade."""
        wanted = sorted({p for cf in checked.values() for p in cf.item.depends_on})
        if not wanted:
            return
        found = await FactRepository.get_in_tx(tx, tenant, wanted)
        for i, cf in list(checked.items()):
            missing = [p for p in cf.item.depends_on if p not in found]
            if missing:
                results[i] = ItemResult.failed(
                    i, NotFound(f"unknown premise fact(s) {missing}", field="dependsOn")
                )
                del checked[i]

    async def _cardinalities(
        self,
        tx: Tx,
        tenant: str,
        policy: TenantPolicy,
        checked: dict[int, CheckedFact],
        results: dict[int, ItemResult],
        now: datetime,
    ) -> dict[str, Cardinality]:
        names = sorted({cf.predicate for cf in checked.values()})
        registered = await FactRepository.predicates(tx, tenant, names)
        known: dict[str, Cardinality] = {n: Cardinality(c) for n, c in registered.items()}
        new_defs: dict[str, Cardinality] = {}
        for i, cf in list(checked.items()):
            declared = cf.item.cardinality
            have = known.get(cf.predicate) or new_defs.get(cf.predicate)
            if have is None:
                have = declared or policy.default_cardinality.get(cf.predicate)
                if have is None:
                    results[i] = ItemResult.failed(
                        i,
                        ValidationError(
                            f"unknown predicate cardinality for {cf.predicate!r}: pass cardinality "
                            "ONE or MANY once (it is then registered for the tenant)",
                            field="cardinality",
                        ),
                    )
                    del checked[i]
                    continue
                new_defs[cf.predicate] = have
            elif declared is not None and declared is not have:
                results[i] = ItemResult.failed(
                    i,
                    Conflict(
                        f"predicate {cf.predicate!r} is registered as {have.value}, "
                        f"not {declared.value}",
                        field="cardinality",
                    ),
                )
                del checked[i]
        await FactRepository.define_predicates(
            tx, tenant, [{"name": n, "cardinality": c.value} for n, c in new_defs.items()], now
        )
        return {**known, **new_defs}

    @staticmethod
    def _scope_of(cf: CheckedFact, episodes: dict[str, Record]) -> str:
        if cf.item.scope:
            return parse_scope(cf.item.scope)
        return str(episodes[cf.item.citations[0].episode_id]["scope"])

    async def retract(self, principal: Principal, fact_id: str, reason: str | None) -> Record:
        """Retract the fact: belief ends now, the version stays in history as retracted.

        Raises NotFound (unknown id, or another tenant's), Conflict when it is already
        retracted, TierConflict when a lower tier tries to retract a higher-tier fact.
        """
        tenant = principal.tenant
        policy = await self.policy(tenant)
        now = utcnow()

        async def work(tx: Tx) -> Record:
            await FactRepository.lock_tenant(tx, tenant)
            found = await FactRepository.get_in_tx(tx, tenant, [fact_id])
            if fact_id not in found:
                raise NotFound(f"no fact {fact_id}")
            before = found[fact_id]
            if before.get("retracted_at") is not None:
                raise Conflict(f"fact {fact_id} is already retracted")
            cap = policy.role_caps[principal.role]
            if TIER_RANK[cap] < TIER_RANK[Tier(before["tier"])]:
                await AuditRepository.record_in_tx(
                    tx,
                    tenant,
                    [
                        audit.event(
                            principal,
                            "tier_conflict",
                            "fact",
                            fact_id,
                            now,
                            reason=f"{cap.value} cannot retract a {before['tier']}-tier fact",
                        )
                    ],
                )
                raise TierConflict(f"{cap.value} tier cannot retract a {before['tier']}-tier fact")
            after = await FactRepository.retract(tx, tenant, fact_id, now, principal.actor, reason)
            if after is None:
                raise NotFound(f"no fact {fact_id}")
            flagged = await FactRepository.flag_dependents(
                tx,
                tenant,
                [
                    {
                        "id": fact_id,
                        "reason": f"premise {fact_id} "
                        f"({before.get('caption')}) retracted at {now.isoformat()}",
                    }
                ],
                now,
            )
            events = [
                audit.event(
                    principal,
                    "retract",
                    "fact",
                    fact_id,
                    now,
                    before=before,
                    after=after,
                    reason=reason,
                    confidence_delta=-(before.get("confidence") or 0.0),
                )
            ]
            events += [
                audit.event(
                    principal,
                    "flag_needs_verification",
                    "fact",
                    f["id"],
                    now,
                    reason=f"premise {fact_id} retracted",
                )
                for f in flagged
            ]
            await AuditRepository.record_in_tx(tx, tenant, events)
            return after

        result: Record = await self.db.write_tx(work)
        return result


def _hash_items(items: list[FactInput]) -> str:
    return hashlib.sha256(
        json.dumps([i.__dict__ for i in items], default=str, sort_keys=True).encode()
    ).hexdigest()


def _corroborates(existing: dict[str, Any], cf: CheckedFact, now: datetime) -> bool:
    """Whether re-asserting the same object only adds evidence to ``existing``.

    Not when the write outranks it (a user confirming an inference, an admin confirming a
    user: the claim moves up a tier), and not when ``existing`` is no longer served (expired,
    or past its TTL): then the write makes a fresh version with its own tier and TTL.
    """
    if TIER_RANK[cf.tier] > TIER_RANK[Tier(existing["tier"])]:
        return False
    if existing["status"] not in ("active", "candidate"):
        return False
    expires = fact_rows.native(existing.get("expires_at"))
    return expires is None or expires > now
