"""The session-token field rules: every listed field exists, scopes are found at any depth."""

from __future__ import annotations

from graph_memory.graphql.schema import schema
from graph_memory.graphql.session_scope import ROOT_FIELDS, named_scopes


def test_every_listed_root_field_exists() -> None:
    roots = {"Query": schema._schema.query_type, "Mutation": schema._schema.mutation_type}
    for type_name, field in ROOT_FIELDS:
        root = roots[type_name]
        assert root is not None and field in root.fields, (type_name, field)


def test_admin_and_analyst_fields_are_not_listed() -> None:
    listed = {f for _, f in ROOT_FIELDS}
    for field in ("forgetContributor", "auditLog", "mintSessionToken", "runConsolidation"):
        assert field not in listed


def test_scopes_are_found_in_nested_inputs() -> None:
    args = {
        "scopes": ["user:a", 3],
        "filter": {"scopes": ["team:x"], "subject": "user:zz"},
        "facts": [{"scope": "user:b", "episodes": [{"episodeId": "e"}]}, {"scope": None}],
    }
    assert sorted(named_scopes(args)) == ["team:x", "user:a", "user:b"]
