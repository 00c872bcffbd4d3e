"""Right to be forgotten: ``forgetContributor(userId)`` excises one user from a tenant's memory.

What goes, in ONE write transaction under the tenant's write lock (all or nothing: a crash or
a retry never leaves a half-forgotten user, and concurrent writers wait instead of citing an
episode that is being deleted):

* the user's episodes, hard-deleted (DETACH DELETE drops their vector/full-text entries);
* every fact version whose evidence came only from those episodes, whatever its status.
  Supersession chains are rewritten as if those versions were never written: a surviving
  older version is superseded directly by the next surviving one (from that one's recording
  time), or becomes current again when none survives; so no ``asOf`` read, history or
  provenance can show the excised versions, nor a gap where they stood;
* entities that only the excised facts named, and the (:User) node. Predicate names stay:
  they are the tenant's vocabulary (like column names), not what anyone said.

What stays, changed: facts others also support lose the user's evidence and have their
confidence recomputed (``fact.recompute_confidence``). An inferred fact that was promoted only
by corroboration and now has fewer independent sessions than the tenant's threshold goes back
to review as a candidate (a human-approved one stays active): the promotion rule must hold for
the evidence that is left, not for evidence we may no longer hold. Facts that depended on an
excised premise are flagged needs-verification. Procedures left with no evidence are demoted.

The audit trail keeps who/when/which action of earlier events about deleted facts, episodes
and the user, but their content (before/after snapshots, free-text reasons) is blanked. Actors
are kept: they name the credential that acted (an agent, an operator), not the person the
memory was about. The forget itself is ONE audit event with counts per tier and no content,
keyed by a pseudonymous receipt (not the user id) returned to the caller. Surviving objects
that changed get their own content-free events (confidence delta, demotion, flags).

Why one transaction and not a resumable job: atomicity is the property users rely on, and a
contributor of ~10k facts fits comfortably (bench/forget.py). Neo4j's cost per index seek grows
with what the transaction already changed, so all reads run first and the bulk deletes last;
even so a 50k-fact contributor takes tens of seconds, and that is where a resumable
``(:ForgetJob)`` in batches (tombstoning the user first) would take over.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Database, Tx
from graph_memory.domain import Principal, Role, Tier, utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import Forbidden, ValidationError
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.audit import AuditRepository
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.forget import ForgetRepository as Repo
from graph_memory.repositories.locks import WriteLocks
from graph_memory.repositories.procedures import ProcedureRepository
from graph_memory.repositories.timeline import TimelineRepository
from graph_memory.services import audit, forget_trail
from graph_memory.services.gate import default_text
from graph_memory.services.procedures import DEMOTE_MARGIN, PROMOTE_SUCCESSES

__all__ = ["ForgetReport", "ForgetService", "plan_relinks", "receipt_for"]

REASON = "evidence removed: a contributor was forgotten"


@dataclass
class ForgetReport:
    receipt: str
    episodes_deleted: int = 0
    facts_deleted: dict[str, int] = field(default_factory=lambda: {t.value: 0 for t in Tier})
    facts_recomputed: int = 0
    facts_reworded: int = 0
    facts_returned_to_review: int = 0
    facts_reinstated: int = 0
    dependents_flagged: int = 0
    procedures_demoted: int = 0
    entities_deleted: int = 0
    audit_events_redacted: int = 0
    user_deleted: bool = False
    took_ms: float = 0.0

    @property
    def fact_versions_deleted(self) -> int:
        return sum(self.facts_deleted.values())

    def counts(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out.pop("receipt")
        out.pop("took_ms")
        out["fact_versions_deleted"] = self.fact_versions_deleted
        return out


def receipt_for(tenant: str, user_id: str) -> str:
    """A pseudonymous reference to the forgotten user: the audit event is findable by whoever
    holds the request (and the receipt), but the log itself does not name the person."""
    return "forgotten_" + hashlib.sha256(f"{tenant}\x00{user_id}".encode()).hexdigest()[:24]


def plan_relinks(links: list[dict[str, Any]], deleted: set[str]) -> list[dict[str, str | None]]:
    """For chains touched by excision: which surviving versions to join, reopen or unlink.

    ``links`` has, per excised chained version, its ``older`` and ``newer`` neighbours.
    Returns {older, newer} pairs of SURVIVING versions; either side may be None (older is
    current again / newer supersedes nothing).
    """
    older = {r["id"]: r["older"] for r in links}
    newer = {r["id"]: r["newer"] for r in links}
    pairs: set[tuple[str | None, str | None]] = set()
    for d in older:
        o, n = older[d], newer[d]
        if o is not None and o not in deleted:
            while n is not None and n in deleted:
                n = newer.get(n)
            pairs.add((o, n))
        n = newer[d]
        if n is not None and n not in deleted:
            o = older[d]
            while o is not None and o in deleted:
                o = older.get(o)
            pairs.add((o, n))
    return [{"older": o, "newer": n} for o, n in sorted(pairs, key=str)]


class ForgetService:
    def __init__(
        self,
        db: Database,
        policy_for: Callable[[str], Awaitable[TenantPolicy]],
        embedder: Embedder | None = None,
        residue: Sequence[Callable[[str, str], Awaitable[object]]] = (),
    ) -> None:
        self.db = db
        self._policy_for = policy_for
        self.embedder = embedder
        # Other capabilities' copies of the user's words (session ingestion's jobs and memos),
        # removed once the excision has committed: each is idempotent, so a crash between the
        # two is healed by forgetting the same user again.
        self._residue = tuple(residue)

    async def forget(self, principal: Principal, user_id: str) -> ForgetReport:
        """Excise ``user_id`` from the caller's tenant (admins only). Idempotent: forgetting
        an unknown or already forgotten user deletes nothing and is still audited.
        Raises Forbidden (not admin), ValidationError (empty user id)."""
        if principal.role is not Role.ADMIN:
            raise Forbidden("only an admin may forget a contributor")
        user_id = (user_id or "").strip()
        if not user_id:
            raise ValidationError("userId is empty", field="userId")
        policy = await self._policy_for(principal.tenant)
        started = time.perf_counter()

        async def work(tx: Tx) -> ForgetReport:
            return await self._excise(tx, principal, user_id, policy)

        report: ForgetReport = await self.db.write_tx(work)
        for purge in self._residue:
            await purge(principal.tenant, user_id)
        report.took_ms = (time.perf_counter() - started) * 1000
        return report

    async def _excise(
        self, tx: Tx, principal: Principal, user_id: str, policy: TenantPolicy
    ) -> ForgetReport:
        tenant = principal.tenant
        report = ForgetReport(receipt=receipt_for(tenant, user_id))
        # Every scope: the user's words can be cited from any of them.
        await WriteLocks.everything(tx, tenant)
        now = utcnow()  # under the lock: event times follow commit order
        # Plan first: every read happens before the bulk deletes, because reads later in the
        # same transaction pay for merging its (large) state into every index seek.
        episode_ids = await Repo.episodes(tx, tenant, user_id)
        facts = await Repo.facts(tx, tenant, episode_ids)
        doomed: list[str] = facts["doomed"]
        deleted = set(doomed)
        shared = sorted(facts["shared"])
        inferred = set(facts["shared_inferred"])
        tiers: Counter[str] = Counter(facts["doomed_tiers"])
        for tier, n in tiers.items():
            report.facts_deleted[tier] = n
        chain_rows = await Repo.chains(tx, tenant, sorted(facts["chained"]))
        links = plan_relinks(chain_rows, deleted)
        reopened = sorted(str(p["older"]) for p in links if p["newer"] is None)
        procedures = await Repo.procedures(tx, tenant, episode_ids)
        # Their timelines are rebuilt once the versions are gone: an excision rewrites the
        # past on purpose (no asOf may show what was excised, or promotions only they earned).
        slots = await TimelineRepository.slots_of(tx, tenant, [*doomed, *shared])

        report.audit_events_redacted = await Repo.redact_audit(
            tx, tenant, [*doomed, *episode_ids, user_id], now
        )
        await Repo.unlink_evidence(tx, tenant, shared, episode_ids)
        report.facts_reworded = await self._reword(tx, tenant, facts["worded"])
        await Repo.relink(tx, tenant, links)
        events = await self._survivors(
            tx, principal, policy, report, shared, inferred, reopened, now
        )
        dependents = await Repo.flag_dependents(
            tx, tenant, doomed, now, f"a premise was removed: {REASON}"
        )
        flagged = [f for f in dependents if f["current"]]
        report.dependents_flagged = len(flagged)
        events += audit.flagged(
            principal, flagged, now, "removed (contributor forgotten)", name_premise=False
        )
        excised = deleted | set(episode_ids)
        # Survivors must not point at what was excised: conclusions of relinked premises are
        # re-judged, and the audit trail of every survivor touched names stand-ins instead.
        premises = sorted({str(p["older"]) for p in links if p["older"] is not None})
        reflagged, unflagged = await forget_trail.resettle_dependents(tx, tenant, premises, excised)
        events += [
            audit.event(principal, "unflag", "fact", i, now, reason=REASON) for i in unflagged
        ]
        touched = {str(x) for p in links for x in (p["older"], p["newer"]) if x is not None}
        touched |= {str(f["id"]) for f in dependents} | set(reflagged) | set(unflagged)
        report.audit_events_redacted += await forget_trail.scrub_trail(
            tx, tenant, touched, excised, forget_trail.stand_ins(chain_rows, deleted), now
        )
        # Deletes come last, the user node first (its CONTRIBUTED_BY edges go in one sweep),
        # then episodes, then facts: every index seek after a bulk delete in the same
        # transaction pays for it, so nothing is looked up once the big deletes have run.
        report.user_deleted = await Repo.delete_user(tx, tenant, user_id) > 0
        report.episodes_deleted = await Repo.delete_episodes(tx, tenant, episode_ids)
        _, report.entities_deleted = await Repo.delete_facts(tx, tenant, doomed)
        await TimelineRepository.rebuild(tx, tenant, slots)
        events += await self._procedures(tx, principal, report, procedures, now)
        events.append(
            audit.event(
                principal,
                "forget_contributor",
                "user",
                report.receipt,
                now,
                after=report.counts(),
                confidence_delta=round(
                    sum(
                        e["confidence_delta"] or 0.0
                        for e in events
                        if e["action"] == "recompute_confidence"
                    ),
                    6,
                ),
            )
        )
        await AuditRepository.record_in_tx(tx, tenant, events)
        return report

    async def _reword(self, tx: Tx, tenant: str, worded: list[dict[str, Any]]) -> int:
        """A surviving version first written citing the forgotten user may carry their own
        wording: it takes the neutral text of its triple, and that text's embedding."""
        rows = [
            {"id": w["id"], "text": default_text(w["subject"], w["predicate"], w["object"])}
            for w in worded
        ]
        rows = [r for r, w in zip(rows, worded, strict=True) if r["text"] != w["text"]]
        vectors: list[Any] = [None] * len(rows)
        if self.embedder is not None and rows:
            vectors = list(await self.embedder.embed([r["text"] for r in rows]))
        for r, v in zip(rows, vectors, strict=True):
            r["embedding"] = v
        return await Repo.reword(tx, tenant, rows)

    @staticmethod
    async def _survivors(
        tx: Tx,
        principal: Principal,
        policy: TenantPolicy,
        report: ForgetReport,
        shared: list[str],
        inferred: set[str],
        reopened: list[str],
        now: datetime,
    ) -> list[dict[str, Any]]:
        """Facts that stay: confidence from the evidence left; corroboration-promoted
        inferences that no longer reach the threshold go back to review."""
        tenant = principal.tenant
        recomputed = await FactRepository.recompute_confidence(
            tx, tenant, sorted(set(shared) | set(reopened)), policy.promote_sessions, now
        )
        report.facts_recomputed = len(shared)
        reinstate = "its successors were excised (contributor forgotten)"
        events = [
            audit.event(principal, "reinstate", "fact", i, now, reason=reinstate) for i in reopened
        ]
        report.facts_reinstated = len(reopened)
        mine = set(shared)
        events += [
            audit.event(
                principal,
                "recompute_confidence",
                "fact",
                r["id"],
                now,
                confidence_delta=round((r["after"] or 0.0) - (r["before"] or 0.0), 6),
                reason=REASON,
            )
            for r in recomputed
            if r["id"] in mine and r["after"] != r["before"]
        ]
        # Reinstated versions are checked too: the evidence they were promoted on may be gone.
        review = inferred | set(reopened)
        # Superseded and retracted versions too: a past asOf read must not show a promotion
        # that only the forgotten user's sessions earned.
        weak = [
            str(r["id"])
            for r in recomputed
            if r["id"] in review and int(r["sessions"]) < policy.promote_sessions
        ]
        back = await Repo.recandidate(tx, tenant, weak, now, REASON)
        report.facts_returned_to_review = sum(r["status"] == "candidate" for r in back)
        events += [
            audit.event(
                principal,
                "demote",
                "fact",
                str(r["id"]),
                now,
                before={"status": r["status_before"], "promoted": True},
                after={"status": r["status"], "promoted": False},
                reason="fewer corroborating sessions than the promotion "
                "threshold after a contributor was forgotten",
            )
            for r in back
        ]
        return events

    @staticmethod
    async def _procedures(
        tx: Tx,
        principal: Principal,
        report: ForgetReport,
        procedures: list[str],
        now: datetime,
    ) -> list[dict[str, Any]]:
        """Procedures left without evidence are demoted; the ones others also evidenced get
        their counts (and the status those imply) recomputed by the procedures area's rule."""
        tenant = principal.tenant
        demoted = await Repo.demote_procedures(tx, tenant, procedures, now, REASON)
        gone = {d["id"] for d in demoted}
        rest = await ProcedureRepository.recompute(
            tx,
            tenant,
            [p for p in procedures if p not in gone],
            promote_successes=PROMOTE_SUCCESSES,
            demote_margin=DEMOTE_MARGIN,
            now=now,
        )
        changed = [
            *(
                {"id": d["id"], "status_before": d["status_before"], "status": "demoted"}
                for d in demoted
            ),
            *(
                {"id": r["id"], "status_before": r["status_before"], "status": r["status"]}
                for r in rest
                if r["status"] != r["status_before"]
            ),
        ]
        report.procedures_demoted = len(demoted)
        rank = {"demoted": 0, "candidate": 1, "active": 2}
        return [
            audit.event(
                principal,
                "demote"
                if rank.get(d["status"], 0) < rank.get(d["status_before"], 0)
                else "promote",
                "procedure",
                d["id"],
                now,
                before={"status": d["status_before"]},
                after={"status": d["status"]},
                reason=REASON,
            )
            for d in changed
        ]
