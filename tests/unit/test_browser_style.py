"""Neo4j Browser applies the project's style on connect: the grass file goes into
`browser.post_connect_cmd` as one `:style {json}` command that Browser's own splitting (on
`;` outside quotes) leaves whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

from graph_memory.neo4j_local.browser_style import parse_grass, post_connect_cmd, style_file
from graph_memory.neo4j_local.config import ServerConfig, render_conf


def _browser_split(value: str) -> list[str]:
    """Neo4j Browser 5's extractPostConnectCommandsFromServerConfig, in Python."""
    for pattern in (r"(`[^`]*?`)", r'("[^"]*?")', r"('[^']*?')"):
        value = re.sub(pattern, lambda m: m.group(0).replace(";", "@@semicolon@@"), value)
    parts = [p.strip().replace("@@semicolon@@", ";") for p in value.split(";")]
    return [p for p in parts if p]


def test_grass_rules_parse_as_browser_reads_them() -> None:
    style = parse_grass(
        'node.Fact {\n  color: #4C8EDA;\n  caption: "{caption}";\n}\nrelationship {}'
    )
    assert style == {"node.Fact": {"color": "#4C8EDA", "caption": "{caption}"}, "relationship": {}}


def test_the_committed_style_is_one_browser_command() -> None:
    (cmd,) = _browser_split(post_connect_cmd())
    verb, _, body = cmd.partition(" ")
    style = json.loads(body)
    assert verb == "style"
    assert style["node.Fact"]["color"] == "#4C8EDA"
    assert style["relationship.SUPERSEDES"]["shaft-width"] == "3px"
    assert set(style) == set(parse_grass(style_file()))


def test_the_written_conf_applies_it_and_turns_telemetry_off(tmp_path: Path) -> None:
    cfg = ServerConfig(bolt_port=7687, http_port=7474, heap="1g", pagecache="512m",
                       vector_module=False)  # fmt: skip
    conf = render_conf(tmp_path, cfg).splitlines()
    assert f"browser.post_connect_cmd={post_connect_cmd()}" in conf
    assert "client.allow_telemetry=false" in conf
