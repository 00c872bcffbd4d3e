"""Tenant policy overrides: validated, merged over the defaults, never weakening security;
and the value that decides which memories a full user loses first."""

from __future__ import annotations

from typing import Any

import pytest

from graph_memory.domain import Role, Tier
from graph_memory.errors import ValidationError
from graph_memory.policy import DEFAULT_POLICY
from graph_memory.services.trust.policy import apply_overrides, memory_value, validate_overrides


def test_no_override_is_the_default_policy() -> None:
    assert apply_overrides(DEFAULT_POLICY, {}) == DEFAULT_POLICY


def test_overrides_are_normalised() -> None:
    out = validate_overrides(
        {
            "long_term_kinds": ["Profile", "profile ", "goal"],
            "service_phrases": ["Cheers!", "  "],
            "user_capacity": 50,
            "predicate_ttl_days": {"promo.": 7},
        }
    )
    assert out == {
        "long_term_kinds": ["goal", "profile"],
        "service_phrases": ["cheers"],
        "user_capacity": 50,
        "predicate_ttl_days": {"promo.": 7},
    }


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"role_caps": {"agent": "system"}}, "role_caps"),  # security is not a tenant setting
        ({"user_capacity": 0}, "user_capacity"),
        ({"user_capacity": True}, "user_capacity"),
        ({"short_term_ttl_days": 366}, "short_term_ttl_days"),
        ({"predicate_ttl_days": {"policy.": 0}}, "predicate_ttl_days"),
        ({"promote_sessions": 0}, "promote_sessions"),
        ({"sources": {"crm": "root"}}, "sources"),
        ({"long_term_kinds": ["Not A Kind"]}, "long_term_kinds"),
        ({"long_term_kinds": [], "short_term_kinds": []}, "long_term_kinds"),
        ({"long_term_kinds": ["event"]}, "short_term_kinds"),  # both long and short
        ({"protected_prefixes": "policy."}, "protected_prefixes"),
    ],
)
def test_bad_overrides_name_the_setting(raw: dict[str, Any], field: str) -> None:
    with pytest.raises(ValidationError) as err:
        validate_overrides(raw)
    assert err.value.field == field


def test_extensions_add_to_the_builtins_and_role_caps_never_move() -> None:
    p = apply_overrides(
        DEFAULT_POLICY,
        validate_overrides(
            {
                "sources": {"crm": "admin", "conversation": "user"},
                "protected_prefixes": ["billing."],
                "predicate_ttl_days": {"promo.": 7},
                "service_phrases": ["cheers"],
            }
        ),
    )
    assert p.source_tiers["crm"] is Tier.ADMIN and p.source_tiers["conversation"] is Tier.USER
    assert p.source_tiers["system"] is Tier.SYSTEM
    assert p.protected_prefixes[:2] == ("policy.", "system.") and "billing." in p.protected_prefixes
    assert p.ttl_for("policy.refund_limit", "policy") == 30 and p.ttl_for("promo.x", "fact") == 7
    assert {"cheers", "thanks"} <= p.service_phrases
    assert p.role_caps == DEFAULT_POLICY.role_caps
    assert p.role_caps[Role.AGENT] is Tier.USER


def test_memory_value_prefers_confident_recent_and_used_memories() -> None:
    base = memory_value(0.8, 0, 0)
    assert base == pytest.approx(0.8)
    assert memory_value(0.4, 0, 0) < base  # less confident
    assert memory_value(0.8, 60, 0) < base  # idle for two months
    assert memory_value(0.8, 0, 10) > base  # retrieved often
    assert memory_value(0.99, 0, 100, expired=True) == 0.0  # expired is worth nothing


def test_a_separator_does_not_step_around_a_protected_namespace() -> None:
    from graph_memory.domain import normalise_predicate
    from graph_memory.policy import TenantPolicy

    policy = TenantPolicy()
    assert normalise_predicate("Policy .Refund Multiplier") == "policy.refund_multiplier"
    assert normalise_predicate("lives in") == "lives_in"
    for name in ("policy.refunds", "policy_.refunds", "_policy.refunds", "system-.x"):
        assert policy.is_protected(name), name
    for name in ("policyholder.refunds", "refund_policy", "my_policy.x", "policy"):
        assert not policy.is_protected(name), name
