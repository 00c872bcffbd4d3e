"""Semantic memory writes: assert (new version / corroborate / supersede) and retract.

Time semantics: ``recordedAt`` is the server's clock at commit (belief time); ``validFrom``
defaults to the earliest cited episode's start (when the thing was said), ``validTo`` to open.
"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import FactInput, Principal, check_id, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import Conflict, GraphMemoryError, NotFound, TierConflict, ValidationError
from graph_memory.limits import Limits
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.idempotency import (
    IdempotencyRepository,
    IdempotentOperation,
    idempotency_record_key,
)
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.timeline import SlotKey, TimelineRepository
from graph_memory.repositories.write_state import (
    Prelock,
    PrelockRepository,
    WriteState,
    WriteStateRepository,
)
from graph_memory.services.audit import events as audit
from graph_memory.services.facts import effects as fact_effects
from graph_memory.services.facts import inline_timeline, predicates
from graph_memory.services.facts import rules as fact_rules
from graph_memory.services.facts.decide import decide_items
from graph_memory.services.facts.gate import CheckedFact, tier_for
from graph_memory.services.facts.prepare import PreparedBatch, checked_items, lock_plan
from graph_memory.services.facts.release import release_held
from graph_memory.services.facts.results import ItemResult
from graph_memory.services.facts.tier_guard import refuse_override
from graph_memory.services.trust.policy import enforce_capacity

__all__ = ["MAX_BATCH", "FactService", "ItemResult", "PreparedBatch"]

MAX_BATCH = 1_000


class FactService:
    def __init__(
        self,
        db: Database,
        embedder: Embedder | None,
        policy_for: Any,
        max_slot_versions: int = Limits.max_slot_versions,
    ) -> None:
        self.db = db
        self.max_slot_versions = max_slot_versions
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
        *,
        operation: IdempotentOperation = "facts",
    ) -> list[ItemResult]:
        """Write a batch; each item gets its own result, bad items never sink good ones.

        Raises ValidationError for a batch over MAX_BATCH, Conflict when an idempotency key is
        replayed with a different payload. Replaying the same key returns the first results.
        ``operation``: whose key it is (``remember`` writes its facts under its own keys, which
        no ``assertFacts`` key can name).
        """
        if len(items) > MAX_BATCH:
            raise ValidationError(f"batch of {len(items)} exceeds the limit of {MAX_BATCH}")
        if idempotency_key:
            check_id(idempotency_key, "idempotencyKey")
        record_key = (
            idempotency_record_key(operation, idempotency_key, principal.user_id)
            if idempotency_key
            else None
        )
        tenant = principal.tenant
        # Hashing a 1,000-item batch is not free: only a keyed batch needs it.
        request_hash = fact_rules.hash_items(items) if idempotency_key else ""
        if record_key:
            prior = await self.idem.get(tenant, record_key)
            if prior is not None:
                if prior["request_hash"] != request_hash:
                    raise Conflict("idempotency key reused with a different batch")
                return await self._replay(principal, items, prior["result"])
        batch = await self.prepare(principal, items, record_key, request_hash)

        async def work(tx: Tx) -> list[ItemResult]:
            return await self.write_prepared(tx, batch)

        # The whole batch's valid items commit together; the tier-conflict audit rides along.
        return await self.db.write_tx(work)

    async def _replay(
        self, principal: Principal, items: list[FactInput], stored: str
    ) -> list[ItemResult]:
        """A replay answers what the first call did, but never more than this caller may
        claim: an item of a source its role may not write is refused as on a first call (an
        agent replaying an admin's system-tier batch under its key is told FORBIDDEN, not
        that its write landed)."""
        policy = await self.policy(principal.tenant)
        out = [ItemResult(**r) for r in json.loads(stored)]
        for i, item in enumerate(items):
            try:
                tier_for(principal, item.source, policy)
            except GraphMemoryError as e:
                out[i] = ItemResult.failed(i, e)
        return out

    async def prepare(
        self,
        principal: Principal,
        items: list[FactInput],
        idempotency_key: str | None = None,
        request_hash: str = "",
        *,
        embed: bool = True,
        prelock: Prelock | None = None,
    ) -> PreparedBatch:
        """What does not depend on the slots' current state, done before any lock: the gate,
        the citation scopes, embeddings, and which locks the batch takes (services/facts/
        prepare.py). ``embed=False``: the caller embeds the checked items' texts itself (a
        session's ingestion, in one call for all its texts) and sets ``vectors``.
        ``prelock``: those reads, already started (PrelockAhead)."""
        policy = await self.policy(principal.tenant)
        found = await checked_items(
            principal,
            policy,
            items,
            self.facts,
            prelock or PrelockRepository(self.db),
            ItemResult,
        )
        checked = found.checked
        embeddings = await self._embed([c.text for c in checked.values()]) if embed else []
        vectors = dict(zip(checked.keys(), embeddings, strict=True)) if embeddings else {}
        scopes, slots = lock_plan(checked, found.episodes, idempotency_key, found.premise_scopes)
        return PreparedBatch(
            principal=principal,
            policy=policy,
            items=tuple(items),
            idempotency_key=idempotency_key,
            request_hash=request_hash,
            refused=found.refused,
            checked=checked,
            vectors=vectors,
            scopes=scopes,
            slots=slots,
            register=any(cf.predicate not in found.registered for cf in checked.values()),
        )

    async def write_prepared(self, tx: Tx, batch: PreparedBatch) -> list[ItemResult]:
        """Lock, read, decide and write a prepared batch in ``tx`` (the caller commits it, and
        retries it whole: this starts again from the prepared verdicts every time)."""
        tenant = batch.principal.tenant
        key = batch.idempotency_key
        if batch.register:
            # Registrations of one tenant are decided one at a time (taken before the scope
            # locks, as every writer does).
            await WriteLocks.tenant(tx, tenant)
        # Per scope, not per tenant: batches of different users write in parallel.
        state = await WriteStateRepository.lock_and_read(
            tx,
            tenant,
            batch.scopes,
            {c.episode_id for cf in batch.checked.values() for c in cf.item.citations},
            {cf.predicate for cf in batch.checked.values()},
            fact_rules.shared_slots(batch.slots, batch.checked),
        )
        state = await self._complete(tx, batch, state)
        # The clock is read under the locks, so recordedAt/supersededAt follow commit order
        # within each scope (and so within each of its slots), and never before a moment
        # already stamped in a slot the batch writes or on its scopes' locks (processes'
        # clocks differ).
        now = tx.clock(utcnow(), state.stamps())
        if key:
            # Checked again under the lock: of two concurrent replays only one writes.
            stored = await IdempotencyRepository.get_in_tx(tx, tenant, key)
            if stored is not None:
                if stored["request_hash"] != batch.request_hash:
                    raise Conflict("idempotency key reused with a different batch")
                # This caller's own refusals (its role's sources) stand over the first answer.
                first = [ItemResult(**r) for r in json.loads(stored["result"])]
                return [batch.refused.get(i, r) for i, r in enumerate(first)]
        # A retried transaction starts from the gate's verdicts, not a half-decided batch.
        attempt = dict(batch.refused)
        touched = await self._decide_and_write(
            tx,
            batch.principal,
            batch.policy,
            dict(batch.checked),
            batch.vectors,
            attempt,
            now,
            state,
        )
        ordered = [attempt[i] for i in range(len(batch.items))]
        # The timeline of the slots not settled in memory, in the same transaction.
        await TimelineRepository.settle(tx, tenant, [SlotKey(*k) for k in touched], now)
        if key:
            # Recorded in the same transaction: a crash cannot land the facts without it.
            await IdempotencyRepository.put_in_tx(
                tx,
                tenant,
                key,
                batch.request_hash,
                json.dumps([r.__dict__ for r in ordered]),
                now,
                sorted({c.episode_id for it in batch.items for c in it.citations}),
            )
        return ordered

    @staticmethod
    async def _complete(tx: Tx, batch: PreparedBatch, state: WriteState) -> WriteState:
        """What the read before the locks could not know: an episode recorded since (its
        scope and the slots of the items citing it are locked and read now, and a slot read
        for some objects is read again for every object its items now name), a predicate
        removed since (then the tenant lock is taken to register it again)."""
        tenant = batch.principal.tenant
        scopes, slots = lock_plan(batch.checked, state.episodes, None)
        more_scopes = scopes - batch.scopes
        more_slots = {
            k: objects
            for k, objects in slots.items()
            if k not in batch.slots or not objects <= batch.slots[k]
        }
        names = {cf.predicate for cf in batch.checked.values()}
        lost = not batch.register and any(n not in state.predicates for n in names)
        if not (more_scopes or more_slots or lost):
            return state
        if lost:
            # Out of the usual order (the tenant lock after scope locks): a writer waiting
            # the other way round is a deadlock Neo4j breaks, and the retry redoes the batch.
            await WriteLocks.tenant(tx, tenant)
        more = await WriteStateRepository.lock_and_read(
            tx,
            tenant,
            more_scopes,
            [],
            names if lost else [],
            _again(
                fact_rules.shared_slots(more_slots, batch.checked),
                fact_rules.shared_slots(batch.slots, batch.checked),
            ),
        )
        return WriteState(
            episodes=state.episodes,
            predicates={**state.predicates, **more.predicates},
            slots={**state.slots, **more.slots},  # a slot read again replaces its first read
        )

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
        state: WriteState,
    ) -> set[tuple[str, str, str]]:
        """Decide and write the batch; returns the (scope, subject, predicate) slots it may
        have changed whose timeline is still to settle from the store."""
        tenant = principal.tenant
        # Protected-namespace refusals were raised by the gate; they are audited alerts too.
        events = [
            audit.event(principal, "tier_conflict", "fact", "-", now, reason=r.error_message)
            for r in results.values()
            if r.error_code == TierConflict.code
        ]
        episodes = state.episodes
        _fail(results, fact_rules.check_citations(checked, episodes))
        _fail(results, fact_rules.check_token_scopes(principal, checked, episodes, {}))
        _fail(results, fact_rules.check_citation_scopes(checked, episodes))
        premises = await fact_rules.check_premises(tx, tenant, checked)
        _fail(results, premises.failed)
        cards, failed, registered = await fact_rules.cardinalities(
            tx, tenant, policy, checked, now, state.predicates
        )
        _fail(results, failed)
        # A registered cardinality is final and decides every later write: who set it is audited.
        events += predicates.registered_events(principal, registered, now)
        scopes = {i: fact_rules.scope_of(cf, episodes) for i, cf in checked.items()}
        rulings = await WriteStateRepository.tenant_rulings(
            tx,
            tenant,
            fact_rules.SHARED_SCOPE,
            fact_rules.RULING_TIERS,
            fact_rules.ruled_predicates(principal, checked, scopes, cards),
        )
        refused, conflicts = fact_rules.check_shared_truth(
            principal, checked, scopes, cards, state.slots, now, rulings
        )
        _fail(results, refused)
        events += conflicts
        _fail(
            results,
            fact_rules.check_slot_capacity(
                checked, scopes, cards, state.slots, self.max_slot_versions
            ),
        )
        slot_keys = {(scopes[i], cf.subject_key, cf.predicate) for i, cf in checked.items()}
        slots = fact_rules.slots_of({k: state.slots[k] for k in slot_keys})

        decided = decide_items(
            principal,
            policy,
            checked,
            vectors,
            results,
            now,
            episodes,
            premises,
            cards,
            slots,
            scopes,
        )
        creates, events = decided.creates, events + decided.events
        # A slot the batch only added versions to is settled in memory: the new versions'
        # segments are written with them, the stored ones' change right after. The others
        # are settled from the store once the batch is written (the caller).
        in_memory = slot_keys - decided.corroborated
        # Off the event loop, as TimelineRepository.settle: a batch of many overlapping
        # versions of one slot is seconds of the rule, which would stall every tenant.
        inline = await asyncio.to_thread(
            inline_timeline.settle_inline, creates, state.slots, in_memory, now
        )
        events += await fact_effects.settle(
            tx,
            principal,
            policy,
            fact_effects.Batch(
                results,
                creates,
                decided.evidence,
                decided.touches,
                decided.superseded,
                premises,
                episodes,
            ),
            now,
        )
        await TimelineRepository.apply(tx, tenant, inline.close, inline.delete, inline.create, now)
        # Per-user capacity: evict lowest-value memories, audited, in this same transaction.
        events += await enforce_capacity(tx, principal, policy, creates, now)
        await AuditRepository.record_in_tx(tx, tenant, events)
        return slot_keys - in_memory

    async def retract(self, principal: Principal, fact_id: str, reason: str | None) -> Record:
        """Retract the fact: belief ends now, the version stays in history as retracted.

        Raises NotFound (unknown id, or another tenant's), Conflict when it is already
        retracted, TierConflict when a lower tier tries to retract a higher-tier fact.
        """
        tenant = principal.tenant
        policy = await self.policy(tenant)

        async def work(tx: Tx) -> Record | TierConflict:
            await WriteLocks.facts(tx, tenant, [fact_id])
            # Read under the lock, never before a moment already in the fact's slot: times
            # follow commit order there whatever the clocks of other service processes.
            now = await TimelineRepository.clock(tx, tenant, [fact_id], utcnow())
            found = await FactRepository.get_in_tx(tx, tenant, [fact_id], forgotten=False)
            if fact_id not in found:
                raise NotFound(f"no fact {fact_id}")
            before = found[fact_id]
            if before.get("retracted_at") is not None:
                raise Conflict(f"fact {fact_id} is already retracted")
            refused = await refuse_override(tx, principal, policy, before, now, "retract")
            if refused is not None:
                return refused  # its audit event commits with the transaction
            # What it holds back from promotion while served, asked before it ends.
            held = await FactRepository.held_back(tx, tenant, fact_id, now)
            after = await FactRepository.retract(
                tx, tenant, fact_id, now, principal.actor, principal.user_id, reason
            )
            if after is None:
                raise NotFound(f"no fact {fact_id}")
            flagged = await FactRepository.flag_dependents(
                tx,
                tenant,
                [
                    {
                        "id": fact_id,
                        "reason": f"premise {fact_id} retracted at {now.isoformat()}",
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
            events += audit.flagged(principal, flagged, now, "retracted")
            # What it held back from promotion may be promoted now (services/facts/release).
            released = await release_held(tx, principal, policy, fact_id, held, now)
            events += released.events
            await AuditRepository.record_in_tx(tx, tenant, events)
            await TimelineRepository.settle_facts(tx, tenant, [fact_id, *released.changed], now)
            return after

        result: Record | TierConflict = await self.db.write_tx(work)
        if isinstance(result, TierConflict):
            raise result
        return result


def _again(
    wanted: dict[tuple[str, str, str], frozenset[str]],
    read: dict[tuple[str, str, str], frozenset[str]],
) -> dict[tuple[str, str, str], frozenset[str]]:
    """Slots to read again under the locks: a slot read before for some objects is read for
    those and the new ones, since the new read replaces the first."""
    return {k: objects | read.get(k, frozenset()) for k, objects in wanted.items()}


def _fail(results: dict[int, ItemResult], failed: dict[int, GraphMemoryError]) -> None:
    for i, err in failed.items():
        results[i] = ItemResult.failed(i, err)
