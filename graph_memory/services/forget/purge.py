"""Phase 2 of a forget: one purge batch, in one write transaction.

A batch takes the next facts citing the forgotten contributors' episodes (a bounded number,
whatever the shape of the data), then:

* every fact version whose evidence is all forgotten contributors' episodes (the rule the
  reads hide by, ``forget/_hidden_fact``) is deleted, whatever its status. Supersession chains
  are rewritten as if those versions were never written: a surviving older version is
  superseded directly by the next surviving one (from that one's recording time), or becomes
  current again when none survives; so no ``asOf`` read, history or provenance can show the
  excised versions, nor a gap where they stood. The slots' timelines are rebuilt;
* facts others also support lose the contributors' evidence and have their confidence
  recomputed; a surviving version first written citing them takes the neutral wording of its
  triple, and is believed from when the others first said it (temporal/withdrawal.rest_on:
  until then it was theirs alone), the version it superseded holding until then. An inferred fact
  promoted only by corroboration that now has fewer independent sessions than the tenant's
  threshold goes back to review as a candidate (a human-approved one stays active).
  Conclusions of excised premises are flagged needs-verification;
* the episodes are deleted (DETACH DELETE drops their vector and full-text entries), and
  procedures left with no evidence are demoted, the others recomputed;
* the audit trail keeps who/when/which action of events about what was deleted, with their
  content blanked; surviving objects that changed get their own content-free events.

A batch leaves none of its facts citing the contributors' episodes and deletes the episodes it
left uncited (the last batches delete those no fact ever cited): the next batch starts from
what is left, which is what makes the job resumable and idempotent. A chain whose excised
versions fall in several batches is rewritten step by step, each step "as if that version was
never written" (its neighbours join; a later batch joins them again), which ends where
rewriting it at once would.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.domain import Principal, Tier
from graph_memory.embeddings import Embedder
from graph_memory.policy import TenantPolicy
from graph_memory.repositories.facts import FactRepository
from graph_memory.repositories.forget import ForgetRepository as Repo
from graph_memory.repositories.forget import Relinks
from graph_memory.repositories.procedures import ProcedureRepository
from graph_memory.repositories.timeline import SlotKey, TimelineRepository
from graph_memory.services.audit import events as audit
from graph_memory.services.facts.gate import default_text
from graph_memory.services.forget import trail as forget_trail
from graph_memory.services.procedures.service import (
    DEMOTE_MARGIN,
    DEMOTE_STREAK,
    PROMOTE_SUCCESSES,
)

__all__ = ["REASON", "Batch", "BatchDone", "ForgetCounts", "plan_relinks", "purge_batch"]

REASON = "evidence removed: a contributor was forgotten"


@dataclass
class ForgetCounts:
    """What a forget removed or changed so far (counts only: the audit event carries these)."""

    episodes_deleted: int = 0
    facts_deleted: dict[str, int] = field(default_factory=lambda: {t.value: 0 for t in Tier})
    facts_recomputed: int = 0
    facts_reworded: int = 0
    facts_returned_to_review: int = 0
    facts_reinstated: int = 0
    dependents_flagged: int = 0
    procedures_demoted: int = 0
    procedures_deleted: int = 0
    entities_deleted: int = 0
    audit_events_redacted: int = 0
    predicates_deleted: int = 0
    user_deleted: bool = False
    # Sum of the confidence changes of surviving facts (the forget event's confidence_delta).
    confidence_delta: float = 0.0

    @property
    def fact_versions_deleted(self) -> int:
        return sum(self.facts_deleted.values())

    def as_dict(self) -> dict[str, Any]:
        out = dict(self.__dict__)
        out["facts_deleted"] = dict(self.facts_deleted)
        out["fact_versions_deleted"] = self.fact_versions_deleted
        return out

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ForgetCounts:
        out = cls()
        for k, v in raw.items():
            if k == "facts_deleted":
                out.facts_deleted.update({str(t): int(n) for t, n in v.items()})
            elif k in out.__dict__:
                setattr(out, k, v)
        return out


def plan_relinks(links: list[dict[str, Any]], deleted: set[str]) -> Relinks:
    """For chains touched by excision (``links``: per excised chained version, its ``older``
    link, each ``newer`` version linking to it, a row each, and its ``closer``): the links and
    endings to rewrite. Links follow the SUPERSEDES edges; endings follow superseded_by (a
    candidate links without ending), as the in-flight view (repositories/shadow.py) does."""
    older: dict[str, str | None] = {}
    closer: dict[str, str | None] = {}
    newer: dict[str, set[str]] = {}
    for r in links:
        d = str(r["id"])
        older[d] = older.get(d) or r["older"]
        closer[d] = r["closer"]
        newer.setdefault(d, set())
        if r["newer"] is not None:
            newer[d].add(str(r["newer"]))

    def walk(start: str | None, step: dict[str, str | None]) -> str | None:
        seen: set[str] = set()
        while start is not None and start in deleted and start not in seen:
            seen.add(start)
            start = step.get(start)
        return None if start in deleted else start

    out_links: set[tuple[str, str | None]] = set()
    out_closes: set[tuple[str, str, str | None]] = set()
    for d in older:
        for n in newer[d]:
            if n not in deleted:
                out_links.add((n, walk(older[d], older)))
        o = older[d]
        if o is not None and o not in deleted:
            out_closes.add((o, d, walk(closer[d], closer)))
    return Relinks(
        [{"newer": n, "older": o} for n, o in sorted(out_links, key=str)],
        [{"older": o, "via": v, "closer": c} for o, v, c in sorted(out_closes, key=str)],
    )


@dataclass(frozen=True)
class Batch:
    """Who is purged, on whose behalf, under which policy, at which transaction time."""

    principal: Principal
    policy: TenantPolicy
    contributors: list[str]
    now: datetime
    embedder: Embedder | None
    # The job's ends phase: only versions with an end (forget/_next_facts).
    ends: bool = False


@dataclass(frozen=True)
class BatchDone:
    """What one batch leaves for the job: its audit events, and the predicates its excised
    facts used (the job deletes the ones no fact uses any more when it finishes)."""

    events: list[dict[str, Any]]
    predicates: list[str]


async def purge_batch(tx: Tx, b: Batch, counts: ForgetCounts, limit: int) -> BatchDone | None:
    """One batch: the next ``limit`` facts citing the contributors' episodes and the episodes
    they leave uncited (or, once no fact cites any, the next ``limit`` episodes); returns the
    audit events of what changed, ``counts`` grown by what it did. None: nothing was left
    (the caller then finishes the job)."""
    tenant = b.principal.tenant
    facts = await Repo.batch_facts(tx, tenant, b.contributors, limit, b.ends)
    cited = sorted({e for per in facts["episodes"] for e in per})
    if facts["doomed"] or facts["shared"]:
        # Read before anything is written (forget.free_episodes): the episodes the batch's
        # facts leave uncited.
        batch = [*facts["doomed"], *facts["shared"]]
        free = await Repo.free_episodes(tx, tenant, b.contributors, cited, limit, batch)
        events = await _excise_facts(tx, b, counts, facts, set(cited))
    else:
        events = []
        free = await Repo.free_episodes(tx, tenant, b.contributors, None, limit)
        if not free.ids:
            return None
    counts.audit_events_redacted += await Repo.redact_audit(tx, tenant, free.ids, b.now)
    # Their outcome reports go with them: the memories they judged are recounted.
    counts.audit_events_redacted += await Repo.drop_outcomes(tx, tenant, free.judged, b.now)
    counts.episodes_deleted += await Repo.delete_episodes(tx, tenant, free.ids)
    events += await _procedures(tx, b, counts, free.procedures)
    return BatchDone(events, sorted(p for p in facts.get("predicates") or [] if p))


async def _excise_facts(
    tx: Tx, b: Batch, counts: ForgetCounts, facts: dict[str, Any], episodes: set[str]
) -> list[dict[str, Any]]:
    tenant, now = b.principal.tenant, b.now
    doomed: list[str] = list(facts["doomed"])
    if not doomed and not facts["shared"]:
        return []
    deleted = set(doomed)
    shared = sorted(facts["shared"])
    inferred = set(facts["shared_inferred"])
    for tier, n in Counter(facts["doomed_tiers"]).items():
        counts.facts_deleted[tier] = counts.facts_deleted.get(tier, 0) + n
    # Plan first: reads later in a transaction pay for merging its (large) state into every
    # index seek, so every read happens before the deletes.
    chain_rows = await Repo.chains(tx, tenant, sorted(facts["chained"]))
    relinks = plan_relinks(chain_rows, deleted)

    counts.audit_events_redacted += await Repo.redact_audit(tx, tenant, doomed, now)
    await Repo.unlink_contributors(tx, tenant, shared, b.contributors)
    counts.facts_reworded += await _reword(tx, b, facts["worded"])
    reopened = await Repo.relink(tx, tenant, relinks, sorted(deleted))
    # A shared version they said first is believed from when the others first said it (its
    # chain rewritten first: a successor of theirs that goes no longer ends it); then
    # re-tellings of theirs no longer move when it was said.
    rested = await Repo.rest_on_evidence_left(tx, tenant, shared, b.policy.promote_sessions)
    redated = rested.changed
    # What the audit recorded of their telling before the others said it goes too (its date,
    # wording, tier), as the in-flight reads already hide it (forget/_hidden_audit).
    counts.audit_events_redacted += await Repo.redact_told_alone(tx, tenant, rested.told_alone, now)
    copies = await Repo.merge_copies(tx, tenant, list(facts["merged"]), doomed)
    # A version only an inference's tellings now speak for is judged as one: promoted only
    # by enough sessions (or a reviewer).
    inferred |= set(rested.inferred)
    events, demoted = await _survivors(tx, b, counts, shared, inferred, reopened)
    # Timelines are rebuilt once the versions are gone (an excision rewrites the past on
    # purpose: no asOf may show what was excised, or promotions only they earned), but only
    # of the slots that keep versions: the slots of survivors whose chain, status or telling
    # changed, and those where an excised version had company. A slot the excision empties
    # only loses its segments, with its versions (forget.delete_facts): most slots, at no
    # extra cost.
    survivors = relinks.survivors
    slots = [SlotKey(k["scope"], k["subject"], k["predicate"]) for k in facts["kept_slots"]]
    changed = survivors | set(demoted) | set(redated)
    slots += await TimelineRepository.slots_of(tx, tenant, changed)
    dependents = await Repo.flag_dependents(
        tx, tenant, list(facts["premises"]), now, f"a premise was removed: {REASON}"
    )
    flagged = [f for f in dependents if f["current"]]
    counts.dependents_flagged += len(flagged)
    events += audit.flagged(
        b.principal, flagged, now, "removed (contributor forgotten)", name_premise=False
    )
    excised = deleted | episodes
    # Survivors must not point at what was excised: conclusions of relinked premises are
    # re-judged, and the audit trail of every survivor touched names stand-ins instead.
    premises = sorted({str(p["older"]) for p in [*relinks.links, *relinks.closes] if p["older"]})
    reflagged, unflagged = await forget_trail.resettle_dependents(tx, tenant, premises, excised)
    events += [audit.event(b.principal, "unflag", "fact", i, now, reason=REASON) for i in unflagged]
    touched = set(survivors) | set(copies)
    touched |= {str(f["id"]) for f in dependents} | set(reflagged) | set(unflagged)
    counts.audit_events_redacted += await forget_trail.scrub_trail(
        tx, tenant, touched, excised, forget_trail.stand_ins(chain_rows, deleted), now
    )
    # Rebuilt before the versions go, without them: every seek the rebuild makes after a
    # delete of thousands of nodes pays for merging that delete in (seconds per batch).
    await TimelineRepository.rebuild(tx, tenant, slots, without=deleted)
    _, entities = await Repo.delete_facts(tx, tenant, doomed)
    counts.entities_deleted += entities
    return events


async def _reword(tx: Tx, b: Batch, worded: list[dict[str, Any]]) -> int:
    """A surviving version first written citing a forgotten contributor may carry their own
    wording: it takes the neutral text of its triple, and that text's embedding."""
    rows = [
        {"id": w["id"], "text": default_text(w["subject"], w["predicate"], w["object"])}
        for w in worded
    ]
    rows = [r for r, w in zip(rows, worded, strict=True) if r["text"] != w["text"]]
    vectors: list[Any] = [None] * len(rows)
    if b.embedder is not None and rows:
        vectors = list(await b.embedder.embed([r["text"] for r in rows]))
    for r, v in zip(rows, vectors, strict=True):
        r["embedding"] = v
    return await Repo.reword(tx, b.principal.tenant, rows)


async def _survivors(
    tx: Tx,
    b: Batch,
    counts: ForgetCounts,
    shared: list[str],
    inferred: set[str],
    reopened: list[str],
) -> tuple[list[dict[str, Any]], list[str]]:
    """Facts that stay: confidence from the evidence left; corroboration-promoted
    inferences that no longer reach the threshold go back to review. Returns the audit
    events and the versions whose promotion was withdrawn (their timeline changes)."""
    tenant, now, principal = b.principal.tenant, b.now, b.principal
    # A forget withdraws, never promotes: a candidate a higher tier held back, that tier's
    # version excised in an earlier batch, waits for the next corroboration or PROMOTION run
    # (as the in-flight view shows it: still a candidate).
    recomputed = await FactRepository.recompute_confidence(
        tx,
        tenant,
        sorted(set(shared) | set(reopened)),
        b.policy.promote_sessions,
        now,
        promote=False,
    )
    counts.facts_recomputed += len(shared)
    reinstate = "its successors were excised (contributor forgotten)"
    events = [
        audit.event(principal, "reinstate", "fact", i, now, reason=reinstate) for i in reopened
    ]
    counts.facts_reinstated += len(reopened)
    mine = set(shared)
    changed = [
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
    counts.confidence_delta = round(
        counts.confidence_delta + sum(e["confidence_delta"] or 0.0 for e in changed), 6
    )
    events += changed
    # Reinstated versions are checked too: the evidence they were promoted on may be gone.
    # Superseded and retracted versions too: a past asOf read must not show a promotion that
    # only the forgotten contributor's sessions earned.
    review = inferred | set(reopened)
    weak = [
        str(r["id"])
        for r in recomputed
        if r["id"] in review and int(r["sessions"]) < b.policy.promote_sessions
    ]
    back = await Repo.recandidate(tx, tenant, weak, now, REASON)
    counts.facts_returned_to_review += sum(r["status"] == "candidate" for r in back)
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
    # What a withdrawn promotion had ended is current again (forget/recandidate).
    freed = sorted({str(i) for r in back for i in r["reopened"]})
    events += [audit.event(principal, "reinstate", "fact", i, now, reason=reinstate) for i in freed]
    counts.facts_reinstated += len(freed)
    return events, [str(r["id"]) for r in back]


async def _procedures(
    tx: Tx, b: Batch, counts: ForgetCounts, procedures: list[str]
) -> list[dict[str, Any]]:
    """Procedures left without evidence are demoted; the ones others also evidenced get their
    counts (and the status those imply) recomputed by the procedures area's rule."""
    tenant, now = b.principal.tenant, b.now
    demoted = await Repo.demote_procedures(tx, tenant, procedures, now, REASON)
    gone = {d["id"] for d in demoted}
    rest = await ProcedureRepository.recompute(
        tx,
        tenant,
        [p for p in procedures if p not in gone],
        promote_successes=PROMOTE_SUCCESSES,
        demote_margin=DEMOTE_MARGIN,
        demote_streak=DEMOTE_STREAK,
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
    counts.procedures_demoted += len(demoted)
    rank = {"demoted": 0, "candidate": 1, "active": 2}
    return [
        audit.event(
            b.principal,
            "demote" if rank.get(d["status"], 0) < rank.get(d["status_before"], 0) else "promote",
            "procedure",
            d["id"],
            now,
            before={"status": d["status_before"]},
            after={"status": d["status"]},
            reason=REASON,
        )
        for d in changed
    ]
