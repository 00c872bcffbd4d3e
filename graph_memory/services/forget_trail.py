"""After an excision, what survives must not point at what was excised.

A surviving fact's own record can still name an excised version: the audit event of the
supersession that the excised version took part in ("before": its id), or a conclusion's flag
"premise P superseded by <excised id>" once P is current again. Excision means "as if never
written", so such events lose their content (who, when and which action stay, as for events
about excised targets) and such flags are lifted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from graph_memory.db import Tx
from graph_memory.repositories.forget import ForgetRepository as Repo

__all__ = ["mentions", "scrub_trail", "unflag_reinstated"]

# Fact and episode ids as the services mint them (uuid4 hex).
_ID = re.compile(r"\b(?:fact|ep)_[0-9a-f]{32}\b")


def mentions(texts: Iterable[object], excised: set[str]) -> bool:
    """Whether any of these texts names an excised id."""
    return any(not excised.isdisjoint(_ID.findall(str(t))) for t in texts if t is not None)


async def unflag_reinstated(
    tx: Tx, tenant: str, reinstated: list[str], excised: set[str]
) -> list[str]:
    """Lift the flags that excised versions raised on conclusions of reinstated premises."""
    rows = await Repo.reinstated_dependents(tx, tenant, reinstated)
    return await Repo.unflag(
        tx, tenant, [str(r["id"]) for r in rows if mentions([r["reason"]], excised)]
    )


async def scrub_trail(
    tx: Tx, tenant: str, survivors: set[str], excised: set[str], now: datetime
) -> int:
    """Blank the audit events of surviving facts that name an excised version; returns how
    many."""
    rows = await Repo.survivor_trail(tx, tenant, sorted(survivors - excised))
    hits = [str(r["id"]) for r in rows if mentions((r["before"], r["after"], r["reason"]), excised)]
    return await Repo.redact_events(tx, tenant, hits, now)
