"""Neo4j Browser applies ``cypher/browser/style.grass`` on its own when it connects.

``browser.post_connect_cmd`` runs Browser commands after connecting; ``:style`` accepts the
style inline, as grass text or as JSON (Browser 5 tries JSON first). Grass is full of ``;``,
which is also the setting's command separator, so the style goes in as one line of JSON: no
URL to host, no CORS, nothing to click.
"""

from __future__ import annotations

import json

from ..cypher import cypher_root

__all__ = ["parse_grass", "post_connect_cmd", "style_file"]


def _rules(text: str) -> list[tuple[str, str]]:
    """(selector, body) pairs; braces inside quotes (captions like "{name}") are text."""
    rules: list[tuple[str, str]] = []
    selector, body, quote, inside = "", "", "", False
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
            body += ch
        elif ch in "\"'" and inside:
            quote = ch
            body += ch
        elif ch == "{" and not inside:
            inside = True
        elif ch == "}" and inside:
            rules.append(("".join(selector.split()), body))
            selector, body, inside = "", "", False
        elif inside:
            body += ch
        else:
            selector += ch
    return rules


def parse_grass(text: str) -> dict[str, dict[str, str]]:
    """``selector { prop: value; ... }`` rules as {selector: {prop: value}}, quotes dropped
    (as Browser's own parser reads them)."""
    style: dict[str, dict[str, str]] = {}
    for selector, body in _rules(text):
        props: dict[str, str] = {}
        for decl in body.split(";"):
            name, sep, value = decl.partition(":")
            if sep and name.strip():
                props[name.strip()] = value.strip().strip("\"'")
        style[selector] = props
    return style


def style_file() -> str:
    return (cypher_root() / "browser" / "style.grass").read_text(encoding="utf-8")


def post_connect_cmd(grass: str | None = None) -> str:
    """The setting's value: ``style {...}`` on one line, free of ``;``."""
    body = json.dumps(parse_grass(style_file() if grass is None else grass), separators=(",", ":"))
    if ";" in body or "\n" in body:
        raise ValueError("a Browser style value cannot contain ';' or a newline")
    return f"style {body}"
