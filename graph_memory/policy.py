"""What a tenant keeps, from whom, and for how long: the write gate's configuration.

Defaults are conservative; a tenant overrides them through the admin API (stored on its
``(:Tenant)`` node) without code changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graph_memory.domain import Cardinality, Role, Tier

__all__ = ["DEFAULT_POLICY", "TenantPolicy"]


@dataclass(frozen=True)
class TenantPolicy:
    # Kinds kept long-term; other known kinds are short-term and get `short_term_ttl_days`.
    long_term_kinds: frozenset[str] = frozenset(
        {"preference", "constraint", "profile", "goal", "policy", "fact", "relationship"}
    )
    short_term_kinds: frozenset[str] = frozenset({"event", "task", "observation", "todo"})
    short_term_ttl_days: int = 30
    # Known sources and the highest tier each can claim.
    source_tiers: dict[str, Tier] = field(
        default_factory=lambda: {
            "system": Tier.SYSTEM,
            "policy": Tier.SYSTEM,
            "admin": Tier.ADMIN,
            "user": Tier.USER,
            "tool": Tier.USER,
            "document": Tier.USER,
            "conversation": Tier.INFERRED,
            "agent": Tier.INFERRED,
            "extraction": Tier.INFERRED,
        }
    )
    # The highest tier a role can write at, whatever source it names.
    role_caps: dict[Role, Tier] = field(
        default_factory=lambda: {
            Role.AGENT: Tier.USER,
            Role.ANALYST: Tier.USER,
            Role.ADMIN: Tier.SYSTEM,
        }
    )
    # Predicate namespaces only admin/system tiers may write, and TTLs per predicate class.
    protected_prefixes: tuple[str, ...] = ("policy.", "system.")
    predicate_ttl_days: dict[str, int] = field(default_factory=lambda: {"policy.": 30})
    promote_sessions: int = 3
    min_text_chars: int = 10
    min_summary_chars: int = 12
    service_phrases: frozenset[str] = frozenset(
        {
            "ok",
            "okay",
            "k",
            "kk",
            "thanks",
            "thank you",
            "thx",
            "ty",
            "done",
            "yes",
            "no",
            "sure",
            "got it",
            "noted",
            "hi",
            "hello",
            "hey",
            "bye",
            "cool",
            "great",
            "np",
            "no problem",
            "you're welcome",
            "welcome",
            "ack",
            "fine",
            "alright",
            "understood",
        }
    )
    user_capacity: int = 10_000
    # Session ingestion: raw turns are dropped once extracted unless the tenant keeps them
    # (to re-run a later extractor over them).
    keep_raw_turns: bool = False
    default_cardinality: dict[str, Cardinality] = field(
        default_factory=lambda: {
            "name": Cardinality.ONE,
            "lives_in": Cardinality.ONE,
            "works_at": Cardinality.ONE,
            "email": Cardinality.ONE,
            "timezone": Cardinality.ONE,
            "role": Cardinality.ONE,
            "language": Cardinality.ONE,
            "prefers": Cardinality.MANY,
            "likes": Cardinality.MANY,
            "dislikes": Cardinality.MANY,
            "knows": Cardinality.MANY,
            "member_of": Cardinality.MANY,
            "has_goal": Cardinality.MANY,
            "allergic_to": Cardinality.MANY,
            "uses": Cardinality.MANY,
        }
    )

    def is_protected(self, predicate: str) -> bool:
        """In a protected namespace, however it is dressed: "policy_.x" or "-policy.x" is in
        "policy." too (a writer cannot step around the namespace with a separator)."""
        if predicate.startswith(self.protected_prefixes):
            return True
        head, dot, _ = predicate.partition(".")
        return bool(dot) and f"{head.strip('_-')}." in self.protected_prefixes

    def claims_authority(self, predicate: str, kind: str) -> bool:
        """What an inference (a model's extraction, an agent's claim) may not write, beyond the
        protected namespaces: a fact of kind ``policy`` (a policy is the tenant's to set) or
        one whose first word names a protected namespace ("policy_refund_limit", "system-role":
        a conversation stepping around "policy." with another separator). A person may still
        state a "policy_number" through an explicit write; a conversation cannot."""
        first = re.split(r"[._\-]+", predicate.strip("._-"), maxsplit=1)[0]
        return kind == "policy" or f"{first}." in self.protected_prefixes

    def ttl_for(self, predicate: str, kind: str) -> int | None:
        best: tuple[int, int] | None = None
        for prefix, days in self.predicate_ttl_days.items():
            if predicate.startswith(prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), days)
        if best is not None:
            return best[1]
        if kind in self.short_term_kinds:
            return self.short_term_ttl_days
        return None

    @property
    def known_kinds(self) -> frozenset[str]:
        return self.long_term_kinds | self.short_term_kinds


DEFAULT_POLICY = TenantPolicy()

_PUNCT = re.compile(r"[^\w\s']+")


def normalise_phrase(text: str) -> str:
    return " ".join(_PUNCT.sub(" ", text.lower()).split())
