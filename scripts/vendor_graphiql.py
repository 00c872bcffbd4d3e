"""Re-create graph_memory/static/graphiql/ from the npm registry, reproducibly.

strawberry's GraphiQL page loads its assets from unpkg.com, which air-gapped machines cannot
reach, so we ship the very same files. Every tarball is checked against the registry's
sha512 and every extracted file against the sha384 that strawberry's page pins as
``integrity=`` (copied below), so the vendored bytes are exactly the ones strawberry vetted.

    .venv/bin/python scripts/vendor_graphiql.py          # download, verify, write
    .venv/bin/python scripts/vendor_graphiql.py --check  # verify the files on disk only
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

REGISTRY = "https://registry.npmjs.org"
DEST = Path(__file__).resolve().parents[1] / "graph_memory" / "static" / "graphiql"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    tarball_sha512: str  # `npm view <name>@<version> dist.integrity`
    files: tuple[tuple[str, str, str], ...]  # (path in package, local name, sha384 from strawberry)

    @property
    def tarball_url(self) -> str:
        return f"{REGISTRY}/{self.name}/-/{self.name.rsplit('/', 1)[-1]}-{self.version}.tgz"


# Versions, paths and sha384 values come from strawberry-graphql 0.341.2 static/graphiql.html.
PACKAGES = (
    Package(
        "react",
        "18.2.0",
        "/3IjMdb2L9QbBdWiW5e3P2/npwMBaU9mHCSCUzNln0ZCYbcfTsGbTJrU/kGemdH2IWmB2ioZ+zkxtmq6g09fGQ==",
        (
            (
                "umd/react.production.min.js",
                "react.production.min.js",
                "tMH8h3BGESGckSAVGZ82T9n90ztNXxvdwvdM6UoR56cYcf+0iGXBliJ29D+wZ/x8",
            ),
        ),
    ),
    Package(
        "react-dom",
        "18.2.0",
        "6IMTriUmvsjHUjNtEDudZfuDQUoWXVxKHhlEGSk81n4YFS+r/Kl99wXiwlVXtPBtJenozv2P+hxDsw9eA7Xo6g==",
        (
            (
                "umd/react-dom.production.min.js",
                "react-dom.production.min.js",
                "bm7MnzvK++ykSwVJ2tynSE5TRdN+xL418osEVF2DE/L/gfWHj91J2Sphe582B1Bh",
            ),
        ),
    ),
    Package(
        "js-cookie",
        "3.0.5",
        "cEiJEAEoIbWfCZYKWhVwFuvPX1gETRYPw6LlaTKoxD3s2AkXzkCjnp6h0V77ozyqj0jakteJ4YqDJT830+lVGw==",
        (
            (
                "dist/js.cookie.min.js",
                "js.cookie.min.js",
                "/vxhYfM1LENRhdpZ8dwEsQn/X4VhpbEZSiU4m/FwR+PVpzar4fkEOw8FP9Y+OfQN",
            ),
        ),
    ),
    Package(
        "graphiql",
        "3.8.3",
        "cuPDYtXVKV86Pu5PHBX642Odi/uVEE2y1Jxq5rGO/Qy1G2lRp7ZZ7a/T30RzxhuLSWo9zUbzq0P3U49//H0Ugw==",
        (
            (
                "graphiql.min.css",
                "graphiql.min.css",
                "Mq3vbRBY71jfjQAt/DcjxUIYY33ksal4cgdRt9U/hNPvHBCaT2JfJ/PTRiPKf0aM",
            ),
            (
                "graphiql.min.js",
                "graphiql.min.js",
                "HbRVEFG0JGJZeAHCJ9Xm2+tpknBQ7QZmNlO/DgZtkZ0aJSypT96YYGRNod99l9Ie",
            ),
        ),
    ),
    Package(
        "@graphiql/plugin-explorer",
        "1.0.2",
        "9j+kg2UjtLZD5EBmGjeWHkoVVxtbShYg2DzbUVebibnZYZM/iMBEF4vaccXJIAm5KaomIPLx0aoNs4LbODyc3Q==",
        (
            (
                "dist/style.css",
                "plugin-explorer.css",
                "5DFJlDPW2tSATRbM8kzoP1j194jexLswuNmClWoRr2Q0x7R68JIQzPHZ02Faktwi",
            ),
            (
                "dist/index.umd.js",
                "plugin-explorer.umd.js",
                "2oonKe47vfHIZnmB6ZZ10vl7T0Y+qrHQF2cmNTaFDuPshpKqpUMGMc9jgj9MLDZ9",
            ),
        ),
    ),
)


def digest(algorithm: str, data: bytes) -> str:
    return base64.b64encode(hashlib.new(algorithm, data).digest()).decode()


def fetch(pkg: Package) -> dict[str, bytes]:
    """The package's files by path inside the package, after checking the tarball hash."""
    with urllib.request.urlopen(pkg.tarball_url, timeout=60) as response:
        blob: bytes = response.read()
    if digest("sha512", blob) != pkg.tarball_sha512:
        raise SystemExit(f"{pkg.name}@{pkg.version}: tarball sha512 differs from the registry's")
    out: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
        for member in tar.getmembers():
            extracted = tar.extractfile(member) if member.isfile() else None
            if extracted is not None:
                # npm tarballs put everything under one top folder, normally "package/".
                out[member.name.split("/", 1)[1]] = extracted.read()
    return out


def sources_md(licenses: dict[str, str]) -> str:
    lines = [
        "# Vendored GraphiQL assets",
        "",
        "The files strawberry's GraphiQL page loads from unpkg.com, shipped so `/graphql` works",
        "without internet access. Re-create with `python scripts/vendor_graphiql.py`",
        "(it verifies every sha384 below against strawberry's `integrity=` values).",
        "`index.html` is our own copy of strawberry's `static/graphiql.html` (not generated).",
        "",
        "| package | version | file in package | local file | sha384 | license |",
        "|---|---|---|---|---|---|",
    ]
    for pkg in PACKAGES:
        for path, local, sha in pkg.files:
            lines.append(
                f"| {pkg.name} | {pkg.version} | {path} | {local} | `sha384-{sha}` "
                f"| {licenses[pkg.name]} |"
            )
    lines += [
        "",
        "License texts: `LICENSE.<package>` (@graphiql/plugin-explorer ships none in its",
        "tarball; it is MIT per its package.json, from the same graphql/graphiql monorepo",
        "as graphiql, whose LICENSE is `LICENSE.graphiql`).",
        "",
    ]
    return "\n".join(lines)


def strawberry_pins() -> str | None:
    """strawberry's own page, to show the pins above are still the ones it ships (if installed)."""
    try:
        from strawberry.http.ides import get_graphql_ide_html
    except ImportError:
        return None
    return get_graphql_ide_html("graphiql")


def vendor() -> None:
    DEST.mkdir(parents=True, exist_ok=True)
    page = strawberry_pins()
    licenses: dict[str, str] = {}
    for pkg in PACKAGES:
        files = fetch(pkg)
        licenses[pkg.name] = str(json.loads(files["package.json"])["license"])
        if licenses[pkg.name] != "MIT":
            raise SystemExit(f"{pkg.name}: license is {licenses[pkg.name]}, expected MIT")
        for path, local, sha in pkg.files:
            if digest("sha384", files[path]) != sha:
                raise SystemExit(f"{pkg.name}@{pkg.version}/{path}: sha384 mismatch")
            (DEST / local).write_bytes(files[path])
            seen = "n/a" if page is None else ("yes" if f'"sha384-{sha}"' in page else "NO")
            print(f"ok  sha384-{sha}  {local}  (pinned in installed strawberry: {seen})")
        if "LICENSE" in files:
            (DEST / f"LICENSE.{pkg.name.rsplit('/', 1)[-1]}").write_bytes(files["LICENSE"])
    (DEST / "SOURCES.md").write_text(sources_md(licenses), encoding="utf-8")


def check() -> int:
    bad = 0
    for pkg in PACKAGES:
        for _, local, sha in pkg.files:
            path = DEST / local
            ok = path.is_file() and digest("sha384", path.read_bytes()) == sha
            bad += not ok
            print(f"{'ok ' if ok else 'BAD'} {local}")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="verify files on disk, no network")
    if parser.parse_args().check:
        return check()
    vendor()
    return check()


if __name__ == "__main__":
    sys.exit(main())
