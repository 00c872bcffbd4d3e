"""A new user's first minutes in a real browser, with screenshots to look at.

    pip install -e ".[browser]"                 # playwright (the driver, no browser download)
    apt-get install chromium                     # the browser it drives (Debian's package)
    python scripts/browser_check.py --url http://127.0.0.1:8000/graphql --key gm_... \
        [--neo4j http://127.0.0.1:7474/browser/ --bolt bolt://127.0.0.1:7687 \
         --password ...] [--out shots/]

GraphiQL: the page loads with the docs and the example query and no error; the key goes into
the Headers tab by typing, as the page says; the README's `remember` mutation runs (from the
page's own `?q=` share link); then the page's example query runs and must show Berlin with its
episode. Neo4j Browser (optional): logs in through its connect form and runs the saved query
that draws Alice's facts. Each step leaves a PNG in --out and fails loudly on an error in the
result pane. Not part of the test suite: it needs a browser this machine installs on request.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import Page, sync_playwright

README = Path(__file__).resolve().parents[1] / "README.md"
# Chromium as the machine runs it headless: no sandbox (root), and none of its background
# connections (the network here is closed; they would fail at every start).
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def readme_operation(root_field: str) -> str:
    blocks = re.findall(r"```graphql\n(.*?)```", README.read_text(), flags=re.S)
    (block,) = [b for b in blocks if f"{root_field}(" in b.split("{", 1)[1][:40]]
    return block.strip()


def result_text(page: Page) -> str:
    page.wait_for_function(
        "() => { const r = document.querySelector('.result-window');"
        " return r && r.innerText.includes('\"data\"') || r.innerText.includes('errors'); }",
        timeout=30_000,
    )
    return str(page.inner_text(".result-window"))


def run_query(page: Page) -> str:
    page.click(".graphiql-execute-button")
    page.wait_for_timeout(500)
    return result_text(page)


def graphiql(page: Page, url: str, key: str, out: Path) -> None:
    page.goto(url)
    page.wait_for_selector(".graphiql-query-editor .CodeMirror")
    page.wait_for_timeout(1500)
    page.screenshot(path=str(out / "01-graphiql-landing.png"))
    landing = page.inner_text("body")
    assert "WhereDoesAliceLive" in landing, "the example query is not shown"
    assert "401" not in page.inner_text(".result-window"), "a 401 waits in the result pane"

    # The Headers tab, by hand: select what is there and type the key in its place.
    page.get_by_text("Headers", exact=True).click()
    editor = page.locator(".graphiql-editor-tool .CodeMirror").last
    editor.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(json.dumps({"Authorization": f"Bearer {key}"}))
    page.wait_for_timeout(500)
    page.screenshot(path=str(out / "02-graphiql-headers.png"))

    # The README's remember mutation, through the page's share link (?q=).
    page.goto(f"{url}?q={quote(readme_operation('remember'))}")
    page.wait_for_selector(".graphiql-query-editor .CodeMirror")
    page.wait_for_timeout(1000)
    remembered = run_query(page)
    page.screenshot(path=str(out / "03-graphiql-remember.png"))
    assert '"episodeId": "ep_' in remembered and '"accepted": 1' in remembered, remembered

    # The page's own example query now answers Berlin, with the episode that said so.
    page.goto(url)
    page.wait_for_selector(".graphiql-query-editor .CodeMirror")
    page.wait_for_timeout(1000)
    example = run_query(page)
    page.screenshot(path=str(out / "04-graphiql-example.png"))
    assert "Berlin" in example and "errors" not in example, example


def neo4j_browser(page: Page, url: str, bolt: str, password: str, out: Path) -> None:
    page.goto(url)
    page.wait_for_selector("input[data-testid='boltaddress'], input#url-input", timeout=60_000)
    page.wait_for_timeout(1000)
    address = page.locator("input[data-testid='boltaddress'], input#url-input").first
    address.fill(bolt.removeprefix("bolt://"))
    page.locator("input[data-testid='username']").fill("neo4j")
    page.locator("input[data-testid='password']").fill(password)
    page.locator("button[data-testid='connect']").click()
    page.wait_for_timeout(3000)
    page.screenshot(path=str(out / "05-browser-connected.png"))
    editor = page.locator(".monaco-editor textarea, [data-testid='activeEditor'] textarea").first
    editor.click()
    page.keyboard.type(
        "MATCH (f:Fact {subject: 'alice'})-[r:DERIVED_FROM]->(e:Episode) RETURN f, r, e LIMIT 10"
    )
    page.keyboard.press("Control+Enter")
    page.wait_for_timeout(5000)
    page.screenshot(path=str(out / "06-browser-facts.png"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8000/graphql")
    ap.add_argument("--key", required=True)
    ap.add_argument("--neo4j", help="Neo4j Browser URL, e.g. http://127.0.0.1:7474/browser/")
    ap.add_argument("--bolt", default="bolt://127.0.0.1:7687")
    ap.add_argument("--password")
    ap.add_argument("--out", type=Path, default=Path("shots"))
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        graphiql(page, args.url, args.key, args.out)
        if args.neo4j:
            neo4j_browser(page, args.neo4j, args.bolt, args.password or "", args.out)
        browser.close()
    print(f"screenshots in {args.out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
