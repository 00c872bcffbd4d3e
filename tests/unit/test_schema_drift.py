from __future__ import annotations

from pathlib import Path

from graph_memory.graphql.schema import schema

SDL = Path(__file__).resolve().parents[2] / "schema.graphql"


def test_schema_graphql_is_in_sync() -> None:
    # Regenerate with: graph-memory export-schema
    assert SDL.read_text() == schema.as_str() + "\n", (
        "schema.graphql drifted: run graph-memory export-schema"
    )
