"""What a consolidation run reports: its steps with counts and durations, its diff, and the
run's own metrics (batches committed, changes, wall time), from the run node or in memory."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph_memory.db import Record
from graph_memory.domain import as_datetime
from graph_memory.services.consolidation.context import ACTOR, Change, Count

__all__ = ["RunReport", "StepReport", "change_value", "report_dict", "report_of"]


@dataclass(frozen=True)
class StepReport:
    step: str
    duration_ms: float
    counts: tuple[Count, ...]


@dataclass(frozen=True)
class RunReport:
    id: str
    scopes: tuple[str, ...]
    steps: tuple[StepReport, ...]
    # running | applied | dry_run | failed | interrupted | abandoned | rolling_back |
    # rolled_back
    status: str
    dry_run: bool
    requested_by: str
    actor: str
    started_at: datetime | None
    finished_at: datetime | None
    rolled_back_at: datetime | None
    error: str | None
    # None: read without its diff (a caller that does not show it need not pay for it: a
    # 100k-fact run's diff is ~24,000 entries, 3.5 s to read back at the end of its rollback).
    changes: tuple[Change, ...] | None
    batches: int = 0  # transactions that committed changes of the run
    changed: int = 0  # diff entries in all
    duration_ms: float | None = None  # wall time from start to finish (resumptions included)
    rollback_ms: float | None = None  # wall time of its rollback
    restored: int = 0  # memories its rollback restored


def report_of(run: Record, changes: list[Record] | None) -> RunReport:
    names = list(run.get("step_names") or [])
    durations = list(run.get("step_durations_ms") or [])
    triples = zip(
        run.get("count_steps") or [],
        run.get("count_names") or [],
        run.get("count_values") or [],
        strict=True,
    )
    counts: dict[str, list[Count]] = {}
    for step, name, value in triples:
        counts.setdefault(step, []).append(Count(name, int(value)))
    return RunReport(
        id=run["id"],
        scopes=tuple(run.get("scopes") or []),
        steps=tuple(
            StepReport(n, float(d), tuple(counts.get(n, [])))
            for n, d in zip(names, durations, strict=True)
        ),
        status=run["status"],
        dry_run=bool(run.get("dry_run")),
        requested_by=run.get("requested_by") or "",
        actor=run.get("actor") or ACTOR,
        started_at=as_datetime(run.get("started_at")),
        finished_at=as_datetime(run.get("finished_at")),
        rolled_back_at=as_datetime(run.get("rolled_back_at")),
        error=run.get("error"),
        batches=int(run.get("batches") or 0),
        changed=int(run.get("changed") or len(changes or [])),
        duration_ms=_ms(run.get("started_at"), run.get("finished_at")),
        rollback_ms=_opt_float(run.get("rollback_ms")),
        restored=int(run.get("restored") or 0),
        changes=None
        if changes is None
        else tuple(
            Change(
                int(c["seq"]),
                c["step"],
                c["action"],
                c["target_id"],
                c.get("reason"),
                c.get("before"),
                c.get("after"),
            )
            for c in changes
        ),
    )


def _ms(start: object, end: object) -> float | None:
    a, b = as_datetime(start), as_datetime(end)
    return None if a is None or b is None else (b - a).total_seconds() * 1000.0


def _opt_float(value: object) -> float | None:
    return None if value is None else float(value)  # type: ignore[arg-type]


def change_value(text: str | None) -> Any:
    """A change's before or after as shown (GraphQL, the CLI's --json): the memory's changed
    properties, stored as JSON text on the diff entry."""
    return None if text is None else json.loads(text)


def report_dict(report: RunReport) -> dict[str, Any]:
    """The run as plain data (the CLI's --json), its changes' before/after decoded as GraphQL
    shows them."""
    out = dataclasses.asdict(report)
    for c in out.get("changes") or []:
        c["before"], c["after"] = change_value(c["before"]), change_value(c["after"])
    return out
