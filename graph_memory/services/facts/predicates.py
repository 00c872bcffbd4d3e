"""The predicate registry: each tenant says which predicates hold one value or many.

A predicate's cardinality decides whether a new object supersedes the old (ONE) or adds to
it (MANY); changing it later would reinterpret history, so a registered cardinality is final.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from graph_memory.db import Database, Tx
from graph_memory.domain import Cardinality, Principal, check_id, utcnow
from graph_memory.errors import Conflict, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.predicates import PredicateRepository
from graph_memory.services.audit import events as audit

__all__ = ["PredicateService", "registered_events"]

_PREDICATE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$")


class PredicateService:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.repo = PredicateRepository(db)

    async def list(self, principal: Principal, policy: TenantPolicy) -> dict[str, Cardinality]:
        """Registered predicates, over the built-in defaults (to a session token, those its
        scopes' facts use)."""
        registered = await self.repo.registered(principal.tenant, principal.scopes)
        out = dict(policy.default_cardinality)
        out.update({name: Cardinality(c) for name, c in registered.items()})
        return dict(sorted(out.items()))

    async def define(
        self, principal: Principal, defs: dict[str, Cardinality]
    ) -> dict[str, Cardinality]:
        """Register cardinalities; raises ValidationError for a bad name, Conflict when a
        predicate is already registered with the other cardinality."""
        for name in defs:
            # A registered name is a (tenant, name) index key, bounded as a fact's predicate is.
            check_id(name, "name")
            if not _PREDICATE.match(name):
                raise ValidationError(f"bad predicate name {name!r}", field="name")

        async def work(tx: Tx) -> dict[str, Cardinality]:
            await FactRepository.lock_tenant(tx, principal.tenant)
            have = await FactRepository.predicates(tx, principal.tenant, sorted(defs))
            for name, card in defs.items():
                if name in have and have[name] != card.value:
                    raise Conflict(f"predicate {name!r} is already {have[name]}", field="name")
            new = {n: c for n, c in defs.items() if n not in have}
            now = utcnow()
            await FactRepository.define_predicates(
                tx,
                principal.tenant,
                [
                    {
                        "name": n,
                        "cardinality": c.value,
                        "defined_by": principal.actor,
                        "defined_for": principal.user_id,
                    }
                    for n, c in new.items()
                ],
                now,
            )
            await AuditRepository.record_in_tx(
                tx, principal.tenant, registered_events(principal, new, now)
            )
            return defs

        return await self.db.write_tx(work)


def registered_events(
    principal: Principal, defs: dict[str, Cardinality], at: datetime
) -> list[dict[str, Any]]:
    """One audit event per predicate registered: a cardinality is final, so who set it and
    when is part of why later writes superseded or accumulated."""
    return [
        audit.event(
            principal,
            "define_predicate",
            "predicate",
            name,
            at,
            after={"name": name, "cardinality": card.value},
        )
        for name, card in sorted(defs.items())
    ]
