"""Domain objects and the pure rules over them (no I/O).

Time: every datetime is timezone-aware UTC; intervals are half-open ``[from, to)``.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

from graph_memory.errors import ValidationError

__all__ = [
    "ACTED_FOR_FIELDS",
    "ACTED_FOR_MARKERS",
    "HEADER_WORDS",
    "INDEX_KEY_BYTES",
    "MAX_FACT_FIELD",
    "MAX_ID_BYTES",
    "MAX_SPEAKER_CHARS",
    "MAX_SPEAKER_KEY_BYTES",
    "MAX_SUBJECT_CHARS",
    "MAX_SUBJECT_KEY_BYTES",
    "SERVABLE_STATUSES",
    "TIER_CAP",
    "TIER_RANK",
    "Cardinality",
    "Citation",
    "EpisodeInput",
    "FactInput",
    "Outcome",
    "Principal",
    "Role",
    "Status",
    "Tier",
    "as_datetime",
    "check_fact_sizes",
    "check_id",
    "default_text",
    "entity_id",
    "entity_key",
    "ft_token",
    "id_too_long",
    "noisy_or",
    "normalise_name",
    "normalise_predicate",
    "parse_scope",
    "parse_scopes",
    "require_aware",
    "session_key",
    "speaker_key",
    "speaker_label",
    "utcnow",
]


class Role(StrEnum):
    AGENT = "agent"
    ANALYST = "analyst"
    ADMIN = "admin"


class Tier(StrEnum):
    SYSTEM = "system"
    ADMIN = "admin"
    USER = "user"
    INFERRED = "inferred"


TIER_RANK: dict[Tier, int] = {Tier.SYSTEM: 3, Tier.ADMIN: 2, Tier.USER: 1, Tier.INFERRED: 0}
# A source's tier caps the confidence its facts can reach, however much evidence piles up:
# ten chats cannot make an inference as certain as a system record.
TIER_CAP: dict[Tier, float] = {
    Tier.SYSTEM: 1.0,
    Tier.ADMIN: 0.98,
    Tier.USER: 0.95,
    Tier.INFERRED: 0.8,
}


class Status(StrEnum):
    CANDIDATE = "candidate"
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    RETRACTED = "retracted"
    REJECTED = "rejected"


class Cardinality(StrEnum):
    ONE = "one"
    MANY = "many"


class Outcome(StrEnum):
    SUCCESS = "success"
    ESCALATED = "escalated"
    ABANDONED = "abandoned"


# Where an actor label lands on what it did (a session token's: "<role>:<key> for <user>"),
# and the field that names the user it acted for (schema 110), per label: one list for the
# writers, the forget that finds the marks, an import of older exports and what audit
# snapshots and run fingerprints leave out.
ACTED_FOR_FIELDS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "AuditEvent": (("actor", "acted_for"),),
    "Fact": (("created_by", "created_for"), ("retracted_by", "retracted_for")),
    "Memo": (("closed_by", "closed_for"),),
}
ACTED_FOR_MARKERS = frozenset(m for fields in ACTED_FOR_FIELDS.values() for _, m in fields)


@dataclass(frozen=True)
class Principal:
    """Who is calling: the tenant and role come from the credential, never from arguments."""

    tenant: str
    role: Role
    key_id: str
    name: str = ""
    # A session token's scopes (services/access/session_tokens.py): every scope a request of this
    # principal reads or writes must be one of them. None: every scope of the tenant (a key).
    scopes: frozenset[str] | None = None
    # The user a session token serves (its episodes and sessions are recorded as theirs).
    user_id: str | None = None

    @property
    def actor(self) -> str:
        return f"{self.role.value}:{self.name or self.key_id}"


@dataclass(frozen=True)
class Citation:
    episode_id: str
    weight: float | None = None


@dataclass(frozen=True)
class FactInput:
    subject: str
    predicate: str
    object: str
    citations: tuple[Citation, ...]
    scope: str | None = None
    object_is_entity: bool = False
    text: str | None = None
    kind: str = "fact"
    source: str = "user"
    sensitivity: str = "low"
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    ttl_days: int | None = None
    cardinality: Cardinality | None = None
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class EpisodeInput:
    user_id: str
    session_id: str
    started_at: datetime | None
    ended_at: datetime | None
    summary: str
    outcome: Outcome
    topics: tuple[str, ...] = ()
    key_entities: tuple[str, ...] = ()
    source: str = "conversation"
    confidence: float = 0.7
    scope: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


# Neo4j (2026.01, range-1.0 indexes) refuses an index key over about 8 KB ("Property value is
# too large to index") and the whole transaction with it, which the caller saw as INTERNAL and
# lost the batch's good items. Measured against the test Neo4j: one string of 8164 UTF-8 bytes
# fits, and a composite key holds about 8160 bytes of strings (a few bytes of overhead each).
INDEX_KEY_BYTES = 8_160

# Ids and names the store keeps as range-index keys (a session id, a user id, a predicate, an
# idempotency key): each is bounded in UTF-8 bytes, after normalisation, so that the widest
# composite key (schema 009, fact_object_slot: tenant, scope, subject key, predicate, object
# key) fits with room: 64 + 134 + MAX_SUBJECT_KEY_BYTES + MAX_ID_BYTES + MAX_FACT_FIELD bytes.
MAX_ID_BYTES = 512


def id_too_long(value: str) -> bool:
    return len(value.encode()) > MAX_ID_BYTES


def check_id(value: str, field: str) -> None:
    """Raises ValidationError when ``value`` is longer than MAX_ID_BYTES in UTF-8."""
    if id_too_long(value):
        raise ValidationError(f"{field} is longer than {MAX_ID_BYTES} bytes", field=field)


# A fact's object sits in its slot's index key with the subject's, so both are bounded; one
# definition, checked by the write gate and, before it records anything, by the LangGraph store.
# The keys are bounded in bytes as stored: lower-casing can grow a string (a 2-byte "İ" becomes
# "i" and a 3-byte combining dot), so a bound on what the caller sent is not enough.
MAX_FACT_FIELD = 4_000
MAX_SUBJECT_CHARS = 512
MAX_SUBJECT_KEY_BYTES = 1_024


def check_fact_sizes(subject: str, obj: str) -> None:
    """Raises ValidationError (field subject or object) when either, or the key it is stored
    and indexed under (``entity_key``), is over its bound."""
    if len(subject) > MAX_SUBJECT_CHARS:
        raise ValidationError(
            f"subject is longer than {MAX_SUBJECT_CHARS} characters", field="subject"
        )
    if len(entity_key(subject).encode()) > MAX_SUBJECT_KEY_BYTES:
        raise ValidationError(
            f"subject is longer than {MAX_SUBJECT_KEY_BYTES} bytes in UTF-8 (lower-cased)",
            field="subject",
        )
    if (
        len(obj) > MAX_FACT_FIELD
        or len(obj.encode()) > MAX_FACT_FIELD
        or len(entity_key(obj).encode()) > MAX_FACT_FIELD
    ):
        raise ValidationError(
            f"object is longer than {MAX_FACT_FIELD} bytes in UTF-8 (as sent or lower-cased)",
            field="object",
        )


def utcnow() -> datetime:
    return datetime.now(UTC)


# Neo4j holds a zoned DateTime's offset within +-18:00 (ISO 8601 and Python allow +-23:59).
MAX_OFFSET = timedelta(hours=18)


def unstorable_time(value: datetime) -> str | None:
    """Why the store cannot hold this aware ``value`` (None: it can): an offset beyond
    +-18:00, which Neo4j refuses (error 22N15, so the whole transaction and every request
    sharing it), or a UTC value outside the years 1..9999, which overflows on conversion.
    The one rule every entry of a time goes through: the DateTime scalar, session input,
    a model's extracted times."""
    offset = value.utcoffset()
    if offset is None:
        return None
    if abs(offset) > MAX_OFFSET:
        return f"its UTC offset {value.isoformat()[-6:]} is beyond +-18:00"
    try:
        value.astimezone(UTC)
    except OverflowError:
        return "it is outside the years 1..9999 once converted to UTC"
    return None


def require_aware(value: datetime | None, name: str) -> datetime | None:
    """Naive datetimes are refused: the driver would send them as LOCAL DATETIME, which never
    compares equal to a zoned DATETIME, so a filter would silently match nothing."""
    if value is None:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValidationError(f"{name} must carry a timezone (UTC), got naive {value}", field=name)
    return value.astimezone(UTC)


_SCOPE = re.compile(r"^(user|team):([A-Za-z0-9_.@:\-]{1,128})$")


def parse_scope(scope: str | None) -> str:
    """A scope is ``user:<id>``, ``team:<id>`` or ``tenant``."""
    if scope is None or scope == "":
        # A caller's omission (VALIDATION); the repositories' own guard stays the backstop.
        raise ValidationError("a scope (user:<id>, team:<id> or tenant) is required", field="scope")
    if scope == "tenant" or _SCOPE.match(scope):
        return scope
    raise ValidationError(
        f"bad scope {scope!r}: want user:<id>, team:<id> or tenant", field="scope"
    )


_NAME = re.compile(r"^[a-z][a-z0-9_.\-]{0,127}$")


def normalise_name(value: str, field: str) -> str:
    """Intents and roles compare as lower_snake words: "Reset password" is reset_password."""
    name = "_".join((value or "").strip().lower().split())
    if not _NAME.match(name):
        shown = value if len(value) <= 60 else value[:60] + "..."
        raise ValidationError(
            f"bad {field} {shown!r}: want words of letters, digits, '_', '.', '-' "
            "(at most 128 characters)",
            field=field,
        )
    return name


def as_datetime(value: Any) -> datetime | None:
    """A stored time as an aware datetime: read queries return times as ISO text (the driver
    decodes a temporal value ~40x slower than ``fromisoformat`` parses it), older paths a
    driver DateTime."""
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, str):
        # A time stored with a named zone prints as "...Z[UTC]" or "...+01:00[Europe/Paris]";
        # the offset before the bracket already fixes the instant.
        return datetime.fromisoformat(value.split("[", 1)[0])
    if hasattr(value, "to_native"):
        native: datetime = value.to_native()
        return native
    raise TypeError(f"not a datetime: {value!r}")


def parse_scopes(scopes: Iterable[str] | None, name: str = "scopes") -> list[str]:
    """A read's scopes: at least one, each well formed, duplicates dropped (order kept)."""
    parsed = list(dict.fromkeys(parse_scope(s) for s in scopes or ()))
    if not parsed:
        raise ValidationError(
            "at least one scope (user:<id>, team:<id>, tenant) is required", field=name
        )
    return parsed


# Every status but rejected can have been believed at some moment; whether a version is in
# force at (asOf, validAt) is decided by its times (graph_memory/temporal, stored as the
# slot's timeline).
SERVABLE_STATUSES = ("active", "superseded", "retracted", "expired", "candidate")


def normalise_predicate(name: str) -> str:
    """How predicates are stored and matched: lower_snake words, dots for namespaces (each
    namespace segment on its own: "policy .refunds" is policy.refunds, not policy_.refunds)."""
    return ".".join("_".join(part.split()) for part in name.strip().lower().split("."))


def default_text(subject: str, predicate: str, obj: str) -> str:
    """A fact's text when the caller gave none: the triple in words, nobody's wording."""
    return f"{subject.strip()} {predicate.replace('_', ' ')} {obj.strip()}"


def entity_key(name: str) -> str:
    return " ".join(name.strip().lower().split())


# A transcript line's speaker label: "Leo: ...", "Mary-Jane O'Brien: ...", "Dr. Smith: ...".
# Words start with a letter and hold letters, apostrophes, hyphens and periods; whether the
# first letter is upper case is checked apart (re has no \p{Lu}).
_LABEL_WORD = r"[^\W\d_]+(?:['\u2019.-][^\W\d_]*)*"
_SPEAKER = re.compile(rf"({_LABEL_WORD}(?:[ \t]+{_LABEL_WORD}){{0,2}}):\s+\S", re.UNICODE)


# Words that head a line as a field of a note or message, not as who said it ("Note: ...",
# "Project Update: ...", "Re: ..."): a label with one of them is no speaker, or every question
# using the word would be judged without it.
HEADER_WORDS = frozenset(
    [
        "note",
        "notes",
        "nb",
        "ps",
        "update",
        "updates",
        "re",
        "fw",
        "fwd",
        "reminder",
        "reminders",
        "summary",
        "subject",
        "todo",
        "to-do",
        "warning",
        "caution",
        "tip",
        "important",
        "edit",
        "question",
        "answer",
        "q",
        "a",
        "status",
        "agenda",
        "action",
        "item",
        "items",
        "attention",
        "fyi",
        "cc",
        "bcc",
        "from",
        "to",
        "date",
        "time",
        "topic",
        "title",
        "task",
        "tasks",
        "memo",
        "minutes",
        "decision",
        "result",
        "results",
        "outcome",
        "issue",
        "bug",
        "fix",
        "done",
        "next",
        "step",
        "steps",
    ]
)


# A speaker label is a name of one to three words: a longer "label" is a heading or noise, not
# a speaker (the episode is recorded all the same). Bounded in characters here and, as
# stored, in bytes (speaker_key), so the (tenant, speaker) index key (schema 130) stays small
# whatever script or case mapping the label is in.
MAX_SPEAKER_CHARS = 64
MAX_SPEAKER_KEY_BYTES = 256


def speaker_label(summary: str) -> str | None:
    """The speaker label a transcript-style line starts with ("Leo: I passed my exam" gives
    "Leo"), or None. One to three words each starting with an upper-case letter (any script
    that has case), then a colon, white space and more text: "10:30 call", "https://..",
    "note: ..", "Update: ..", a label with nothing after it, four-word headings and labels
    over MAX_SPEAKER_CHARS characters are not speakers. A label is metadata of the line, not
    its content: recall treats it as a known name (ranking.py)."""
    m = _SPEAKER.match(summary.lstrip())
    if m is None:
        return None
    label = m.group(1)
    if len(label) > MAX_SPEAKER_CHARS:
        return None
    words = label.split()
    if not all(unicodedata.category(w[0]) in ("Lu", "Lt") for w in words):
        return None
    if any(w.lower().replace(".", "") in HEADER_WORDS for w in words):
        return None
    return label


def speaker_key(summary: str) -> str | None:
    """The normalised speaker label an episode stores (``speaker``), keyed like entities."""
    label = speaker_label(summary)
    if label is None:
        return None
    key = entity_key(label)
    return key if len(key.encode()) <= MAX_SPEAKER_KEY_BYTES else None


def entity_id(tenant: str, name: str) -> str:
    digest = hashlib.sha256(f"{tenant}\x00{entity_key(name)}".encode()).hexdigest()
    return f"ent_{digest[:24]}"


def ft_token(tenant: str, scope: str) -> str:
    """An opaque, analyzer-proof token for (tenant, scope) in full-text indexes.

    Lucene's analyzers split raw ids on '-' and '.', so ``tenant:acme`` would match
    ``acme-2``; a hex digest is one token that only its own scope can produce.
    """
    return "s" + hashlib.sha256(f"{tenant}\x00{scope}".encode()).hexdigest()[:32]


def session_key(user_id: Any, session_id: Any) -> str:
    """One piece of evidence: a session is (user, session id), as fact.recompute_confidence
    groups it; clients number sessions per user, so two users' "s1" are two sessions."""
    return f"{user_id}\x00{session_id}"


def noisy_or(weights_by_session: Mapping[str, Iterable[float]], cap: float) -> float:
    """Combine evidence: the strongest weight per session, noisy-OR across sessions, capped.

    Several mentions in one session are one piece of evidence, not many: a single chat cannot
    corroborate itself.
    """
    miss = 1.0
    for weights in weights_by_session.values():
        w = max(weights, default=0.0)
        miss *= 1.0 - min(max(w, 0.0), 1.0)
    return round(min(cap, 1.0 - miss), 6)
