"""Typed values the fact reads return: a version, the evidence behind it, its dependency edges
and the entity it is about. Repositories build them from rows; services and GraphQL types
read attributes, never row keys, so a renamed property fails type checking instead of
answering ``None``. No I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph_memory.domain import Cardinality, Status, Tier, as_datetime, default_text
from graph_memory.temporal.lifecycle import Change

__all__ = ["EntityRef", "Evidence", "FactDependencies", "FactVersion"]


def _when(value: Any) -> datetime | None:
    return as_datetime(value)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


@dataclass(frozen=True, slots=True)
class FactVersion:
    """One version of a (subject, predicate, object) triple with its lifecycle.

    Immutable but for its lifecycle, whose every change is in ``changes``:
    ``services/facts/belief.py`` turns a version into the one believed at a past moment.
    """

    id: str
    scope: str
    subject: str
    subject_name: str
    predicate: str
    object: str
    object_is_entity: bool
    text: str
    kind: str
    source: str
    tier: Tier
    status: Status
    cardinality: Cardinality
    confidence: float
    version: int
    recorded_at: datetime
    activated_at: datetime | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expires_at: datetime | None = None
    supersedes: str | None = None
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    successor_valid_from: datetime | None = None
    retracted_at: datetime | None = None
    retracted_by: str | None = None
    retract_reason: str | None = None
    # Consolidation: the version that carries this one on (an entity merge's copy, or the
    # duplicate it was merged into); on a copy, the version it carries on and the entity
    # it was about.
    merged_into: str | None = None
    merged_from: str | None = None
    subject_merged_from: str | None = None
    entered_at: datetime | None = None
    evicted_at: datetime | None = None
    rejected_at: datetime | None = None
    rejected_by: str | None = None
    reject_reason: str | None = None
    expired_at: datetime | None = None
    needs_verification: bool = False
    flagged_at: datetime | None = None
    verified_at: datetime | None = None
    verification_reason: str | None = None
    # The change log (temporal/lifecycle.py), in the order it was appended: the single
    # timestamps above are the state now, the log is every state since.
    changes: tuple[tuple[datetime, Change], ...] = ()
    created_by: str | None = None
    last_retrieved_at: datetime | None = None
    retrieval_count: int = 0

    @classmethod
    def from_row(cls, r: Mapping[str, Any]) -> FactVersion:
        recorded = as_datetime(r["recorded_at"])
        if recorded is None:
            raise ValueError(f"fact {r.get('id')} has no recorded_at")
        times = [as_datetime(t) for t in r.get("changes_at") or []]
        changes = [Change(c) for c in r.get("changes") or []]
        return cls(
            id=str(r["id"]),
            scope=str(r["scope"]),
            subject=str(r["subject"]),
            subject_name=str(r.get("subject_name") or r["subject"]),
            predicate=str(r["predicate"]),
            object=str(r["object"]),
            object_is_entity=bool(r.get("object_is_entity")),
            # No text: withheld while a forget of the one who wrote it runs
            # (forget/_their_text); the triple's neutral wording stands in.
            text=str(
                r.get("text")
                or default_text(
                    str(r.get("subject_name") or r["subject"]),
                    str(r["predicate"]),
                    str(r["object"]),
                )
            ),
            kind=str(r.get("kind") or "fact"),
            source=str(r.get("source") or ""),
            tier=Tier(r["tier"]),
            status=Status(r["status"]),
            cardinality=Cardinality(r.get("cardinality") or "one"),
            confidence=float(r.get("confidence") or 0.0),
            version=int(r.get("version") or 1),
            recorded_at=recorded,
            activated_at=_when(r.get("activated_at")),
            valid_from=_when(r.get("valid_from")),
            valid_to=_when(r.get("valid_to")),
            expires_at=_when(r.get("expires_at")),
            supersedes=_text(r.get("supersedes")),
            superseded_at=_when(r.get("superseded_at")),
            superseded_by=_text(r.get("superseded_by")),
            successor_valid_from=_when(r.get("successor_valid_from")),
            retracted_at=_when(r.get("retracted_at")),
            retracted_by=_text(r.get("retracted_by")),
            retract_reason=_text(r.get("retract_reason")),
            merged_into=_text(r.get("merged_into")),
            merged_from=_text(r.get("merged_from")),
            subject_merged_from=_text(r.get("subject_merged_from")),
            entered_at=_when(r.get("entered_at")),
            evicted_at=_when(r.get("evicted_at")),
            rejected_at=_when(r.get("rejected_at")),
            rejected_by=_text(r.get("rejected_by")),
            reject_reason=_text(r.get("reject_reason")),
            expired_at=_when(r.get("expired_at")),
            needs_verification=bool(r.get("needs_verification")),
            flagged_at=_when(r.get("flagged_at")),
            verified_at=_when(r.get("verified_at")),
            verification_reason=_text(r.get("verification_reason")),
            changes=tuple((t, c) for t, c in zip(times, changes, strict=True) if t is not None),
            created_by=_text(r.get("created_by")),
            last_retrieved_at=_when(r.get("last_retrieved_at")),
            retrieval_count=int(r.get("retrieval_count") or 0),
        )


@dataclass(frozen=True, slots=True)
class Evidence:
    """One episode supporting a version: the edge's weight and when it was linked."""

    episode_id: str
    session_id: str
    user_id: str | None
    weight: float
    summary: str | None
    source: str | None
    started_at: datetime | None
    linked_at: datetime | None

    @classmethod
    def from_row(cls, r: Mapping[str, Any]) -> Evidence:
        return cls(
            episode_id=str(r["episode_id"]),
            session_id=str(r.get("session_id") or ""),
            user_id=_text(r.get("user_id")),
            weight=float(r.get("weight") or 0.0),
            summary=_text(r.get("summary")),
            source=_text(r.get("source")),
            started_at=_when(r.get("started_at")),
            linked_at=_when(r.get("linked_at")),
        )


@dataclass(frozen=True, slots=True)
class FactDependencies:
    """DEPENDS_ON edges of one version: what it was derived from, what was derived from it."""

    premises: tuple[str, ...] = ()
    dependents: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EntityRef:
    id: str
    name: str
    key: str

    @classmethod
    def from_row(cls, r: Mapping[str, Any]) -> EntityRef:
        return cls(id=str(r["id"]), name=str(r["name"]), key=str(r["key"]))
