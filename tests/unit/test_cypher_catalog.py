from __future__ import annotations

from pathlib import Path

import pytest

from graph_memory.cypher import CypherCatalog, catalog, parse


def test_every_query_file_loads_and_headers_match_bodies() -> None:
    names = catalog().names()
    assert "fact.create" in names and "fact.in_force_slot" in names
    for name in names:
        assert catalog()[name].params is not None


def test_renamed_parameter_fails_at_load() -> None:
    with pytest.raises(ValueError, match="header params"):
        parse("x.y", "// params: tenant\nMATCH (n {tenant: $tenant_id}) RETURN n")


def test_missing_header_fails() -> None:
    with pytest.raises(ValueError, match="missing"):
        parse("x.y", "MATCH (n) RETURN n")


def test_params_in_strings_and_comments_are_ignored() -> None:
    q = parse("x.y", "// params: a\n// $b in a comment\nRETURN $a, '$c' AS s")
    assert q.params == frozenset({"a"})


def test_bind_refuses_missing_params() -> None:
    q = parse("x.y", "// params: a, b\nRETURN $a, $b")
    with pytest.raises(TypeError, match="without"):
        q.bind({"a": 1})
    assert q.bind({"a": 1, "b": 2, "extra": 3}) == {"a": 1, "b": 2}


def test_catalog_names_follow_paths(tmp_path: Path) -> None:
    (tmp_path / "fact").mkdir()
    (tmp_path / "fact" / "get_one.cypher").write_text("// params: id\nRETURN $id")
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "001_x.cypher").write_text(
        "CREATE INDEX x IF NOT EXISTS FOR (n:N) ON n.a"
    )
    cat = CypherCatalog(tmp_path)
    assert cat.names() == ["fact.get_one"]
    with pytest.raises(KeyError):
        cat["fact.nope"]


def test_the_text_sent_is_the_statement_without_its_comments() -> None:
    source = (
        "// params: url, k\n"
        "// returns: u\n"
        "// Why this query exists: a reader's note.\n"
        "\n"
        "WITH 'https://example.org//x' AS u, \"a // b\" AS v  // a trailing note\n"
        "  // an indented note\n"
        "RETURN u + `odd//name` AS u, $url, $k // it's done\n"
    )
    q = parse("x.y", source)
    assert q.text == (
        "WITH 'https://example.org//x' AS u, \"a // b\" AS v\nRETURN u + `odd//name` AS u, $url, $k"
    )
    assert q.params == frozenset({"url", "k"})
    assert q.returns == ("u",)
