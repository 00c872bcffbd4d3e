from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_subpackage_ships_in_the_wheel() -> None:
    # The package list is explicit (cypher/ is mapped into the wheel), so a new subpackage
    # must be listed or an installed wheel would miss it.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "graph_memory").rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools].packages: {sorted(found - listed)}"
    assert config["package-dir"]["graph_memory._cypher"] == "cypher"
