"""After an excision, what survives must not point at what was excised.

A surviving fact's own record can still name an excised version: the audit event of the
supersession that the excised version took part in ("before": its id), or a conclusion's flag
"premise P superseded by <excised id>". Excision means "as if never written", so:

* audit events of survivors keep what they said, with each excised id replaced by the
  surviving version that now stands in its place in the chain (or nothing), and flagged
  ``redacted``;
* a conclusion whose flag an excised version raised is re-judged on the premises left: still
  flagged, naming a premise that really changed, or no longer flagged at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.repositories.forget import ForgetRepository as Repo

__all__ = ["mentions", "resettle_dependents", "rewrite", "scrub_trail", "stand_ins"]

# Fact and episode ids as the services mint them (uuid4 hex).
_ID = re.compile(r"\b(?:fact|ep)_[0-9a-f]{32}\b")
REMOVED = "[excised]"


def mentions(texts: Iterable[object], excised: set[str]) -> bool:
    """Whether any of these texts names an excised id."""
    return any(not excised.isdisjoint(_ID.findall(str(t))) for t in texts if t is not None)


StandIns = tuple[dict[str, str | None], dict[str, str | None]]


def stand_ins(links: list[dict[str, Any]], excised: set[str]) -> StandIns:
    """For each excised chained version, the nearest surviving older and newer versions of its
    chain (what now stands where it stood), or None. ``links``: rows ``id, older, newer``."""
    older = {str(r["id"]): r["older"] for r in links}
    newer = {str(r["id"]): r["newer"] for r in links}

    def walk(start: str | None, step: dict[str, Any]) -> str | None:
        while start is not None and start in excised:
            start = step.get(start)
        return start

    return (
        {v: walk(older[v], older) for v in older},
        {v: walk(newer[v], newer) for v in newer},
    )


def rewrite(value: Any, excised: set[str], subs: StandIns, key: str | None = None) -> Any:
    """``value`` (a parsed JSON snapshot) with each excised id replaced by its stand-in: the
    newer survivor under ``superseded_by``, the older one elsewhere (``id``, ``supersedes``);
    inside free text, a marker."""
    if isinstance(value, str):
        if value in excised:
            return (subs[1] if key == "superseded_by" else subs[0]).get(value)
        return _mark(value, excised)
    if isinstance(value, list):
        return [rewrite(v, excised, subs, key) for v in value]
    if isinstance(value, dict):
        return {k: rewrite(v, excised, subs, k) for k, v in value.items()}
    return value


def _mark(text: str, excised: set[str]) -> str:
    return _ID.sub(lambda m: REMOVED if m.group(0) in excised else m.group(0), text)


def _rewrite_json(text: str | None, excised: set[str], subs: StandIns) -> str | None:
    if text is None:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        return _mark(text, excised)
    return json.dumps(rewrite(parsed, excised, subs), sort_keys=True)


async def scrub_trail(
    tx: Tx,
    tenant: str,
    survivors: set[str],
    excised: set[str],
    subs: StandIns,
    now: datetime,
) -> int:
    """Rewrite the audit events of surviving facts that name an excised version; returns how
    many."""
    rows = await Repo.survivor_trail(tx, tenant, sorted(survivors - excised))
    edits = [
        {
            "id": r["id"],
            "before": _rewrite_json(r["before"], excised, subs),
            "after": _rewrite_json(r["after"], excised, subs),
            "reason": None if r["reason"] is None else _mark(str(r["reason"]), excised),
        }
        for r in rows
        if mentions((r["before"], r["after"], r["reason"]), excised)
    ]
    return await Repo.rewrite_events(tx, tenant, edits, now)


async def resettle_dependents(
    tx: Tx, tenant: str, premises: list[str], excised: set[str]
) -> tuple[list[str], list[str]]:
    """Conclusions of these surviving premises whose flag names an excised version: flagged
    again for a premise that really changed, or unflagged. Returns (reflagged, unflagged)."""
    rows = await Repo.premise_dependents(tx, tenant, premises, sorted(excised))
    stale = [r for r in rows if mentions([r["reason"]], excised)]
    reflag = [
        {"id": r["id"], "reason": f"premise {r['changed'][0]} {r['changed'][1]}"}
        for r in stale
        if r["changed"]
    ]
    unflag = [str(r["id"]) for r in stale if not r["changed"]]
    await Repo.reflag(tx, tenant, reflag)
    return [str(r["id"]) for r in reflag], await Repo.unflag(tx, tenant, unflag)
