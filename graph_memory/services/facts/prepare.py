"""Everything a fact batch can decide before it takes a lock.

The gate's verdicts, the citation-scope check, the embeddings, and which locks the batch needs
(the scopes its items land in and cite, the idempotency key, the tenant lock when a predicate
is not registered yet) do not depend on the slots' current state, so they are done outside the
transaction: writers of one scope then hold its lock only for the read-decide-write itself.

What is read here can go stale only in ways the read under the locks sees: a contributor
forgotten meanwhile (the episodes are read again there), a predicate registered or removed
meanwhile (read again there). Scopes never change once written, so the locks chosen from them
stay right; an episode recorded after this read is locked by the write when it shows up.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graph_memory.db import Record
from graph_memory.domain import FactInput, Principal
from graph_memory.errors import GraphMemoryError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.write_state import Prelock
from graph_memory.services.facts import rules as fact_rules
from graph_memory.services.facts.citation_scope import refused
from graph_memory.services.facts.gate import CheckedFact, check_fact
from graph_memory.versions import FactVersion

if TYPE_CHECKING:
    from graph_memory.services.facts.writes import ItemResult

__all__ = ["CheckedItems", "PreparedBatch", "checked_items", "lock_plan"]

SlotKey = tuple[str, str, str]


@dataclass(frozen=True)
class PreparedBatch:
    """A batch ready for its transaction (``FactService.prepare``); ``write_prepared`` runs
    it in a transaction of the caller's, so it can share one with other writes."""

    principal: Principal
    policy: TenantPolicy
    items: tuple[FactInput, ...]
    idempotency_key: str | None
    request_hash: str
    refused: dict[int, ItemResult]  # the items already failed, by index
    checked: dict[int, CheckedFact]  # the items still to decide
    vectors: dict[int, list[float]]
    scopes: frozenset[str]  # scope locks to take (the idempotency key's included)
    # Where the items land, as far as known before the locks: per slot, the objects its items
    # name (of a many-valued slot only those objects' versions are read: fact.write_state).
    slots: dict[SlotKey, frozenset[str]]
    register: bool  # a predicate is not registered yet: take the tenant lock first


@dataclass(frozen=True)
class CheckedItems:
    """What the checks before any lock found."""

    refused: dict[int, ItemResult]
    checked: dict[int, CheckedFact]
    # The cited episodes and the predicates' registered cardinalities, as read now.
    episodes: dict[str, Record]
    registered: dict[str, str]
    # Each named premise's scope (a fact's scope never changes once written).
    premise_scopes: dict[str, str]


async def checked_items(
    principal: Principal,
    policy: TenantPolicy,
    items: list[FactInput],
    facts: FactRepository,
    prelock: Prelock,
    failed: type[ItemResult],
) -> CheckedItems:
    """The gate, a session token's scopes and the citation-scope check."""
    tenant = principal.tenant
    results: dict[int, ItemResult] = {}
    checked: dict[int, CheckedFact] = {}
    for i, item in enumerate(items):
        try:
            checked[i] = check_fact(item, principal, policy)
        except GraphMemoryError as e:
            results[i] = failed.failed(i, e)
    episode_ids = sorted({c.episode_id for f in items for c in f.citations})
    premise_ids = sorted({d for f in items for d in f.depends_on})
    names = sorted({cf.predicate for cf in checked.values()})
    episodes, premises, registered = await asyncio.gather(
        prelock.episodes(tenant, episode_ids),
        facts.get(tenant, premise_ids) if premise_ids else _no_versions(),
        prelock.predicates(tenant, names),
    )
    # Citations and premises stay inside what the fact's readers may see (every writer:
    # GraphQL, the clients, session ingestion); a forgotten contributor's episode is refused
    # for that by the write.
    visible = {k: e for k, e in episodes.items() if not e.get("forgotten")}
    bound = {k: v.scope for k, v in premises.items()}
    for i, err in fact_rules.check_token_scopes(principal, checked, episodes, bound).items():
        results[i] = failed.failed(i, err)
    for i, err in refused(items, visible, premises).items():
        if i in checked:
            del checked[i]
            results[i] = failed.failed(i, err)
    return CheckedItems(results, checked, episodes, registered, bound)


async def _no_versions() -> dict[str, FactVersion]:
    return {}


def lock_plan(
    checked: dict[int, CheckedFact],
    episodes: dict[str, Record],
    idempotency_key: str | None,
    premise_scopes: Mapping[str, str] | None = None,
) -> tuple[frozenset[str], dict[SlotKey, frozenset[str]]]:
    """The scope locks a batch takes before it reads what it decides on, the scope of every
    fact and of every episode it cites (a forget of that episode's user holds it), of every
    premise a fact depends on (a retraction of the premise holds it while it flags the
    premise's conclusions: a conclusion written beside it would be flagged by neither) and the
    idempotency key's, and the slots its items land in, each with the objects its items name
    there (of a many-valued slot only those objects' versions compete with the batch's:
    graph_memory/temporal)."""
    scopes: set[str] = set()
    bound = premise_scopes or {}
    for cf in checked.values():
        scopes.update(bound[p] for p in cf.item.depends_on if p in bound)
    slots: dict[SlotKey, set[str]] = {}
    for cf in checked.values():
        scope = fact_rules.scope_or_none(cf, episodes)
        if scope is not None:
            scopes.add(scope)
            slots.setdefault((scope, cf.subject_key, cf.predicate), set()).add(cf.object_key)
        for c in cf.item.citations:
            ep = episodes.get(c.episode_id)
            if ep is not None and ep.get("scope"):
                scopes.add(str(ep["scope"]))
    if idempotency_key:
        scopes.add(idempotency_lock(idempotency_key))
    return frozenset(scopes), {k: frozenset(v) for k, v in slots.items()}


# Keyed batches lock one of a fixed number of buckets by the key's hash: a lock node per key
# kept every key ever used in the graph, verbatim (a forgotten user's keys outlived them),
# and the tenant-wide lock (WriteLocks.everything) took one more node for each. Two keys in
# one bucket only wait for each other.
IDEMPOTENCY_LOCK_BUCKETS = 256


def idempotency_lock(record_key: str) -> str:
    digest = hashlib.sha256(record_key.encode("utf-8", "surrogatepass")).digest()
    return f"idempotency:#{int.from_bytes(digest[:4], 'big') % IDEMPOTENCY_LOCK_BUCKETS}"
