"""The README's tutorial parts run as written: the quick start's Python block (saved to a file
and run with the key in the environment, as the README says), and its environment-variable
table names every variable the code reads."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text()
KeyFactory = Callable[..., str]


def _quickstart() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    (block,) = [b for b in blocks if "MemoryClient(url" in b]
    return str(block)


def test_the_quick_start_python_block_runs_as_written(
    server: str, make_key: KeyFactory, tenant: str, tmp_path: Path
) -> None:
    script = tmp_path / "quickstart.py"
    script.write_text(_quickstart())
    env = {**os.environ, "GRAPH_MEMORY_URL": server, "GRAPH_MEMORY_API_KEY": make_key(tenant)}
    for _ in range(2):  # "run it again and the fact is corroborated by the same session"
        out = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120,
            check=False,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0] == "ACTIVE 0.7"  # the README's comment
        assert "FACT" in lines[1] and "Berlin" in lines[1]


def test_the_environment_table_names_every_variable_the_code_reads() -> None:
    code = "\n".join(p.read_text() for p in (REPO / "graph_memory").rglob("*.py"))
    code += (REPO / "scripts" / "dev.sh").read_text()
    used = set(
        re.findall(r"\b(GRAPH_MEMORY_[A-Z0-9_]+|NEO4J_(?:URI|USER|PASSWORD|DATABASE))\b", code)
    )
    table = README[README.index("## Environment variables") :]
    table = table[: table.index("\n## ")]
    # The limits are one documented family, GRAPH_MEMORY_LIMIT_<NAME>, with their own table.
    family = "GRAPH_MEMORY_LIMIT_<NAME>" in table
    missing = sorted(
        v for v in used if v not in table and not (family and v.startswith("GRAPH_MEMORY_LIMIT_"))
    )
    assert missing == []
