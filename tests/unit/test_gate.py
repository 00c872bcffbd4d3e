"""The write gate refuses noise per item, with the field at fault, before any I/O."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from graph_memory.domain import Citation, EpisodeInput, FactInput, Outcome, Principal, Role, Tier
from graph_memory.errors import Forbidden, GraphMemoryError, TierConflict, ValidationError
from graph_memory.policy import DEFAULT_POLICY
from graph_memory.services.facts.gate import check_episode, check_fact, tier_for
from graph_memory.services.trust.policy import apply_overrides

AGENT = Principal(tenant="t1", role=Role.AGENT, key_id="k1", name="bot")
ADMIN = Principal(tenant="t1", role=Role.ADMIN, key_id="k2", name="ops")
BASE = FactInput(
    subject="Alice",
    predicate="lives_in",
    object="Paris",
    citations=(Citation("ep_1"),),
    source="user",
    kind="profile",
)


def _refused(item: FactInput, principal: Principal = AGENT) -> GraphMemoryError:
    with pytest.raises(GraphMemoryError) as err:
        check_fact(item, principal, DEFAULT_POLICY)
    return err.value


def test_a_clean_fact_passes_with_its_tier_and_keys() -> None:
    cf = check_fact(BASE, AGENT, DEFAULT_POLICY)
    assert (cf.subject_key, cf.predicate, cf.object_key, cf.tier) == (
        "alice",
        "lives_in",
        "paris",
        Tier.USER,
    )
    assert cf.ttl_days is None  # profile is a long-term kind


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"kind": "gossip"}, "kind"),
        ({"source": "rumour"}, "source"),
        ({"object": "thanks"}, "object"),
        ({"object": "OK!"}, "object"),
        ({"text": "too short"}, "text"),
        ({"text": "Thank you"}, "text"),
        ({"sensitivity": "high"}, "sensitivity"),
        ({"sensitivity": "secret"}, "sensitivity"),
        ({"ttl_days": 0}, "ttlDays"),
        ({"ttl_days": 366}, "ttlDays"),
        ({"citations": ()}, "episodes"),
        ({"predicate": "Lives In!"}, "predicate"),
        ({"subject": "   "}, "subject"),
        ({"subject": "Ali\x00ce"}, "subject"),
        ({"object": "Par\x00is"}, "object"),
        ({"text": "Alice lives in Paris\x00 since 2020"}, "text"),
        ({"subject": "A" * 10_000}, "subject"),
        ({"object": "B" * 10_000}, "object"),
        ({"valid_from": datetime(2025, 1, 1)}, "validFrom"),  # naive
    ],
)
def test_noise_is_refused_naming_the_field(change: dict[str, object], field: str) -> None:
    err = _refused(replace(BASE, **change))  # type: ignore[arg-type]
    assert isinstance(err, ValidationError)
    assert err.field == field


@pytest.mark.parametrize("ttl", [1, 365])
def test_ttl_bounds_are_inclusive(ttl: int) -> None:
    assert check_fact(replace(BASE, ttl_days=ttl), AGENT, DEFAULT_POLICY).ttl_days == ttl


def test_short_term_kinds_and_policy_predicates_get_a_ttl() -> None:
    assert check_fact(replace(BASE, kind="event"), AGENT, DEFAULT_POLICY).ttl_days == 30
    sysfact = replace(BASE, predicate="policy.refund_limit", object="100 EUR", source="system")
    assert check_fact(sysfact, ADMIN, DEFAULT_POLICY).ttl_days == 30


def test_a_user_tier_write_to_a_protected_namespace_is_a_tier_conflict() -> None:
    err = _refused(replace(BASE, predicate="policy.refund_limit", object="1000 EUR"))
    assert isinstance(err, TierConflict)
    assert (
        check_fact(
            replace(BASE, predicate="policy.refund_limit", source="admin"), ADMIN, DEFAULT_POLICY
        ).tier
        is Tier.ADMIN
    )


def test_a_role_cannot_claim_a_source_above_its_cap() -> None:
    with pytest.raises(Forbidden):
        tier_for(AGENT, "system", DEFAULT_POLICY)
    assert tier_for(ADMIN, "system", DEFAULT_POLICY) is Tier.SYSTEM
    assert tier_for(AGENT, "conversation", DEFAULT_POLICY) is Tier.INFERRED


def test_tenant_configuration_changes_what_the_gate_keeps() -> None:
    policy = apply_overrides(
        DEFAULT_POLICY,
        {
            "long_term_kinds": ["profile", "allergy"],
            "short_term_kinds": ["preference"],
            "short_term_ttl_days": 7,
            "sources": {"crm": "user"},
            "min_text_chars": 30,
            "service_phrases": ["as discussed"],
        },
    )
    assert check_fact(replace(BASE, kind="allergy"), AGENT, policy).ttl_days is None
    assert check_fact(replace(BASE, kind="preference"), AGENT, policy).ttl_days == 7
    assert check_fact(replace(BASE, source="crm"), AGENT, policy).tier is Tier.USER
    with pytest.raises(ValidationError, match="unknown kind"):
        check_fact(replace(BASE, kind="goal"), AGENT, policy)  # no longer kept at all
    with pytest.raises(ValidationError, match="too short"):
        check_fact(replace(BASE, text="Alice lives in Paris now."), AGENT, policy)
    with pytest.raises(ValidationError, match="service phrase"):
        check_fact(replace(BASE, object="As discussed."), AGENT, policy)


def test_a_tenant_cannot_unprotect_the_policy_namespace() -> None:
    policy = apply_overrides(DEFAULT_POLICY, {"protected_prefixes": ["billing."]})
    for predicate in ("policy.refund_limit", "system.flag", "billing.plan"):
        with pytest.raises(TierConflict):
            check_fact(replace(BASE, predicate=predicate), AGENT, policy)


def test_valid_from_must_precede_valid_to() -> None:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    err = _refused(replace(BASE, valid_from=at, valid_to=at))
    assert err.field == "validFrom"


def test_an_episode_summary_holding_a_nul_is_refused_naming_it() -> None:
    item = EpisodeInput(
        user_id="alice",
        session_id="s1",
        started_at=None,
        ended_at=None,
        summary="Alice asked about\x00 her refund and it was approved.",
        outcome=Outcome.SUCCESS,
    )
    with pytest.raises(ValidationError) as err:
        check_episode(item, AGENT, DEFAULT_POLICY)
    assert err.value.field == "summary" and "NUL" in err.value.message
