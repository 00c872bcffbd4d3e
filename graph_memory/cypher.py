"""Named Cypher queries loaded from ``cypher/**/*.cypher``.

A file holds one statement and starts with a header::

    // params: tenant, scope, rows
    // returns: id, created

The name is the path: ``cypher/fact/assert.cypher`` is ``fact.assert``. At load the header's
params are checked against the ``$parameters`` in the body, so a renamed parameter fails at
start-up instead of silently binding null (aiosql's signature check). Schema migrations under
``cypher/schema/`` are plain DDL and carry no header.

A rule several queries share is written once as a fragment: a file whose name starts with
``_`` (no header, not a query of its own), pulled into a query by a line
``#include timeline/_in_force``. The include is expanded before the header check, so a
fragment's parameters must be declared by every query that includes it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["CypherCatalog", "Query", "catalog", "cypher_root"]

_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
_HEADER = re.compile(r"^//\s*(params|returns):\s*(.*)$")
# A lexer's view of comments: a string or quoted name is skipped whole, so a ``//`` inside
# one ('https://...') is kept; only a ``//`` outside them starts a comment.
_COMMENT_OR_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*")
_INCLUDE = re.compile(
    r"^[ \t]*#include[ \t]+([A-Za-z0-9_/]+)(?:\(([A-Za-z_][A-Za-z0-9_]*)\))?[ \t]*$", re.MULTILINE
)
# A fragment about one node names it ``@node``; ``#include dir/_name(var)`` binds it to the
# including query's variable (a leftover ``@node`` is a Cypher syntax error, so it fails loud).
_NODE = "@node"
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


@dataclass(frozen=True)
class Query:
    name: str
    text: str
    params: frozenset[str]
    returns: tuple[str, ...]

    def bind(self, params: dict[str, Any]) -> dict[str, Any]:
        """Return exactly the declared params; a missing one is a programming error."""
        missing = self.params - params.keys()
        if missing:
            raise TypeError(f"query {self.name} called without {sorted(missing)}")
        return {k: params[k] for k in self.params}


def cypher_root() -> Path:
    """The cypher/ folder: packaged inside the wheel, or the repo's own in a checkout."""
    packaged = resources.files("graph_memory") / "_cypher"
    if packaged.is_dir():
        return Path(str(packaged))
    repo = Path(__file__).resolve().parent.parent / "cypher"
    if repo.is_dir():
        return repo
    raise RuntimeError("cypher/ not found: the package is installed without its queries")


def parse(name: str, source: str) -> Query:
    declared: list[str] | None = None
    returns: tuple[str, ...] = ()
    for line in source.splitlines():
        m = _HEADER.match(line.strip())
        if not m:
            if line.strip() and not line.strip().startswith("//"):
                break
            continue
        items = [p.strip() for p in m.group(2).split(",") if p.strip()]
        if m.group(1) == "params":
            declared = items
        else:
            returns = tuple(items)
    if declared is None:
        raise ValueError(f"{name}: missing '// params:' header")
    text = _bare(source)
    used = set(_PARAM.findall(_STRING.sub("''", text)))
    if used != set(declared):
        raise ValueError(f"{name}: header params {sorted(declared)} != body params {sorted(used)}")
    return Query(name=name, text=text, params=frozenset(declared), returns=returns)


def _bare(source: str) -> str:
    """The statement without its comments and blank lines: what is sent to Neo4j. The
    comments are for the reader of the file; every run pays for them otherwise. The driver
    formats the text for its debug log eagerly, Bolt carries it, and Neo4j hashes it to find
    its cached plan. Measured with a 9 KB query (recall's were 4-9 KB): about 0.15 ms of
    Python and 0.3 ms of round trip per run."""
    stripped = _COMMENT_OR_QUOTED.sub(
        lambda m: "" if m.group(0).startswith("//") else m.group(0), source
    )
    return "\n".join(line.rstrip() for line in stripped.splitlines() if line.strip())


def expand(root: Path, source: str, seen: tuple[str, ...] = ()) -> str:
    """``source`` with each ``#include name`` line replaced by ``cypher/name.cypher`` (and
    ``#include name(var)`` with ``@node`` in it bound to ``var``)."""

    def one(m: re.Match[str]) -> str:
        name, var = m.group(1), m.group(2)
        if not Path(name).name.startswith("_"):
            raise ValueError(f"#include {name}: only fragments (files named _*) can be included")
        if name in seen:
            raise ValueError(f"#include {name}: included from itself")
        path = root / f"{name}.cypher"
        if not path.is_file():
            raise ValueError(f"#include {name}: no fragment {path}")
        text = path.read_text().rstrip("\n")
        if (var is None) != (_NODE not in text):
            raise ValueError(f"#include {name}: a fragment naming {_NODE} needs one variable")
        if var is not None:
            text = text.replace(_NODE, var)
        return expand(root, text, (*seen, name))

    return _INCLUDE.sub(one, source)


class CypherCatalog:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._queries: dict[str, Query] = {}
        for path in sorted(root.rglob("*.cypher")):
            rel = path.relative_to(root)
            if rel.parts[0] == "schema" or path.name.startswith("_"):
                continue
            name = ".".join(rel.with_suffix("").parts)
            self._queries[name] = parse(name, expand(root, path.read_text()))

    def __getitem__(self, name: str) -> Query:
        try:
            return self._queries[name]
        except KeyError:
            raise KeyError(f"no cypher query named {name!r} under {self.root}") from None

    def names(self) -> list[str]:
        return sorted(self._queries)


@cache
def catalog() -> CypherCatalog:
    return CypherCatalog(cypher_root())
