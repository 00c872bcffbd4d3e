"""The layers of STYLE.md. import-linter's contracts in pyproject.toml check the imports:
GraphQL never imports repositories, the database layer or the driver; repositories never
import services or GraphQL; services never import GraphQL or the driver; the time rule is
pure. The calls are checked here, since an object passed in crosses a layer without an
import: services run no Cypher of their own, resolvers reach no repository or database."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "graph_memory"
_QUERY_CALLS = {"run", "read", "write", "write_many", "run_raw", "stream"}


def _modules(folder: str) -> list[Path]:
    return sorted((PACKAGE / folder).rglob("*.py"))


def _named_query_calls(path: Path) -> list[str]:
    """Calls such as ``tx.run("fact.get", ...)`` or ``db.read("...")``: a named Cypher
    statement run from here."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _QUERY_CALLS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            out.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.args[0].value}")
    return out


def test_services_run_no_cypher_themselves() -> None:
    found = [hit for p in _modules("services") for hit in _named_query_calls(p)]
    assert found == [], "services call repositories, which run the named queries"


def test_resolvers_reach_no_repository_or_database() -> None:
    found = []
    for path in _modules("graphql"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and (
                node.attr.endswith("_repo") or node.attr in {"db", "driver"}
            ):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    assert found == [], "resolvers call services only"


def test_the_call_check_sees_a_named_query() -> None:
    repository = PACKAGE / "repositories" / "facts.py"
    assert any(hit.endswith(" fact.get") for hit in _named_query_calls(repository))


def test_import_contracts_hold() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    done = subprocess.run(
        [str(lint), "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout
