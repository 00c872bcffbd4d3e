"""Fact versions, their evidence and their dependency edges."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph_memory.db import Database, Record, Tx
from graph_memory.domain import session_key, utcnow
from graph_memory.repositories._scope import require_scopes, require_tenant
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.shadow import in_flight_page, resolve_touched, touched_slot
from graph_memory.repositories.timeline import SlotKey
from graph_memory.versions import Evidence, FactDependencies, FactVersion

__all__ = ["FactRepository"]

# Temporal properties written by fact.create from ISO strings or the transaction clock.
# Sent as ISO text and converted by datetime() in the query: the driver packs a Python
# datetime in about 50 us, several per fact, which was most of a batch's client time.
_TIMES = frozenset(
    {"recorded_at", "activated_at", "valid_from", "valid_to", "expires_at", "told_at"}
)


def _iso(value: datetime | None) -> str | None:
    """Datetimes cross Bolt as ISO text in bulk writes: the driver's per-value datetime
    encoding is ~50 us each in Python, which dominated a 1,000-fact batch."""
    return value.isoformat() if value is not None else None


class FactRepository:
    def __init__(self, db: Database) -> None:
        self.db = db

    # -- inside a write transaction -------------------------------------------------------
    @staticmethod
    async def lock_tenant(tx: Tx, tenant: str) -> None:
        await WriteLocks.tenant(tx, tenant)

    @staticmethod
    async def predicates(tx: Tx, tenant: str, names: list[str]) -> dict[str, str]:
        rows = await tx.run("predicate.lookup", {"tenant": require_tenant(tenant), "names": names})
        return {r["name"]: r["cardinality"] for r in rows}

    @staticmethod
    async def define_predicates(
        tx: Tx, tenant: str, rows: list[dict[str, str | None]], now: datetime
    ) -> None:
        if rows:
            await tx.run("predicate.define", {"tenant": tenant, "rows": rows, "now": now})

    @staticmethod
    async def write_versions(
        tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime
    ) -> None:
        """New versions with subject, evidence, embedding, dependency and supersession edges,
        and the segments of the slots the batch opened (``row["segments"]``, optional).

        One statement for what every version has (fact.create); the edges few batches have
        (objects, premises, supersession) are flat statements of their own, so the planner
        keeps each a straight pipeline and a plain batch pays one round trip.
        """
        if not rows:
            return
        tenant = require_tenant(tenant)
        await tx.run(
            "fact.create",
            {
                "tenant": tenant,
                "now": now,
                "rows": [
                    {
                        "props": {k: v for k, v in r["props"].items() if k not in _TIMES},
                        "active": r["props"].get("activated_at") is not None,
                        "valid_from": _iso(r["props"].get("valid_from")),
                        "valid_to": _iso(r["props"].get("valid_to")),
                        "expires_at": _iso(r["props"].get("expires_at")),
                        "told_at": _iso(r["props"].get("told_at")),
                        "citations": r["citations"],
                        "embedding": r["embedding"] or None,
                        "segments": r.get("segments") or [],
                        **{k: r[k] for k in ("subject", "subject_id", "subject_name")},
                    }
                    for r in rows
                ],
            },
        )
        objects = [
            {k: r[k] for k in ("id", "object", "object_key", "object_id")}
            for r in rows
            if r["object_is_entity"]
        ]
        if objects:
            await tx.run("fact.link_objects", {"tenant": tenant, "rows": objects, "now": now})
        depends = [{"fact_id": r["id"], "premise_id": p} for r in rows for p in r["depends_on"]]
        if depends:
            await tx.run("fact.link_depends", {"tenant": tenant, "rows": depends})
        closing = [
            {"old": r["supersedes"], "new": r["id"], "active": r["status"] == "active"}
            for r in rows
            if r["supersedes"]
        ]
        if closing:
            await tx.run("fact.close_superseded", {"tenant": tenant, "rows": closing, "now": now})

    @staticmethod
    async def add_evidence(tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime) -> None:
        if rows:
            await tx.run("fact.add_evidence", {"tenant": tenant, "rows": rows, "now": now})

    @staticmethod
    async def evidence_before(tx: Tx, tenant: str, ids: list[str]) -> dict[str, Record]:
        """Versions with their evidence, read before a batch adds to it."""
        if not ids:
            return {}
        rows = await tx.run("fact.evidence_before", {"tenant": require_tenant(tenant), "ids": ids})
        for r in rows:
            for e in r["evidence"]:
                e["session"] = session_key(e["user_id"], e["session_id"])
        return {r["id"]: r for r in rows}

    @staticmethod
    async def flag(tx: Tx, tenant: str, rows: list[dict[str, Any]], now: datetime) -> None:
        """Flag these versions needs-verification, each with its reason (rows: id, reason)."""
        if rows:
            await tx.run("fact.flag", {"tenant": require_tenant(tenant), "rows": rows, "now": now})

    @staticmethod
    async def reverify(tx: Tx, tenant: str, ids: list[str], now: datetime) -> list[Record]:
        if not ids:
            return []
        return await tx.run("fact.reverify", {"tenant": tenant, "ids": ids, "now": now})

    @staticmethod
    async def held_back(tx: Tx, tenant: str, fact_id: str, now: datetime) -> dict[str, str]:
        """The candidates the version ``fact_id`` holds back from promotion, by id, with
        their scopes (fact.held_back)."""
        rows = await tx.run(
            "fact.held_back", {"tenant": require_tenant(tenant), "id": fact_id, "now": now}
        )
        return {str(r["id"]): str(r["scope"]) for r in rows}

    @staticmethod
    async def promotion_ends(tx: Tx, tenant: str, ids: list[str]) -> list[str]:
        """What promoting these versions would change besides them: the versions they would
        end and those versions' conclusions (fact.promotion_ends)."""
        if not ids:
            return []
        rows = await tx.run("fact.promotion_ends", {"tenant": require_tenant(tenant), "ids": ids})
        return sorted({str(x) for r in rows for x in r["ends"]})

    @staticmethod
    async def recompute_confidence(
        tx: Tx,
        tenant: str,
        ids: list[str],
        promote_sessions: int,
        now: datetime | None = None,
        *,
        promote: bool = True,
    ) -> list[Record]:
        """Confidence from evidence, and candidates at ``promote_sessions`` promoted unless
        ``promote`` is off."""
        if not ids:
            return []
        return await tx.run(
            "fact.recompute_confidence",
            {
                "tenant": require_tenant(tenant),
                "ids": ids,
                "promote_sessions": promote_sessions,
                "promote": promote,
                "now": now or utcnow(),
            },
        )

    @staticmethod
    async def flag_dependents(
        tx: Tx, tenant: str, premises: list[dict[str, str]], now: datetime
    ) -> list[Record]:
        if not premises:
            return []
        # Conclusions may live in other scopes than their premise (a user's conclusion from a
        # tenant policy): flagging writes there, so under those scopes' locks too, as every
        # writer of a scope (a read as of a moment waits on them: services/read_basis.py).
        # Taken after the clock, a lock whose scope moved past it makes the transaction run
        # again with it locked first (db.LockedLate).
        rows = await tx.run(
            "fact.conclusion_scopes", {"tenant": tenant, "ids": sorted({p["id"] for p in premises})}
        )
        await WriteLocks.scopes(tx, tenant, [str(r["scope"]) for r in rows])
        return await tx.run(
            "fact.flag_dependents", {"tenant": tenant, "premises": premises, "now": now}
        )

    @staticmethod
    async def retract(
        tx: Tx,
        tenant: str,
        fact_id: str,
        now: datetime,
        actor: str,
        acted_for: str | None,
        reason: str | None,
    ) -> Record | None:
        rows = await tx.run(
            "fact.retract",
            {
                "tenant": require_tenant(tenant),
                "id": fact_id,
                "now": now,
                "actor": actor,
                "acted_for": acted_for,
                "reason": reason,
            },
        )
        return rows[0]["fact"] if rows else None

    @staticmethod
    async def get_in_tx(
        tx: Tx, tenant: str, ids: list[str], *, forgotten: bool = True
    ) -> dict[str, Record]:
        """Versions by id; ``forgotten=False`` leaves out those only forgotten contributors
        support (forget/_hidden_fact): a write may not build on them."""
        rows = await tx.run("fact.get", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["fact"]["id"]: r["fact"] for r in rows if forgotten or not r["forgotten"]}

    # -- reads ------------------------------------------------------------------------------
    async def get(self, tenant: str, ids: list[str]) -> dict[str, FactVersion]:
        rows = [
            r
            for r in await self.db.read("fact.get", {"tenant": require_tenant(tenant), "ids": ids})
            if not r["forgotten"]
        ]
        out = {r["fact"]["id"]: FactVersion.from_row(r["fact"]) for r in rows}
        touched = [s for s in (touched_slot(r["touched"]) for r in rows) if s is not None]
        if not touched:
            return out
        # A forget in flight changes how some read: shown as the purge leaves them.
        now = utcnow()
        resolved = await resolve_touched(
            self.db, tenant, touched, as_of=now, valid_at=now, include_candidates=True
        )
        return {k: resolved.show(v) for k, v in out.items()}

    async def in_force(
        self,
        tenant: str,
        scopes: list[str],
        *,
        subject: str | None,
        predicate: str | None,
        statuses: list[str],
        include_candidates: bool,
        as_of: datetime,
        valid_at: datetime,
        include_expired: bool,
        needs_verification: bool | None,
        after: tuple[datetime, str] | None,
        limit: int,
    ) -> list[FactVersion]:
        params: dict[str, Any] = {
            "tenant": require_tenant(tenant),
            "scopes": require_scopes(scopes),
            "statuses": statuses,
            "include_candidates": include_candidates,
            "as_of": as_of,
            "valid_at": valid_at,
            "include_expired": include_expired,
            "needs_verification": needs_verification,
            "after_recorded": after[0] if after else None,
            "after_id": after[1] if after else None,
            "limit": limit,
        }
        # One fixed query per access path, so each plan seeks its own index instead of one
        # query whose optional filters leave the planner a tenant-wide scan.
        if subject is not None and predicate is not None:
            name = "fact.in_force_slot"
            params |= {"subject": subject, "predicate": predicate}
        elif subject is not None:
            name = "fact.in_force_subject"
            params |= {"subject": subject}
        elif predicate is not None:
            name = "fact.in_force_predicate"
            params |= {"predicate": predicate}
        else:
            name = "fact.in_force_scope"
        rows = await self.db.read(name, params)
        cut: list[Record] = []
        if not rows or rows[0]["forgetting"]:
            # A forget in flight may have touched a slot that no stored segment answers now
            # (an ended claim of theirs cuts another's): asked when one runs, or when nothing
            # answered (one seek when none runs). Of a subject, its touched slots; of a scope
            # or predicate, the slots of their versions with an end, while the purge's first
            # batches have not reached them (forget/_next_facts).
            where = {"tenant": params["tenant"], "scopes": params["scopes"], "predicate": predicate}
            if subject is not None:
                cut = await self.db.read("forget.touched_slots", where | {"subject": subject})
            else:
                cut = await self.db.read("forget.touched_ends", where)
        if cut or any(r["touched"] for r in rows):
            return await in_flight_page(self.db, name, params, rows, [r["touched"] for r in cut])
        return [FactVersion.from_row(r["fact"]) for r in rows]

    async def slot_versions(
        self, tenant: str, scopes: list[str], subject: str, predicate: str, as_of: datetime
    ) -> list[FactVersion]:
        rows = await self.db.read(
            "fact.slot_versions",
            {
                "tenant": require_tenant(tenant),
                "scopes": require_scopes(scopes),
                "subject": subject,
                "predicate": predicate,
                "as_of": as_of,
            },
        )
        out = [FactVersion.from_row(r["fact"]) for r in rows]
        if not any(r["touched"] for r in rows):
            return out
        # A forget in flight touched the slot: its versions as the purge leaves them, in the
        # slot from when they are believed then.
        resolved = await resolve_touched(
            self.db,
            tenant,
            {SlotKey(f.scope, f.subject, f.predicate) for f in out},
            as_of=as_of,
            valid_at=as_of,
            include_candidates=True,
        )
        shown = [resolved.show(f) for f in out]
        shown = [f for f in shown if (f.entered_at or f.recorded_at) <= as_of]
        return sorted(shown, key=lambda f: (f.entered_at or f.recorded_at, f.version, f.id))

    async def provenance(self, tenant: str, ids: list[str]) -> dict[str, list[Evidence]]:
        rows = await self.db.read("fact.provenance", {"tenant": require_tenant(tenant), "ids": ids})
        return {r["id"]: [Evidence.from_row(e) for e in r["evidence"]] for r in rows}

    async def dependencies(self, tenant: str, ids: list[str]) -> dict[str, FactDependencies]:
        rows = await self.db.read("fact.depends", {"tenant": require_tenant(tenant), "ids": ids})
        return {
            r["id"]: FactDependencies(tuple(r["premises"]), tuple(r["dependents"])) for r in rows
        }
