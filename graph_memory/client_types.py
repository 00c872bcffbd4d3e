"""What the typed client (`graph_memory.typed_client`) takes and returns: frozen dataclasses
with snake_case fields, converted from and to the camelCase wire by one generic mapping
(`from_wire` / `to_wire`), so a field added here needs no hand-written conversion.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from graph_memory._wire import camel as _camel
from graph_memory._wire import iso

__all__ = [
    "AssertResult",
    "Citation",
    "ContextEntry",
    "ContextResult",
    "EpisodeIn",
    "EpisodeResult",
    "Evidence",
    "Fact",
    "FactIn",
    "FactPage",
    "FactResult",
    "ForgetReceipt",
    "History",
    "ItemError",
    "Outcome",
    "RecallEpisode",
    "RecallItem",
    "RecallProvenance",
    "RecallResult",
    "Score",
    "TierCount",
    "from_wire",
    "to_wire",
]

T = TypeVar("T")
Outcome = Literal["SUCCESS", "ESCALATED", "ABANDONED"]


# -- inputs ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EpisodeIn:
    """A session summary. ``scope`` defaults to ``user:<user_id>``; ``started_at`` to now."""

    user_id: str
    session_id: str
    summary: str
    outcome: Outcome = "SUCCESS"
    started_at: datetime | None = None
    ended_at: datetime | None = None
    topics: tuple[str, ...] = ()
    key_entities: tuple[str, ...] = ()
    source: str = "user"
    confidence: float | None = None
    scope: str | None = None


@dataclass(frozen=True)
class Citation:
    episode_id: str
    weight: float | None = None


@dataclass(frozen=True)
class FactIn:
    """A claim with the episodes it derives from (ids or `Citation`s). See `FactInput` in
    schema.graphql for the defaults of validity, scope and source."""

    subject: str
    predicate: str
    object: str
    episodes: tuple[str | Citation, ...]
    scope: str | None = None
    source: str = "user"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    text: str | None = None
    kind: str | None = None
    object_is_entity: bool | None = None
    sensitivity: str | None = None
    ttl_days: int | None = None
    cardinality: Literal["ONE", "MANY"] | None = None
    depends_on: tuple[str, ...] = ()


# -- results -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ItemError:
    code: str
    message: str
    field: str | None = None


@dataclass(frozen=True)
class EpisodeResult:
    index: int
    ok: bool
    id: str | None = None
    error: ItemError | None = None


@dataclass(frozen=True)
class FactResult:
    index: int
    ok: bool
    action: str | None = None
    fact_id: str | None = None
    version: int | None = None
    status: str | None = None
    confidence: float | None = None
    supersedes: str | None = None
    error: ItemError | None = None


@dataclass(frozen=True)
class AssertResult:
    accepted: int
    rejected: int
    results: tuple[FactResult, ...]


@dataclass(frozen=True)
class Evidence:
    episode_id: str
    session_id: str
    user_id: str
    weight: float
    summary: str | None = None
    started_at: datetime | None = None


@dataclass(frozen=True)
class Fact:
    id: str
    scope: str
    subject: str
    predicate: str
    object: str
    text: str
    status: str
    tier: str
    confidence: float
    version: int
    recorded_at: datetime
    subject_name: str = ""
    object_is_entity: bool = False
    kind: str = "fact"
    source: str = ""
    cardinality: str = ""
    superseded_at: datetime | None = None
    superseded_by: str | None = None
    retracted_at: datetime | None = None
    retracted_by: str | None = None
    retract_reason: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    expires_at: datetime | None = None
    needs_verification: bool = False
    verification_reason: str | None = None
    created_by: str | None = None
    provenance: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class FactPage:
    facts: tuple[Fact, ...]
    has_next_page: bool
    end_cursor: str | None


@dataclass(frozen=True)
class History:
    subject: str
    predicate: str
    versions: tuple[Fact, ...]


@dataclass(frozen=True)
class Score:
    vector: float
    keyword: float
    recency: float
    confidence: float
    tier_boost: float
    total: float


@dataclass(frozen=True)
class RecallEpisode:
    episode_id: str
    user_id: str
    session_id: str | None = None
    weight: float | None = None
    summary: str | None = None
    started_at: datetime | None = None


@dataclass(frozen=True)
class RecallProvenance:
    episodes: tuple[RecallEpisode, ...]
    contributors: tuple[str, ...]


@dataclass(frozen=True)
class RecallItem:
    id: str
    kind: str
    text: str
    score: Score
    provenance: RecallProvenance
    fact_id: str | None = None
    confidence: float | None = None


@dataclass(frozen=True)
class RecallResult:
    items: tuple[RecallItem, ...]
    as_of: datetime
    valid_at: datetime
    considered: int
    below_threshold: int


@dataclass(frozen=True)
class ContextEntry:
    id: str
    kind: str
    score: float
    tokens: int
    reason: str | None = None


@dataclass(frozen=True)
class ContextResult:
    text: str
    tokens: int
    token_budget: int
    included: tuple[ContextEntry, ...]
    dropped: tuple[ContextEntry, ...]
    tokenizer: str = ""


@dataclass(frozen=True)
class TierCount:
    tier: str
    count: int


@dataclass(frozen=True)
class ForgetReceipt:
    receipt: str
    episodes_deleted: int
    fact_versions_deleted: int
    job_id: str = ""
    state: str = "DONE"
    batches: int = 0
    facts_deleted_by_tier: tuple[TierCount, ...] = ()
    facts_recomputed: int = 0
    facts_returned_to_review: int = 0
    facts_reinstated: int = 0
    dependents_flagged: int = 0
    procedures_demoted: int = 0
    entities_deleted: int = 0
    audit_events_redacted: int = 0
    user_deleted: bool = False
    took_ms: float = 0.0


# -- the mapping -------------------------------------------------------------------------------
def _convert(tp: Any, raw: Any) -> Any:
    if raw is None:
        return None
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        arms = [a for a in typing.get_args(tp) if a is not type(None)]
        return _convert(arms[0], raw) if len(arms) == 1 else raw
    if origin is tuple:
        return tuple(_convert(typing.get_args(tp)[0], v) for v in raw)
    if tp is datetime:
        return datetime.fromisoformat(raw)
    if tp is float:
        return float(raw)
    if dataclasses.is_dataclass(tp):
        return from_wire(tp, raw)  # type: ignore[arg-type]
    return raw


def from_wire(cls: type[T], data: dict[str, Any]) -> T:
    """Build ``cls`` from a GraphQL object: camelCase keys to snake_case fields, ISO strings to
    datetimes, lists to tuples, nested objects to their dataclasses; unknown keys are ignored
    (a newer server may send more)."""
    hints = typing.get_type_hints(cls)
    kwargs = {
        f.name: _convert(hints[f.name], data[_camel(f.name)])
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if _camel(f.name) in data
    }
    return cls(**kwargs)


def to_wire(obj: Any) -> Any:
    """An input dataclass as GraphQL variables: camelCase keys, ISO datetimes, None omitted
    (so the server's defaults apply)."""
    if isinstance(obj, Citation):
        return {"episodeId": obj.episode_id, **({"weight": obj.weight} if obj.weight else {})}
    if isinstance(obj, FactIn):
        out = _fields(obj)
        out["episodes"] = [
            to_wire(e if isinstance(e, Citation) else Citation(e)) for e in obj.episodes
        ]
        return out
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return _fields(obj)
    if isinstance(obj, datetime):
        return iso(obj)
    if isinstance(obj, tuple | list):
        return [to_wire(v) for v in obj]
    return obj


def _fields(obj: Any) -> dict[str, Any]:
    return {
        _camel(f.name): to_wire(getattr(obj, f.name))
        for f in dataclasses.fields(obj)
        if getattr(obj, f.name) is not None
    }
