#!/usr/bin/env python3
"""Regenerate ``graph_memory/neo4j_local/neo4j-jars.lock.json`` with Maven.

Maintainers run this when bumping Neo4j, GDS or Browser; users never need Maven:
``graph-memory neo4j install`` downloads exactly the jars listed in the lock file and
checks each one against its sha256 (the approach of Bazel rules_jvm_external locks).

Two throwaway poms are resolved with ``mvn dependency:list`` (runtime scope):

* lib/     ``org.neo4j:neo4j`` + ``org.neo4j.client:neo4j-browser`` and their closure;
* plugins/ the open GDS build and its closure, minus every group:artifact that lib/
  already has: plugins/ comes first on the server classpath, so a duplicate there
  would silently replace the version Neo4j itself was built against.

Usage: ``python scripts/lock_neo4j_jars.py [--neo4j V] [--gds V] [--browser V]``
(needs ``mvn`` and a Java that Maven runs on; Maven's strict checksum mode is on).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LOCK_PATH = REPO_ROOT / "graph_memory" / "neo4j_local" / "neo4j-jars.lock.json"
MAVEN_CENTRAL = "https://repo1.maven.org/maven2"
# Pinned so the listing format (and the resolution rules) do not drift with Maven's default.
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
GDS_ARTIFACTS = ("proc", "proc-sysinfo", "opengds-extension", "open-model-catalog")
SCOPES = {"compile", "runtime", "provided", "system", "test"}


@dataclass(frozen=True)
class Resolved:
    group: str
    artifact: str
    type: str
    classifier: str | None
    version: str
    path: Path


def pom(name: str, deps: list[tuple[str, str, str]]) -> str:
    body = "\n".join(
        f"    <dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>"
        f"<version>{v}</version></dependency>"
        for g, a, v in deps
    )
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0">\n'
        "  <modelVersion>4.0.0</modelVersion>\n"
        f"  <groupId>graph-memory.lock</groupId><artifactId>{name}</artifactId>"
        "<version>0</version><packaging>pom</packaging>\n"
        f"  <dependencies>\n{body}\n  </dependencies>\n</project>\n"
    )


def parse_listing(text: str) -> list[Resolved]:
    """Parse ``dependency:list -DoutputAbsoluteArtifactFilename=true`` output lines.

    A line is ``g:a:type[:classifier]:version:scope:/abs/path[ -- module x]``; the scope
    token is located explicitly because the classifier is optional and paths may hold ':'.
    """
    out: list[Resolved] = []
    for raw in text.splitlines():
        line = raw.strip().split(" -- ", 1)[0].strip()
        if not line or line.startswith("The following") or line == "none":
            continue
        tokens = line.split(":")
        scope_at = next((i for i in (4, 5) if i < len(tokens) and tokens[i] in SCOPES), None)
        if scope_at is None:
            raise SystemExit(f"unexpected mvn listing line: {raw!r}")
        classifier = tokens[3] if scope_at == 5 else None
        out.append(
            Resolved(
                group=tokens[0],
                artifact=tokens[1],
                type=tokens[2],
                classifier=classifier or None,
                version=tokens[scope_at - 1],
                path=Path(":".join(tokens[scope_at + 1 :])),
            )
        )
    return out


def resolve(workdir: Path, name: str, deps: list[tuple[str, str, str]]) -> list[Resolved]:
    project = workdir / name
    project.mkdir()
    (project / "pom.xml").write_text(pom(name, deps))
    listing = project / "listing.txt"
    cmd = [
        "mvn",
        "-B",
        "-q",
        "-C",  # strict checksums: a jar whose .sha1 does not match Central fails the build
        f"{DEPENDENCY_PLUGIN}:list",
        "-DincludeScope=runtime",
        "-DoutputAbsoluteArtifactFilename=true",
        f"-DoutputFile={listing}",
    ]
    print(f"resolving {name}: {' '.join(cmd)}", file=sys.stderr)
    subprocess.run(cmd, cwd=project, check=True)
    return [r for r in parse_listing(listing.read_text()) if r.type == "jar"]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def entry(r: Resolved, target: str) -> dict[str, object]:
    e: dict[str, object] = {"group": r.group, "artifact": r.artifact, "version": r.version}
    if r.classifier:
        e["classifier"] = r.classifier
    e.update(sha256=sha256(r.path), size=r.path.stat().st_size, target=target)
    return e


def lock_entries(neo4j: str, gds: str, browser: str) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory(prefix="neo4j-lock-") as tmp:
        work = Path(tmp)
        lib = resolve(
            work,
            "lib",
            [("org.neo4j", "neo4j", neo4j), ("org.neo4j.client", "neo4j-browser", browser)],
        )
        gds_all = resolve(work, "plugins", [("org.neo4j.gds", a, gds) for a in GDS_ARTIFACTS])
        lib_ga = {(r.group, r.artifact) for r in lib}
        plugins = [r for r in gds_all if (r.group, r.artifact) not in lib_ga]
        missing = [r for r in gds_all if r.group == "org.neo4j.gds" and r not in plugins]
        if missing:
            raise SystemExit(f"GDS artifacts already in lib/, refusing to lock: {missing}")
        entries = [entry(r, "lib") for r in lib] + [entry(r, "plugins") for r in plugins]
    entries.sort(key=lambda e: (e["target"], e["group"], e["artifact"], e.get("classifier") or ""))
    names: dict[tuple[object, str], dict[str, object]] = {}
    for e in entries:
        clf = f"-{e['classifier']}" if "classifier" in e else ""
        key = (e["target"], f"{e['artifact']}-{e['version']}{clf}.jar")
        if key in names:
            raise SystemExit(f"two artifacts would share the file name {key}: {e} / {names[key]}")
        names[key] = e
    return entries


def render(lock: dict[str, object]) -> str:
    """JSON with one artifact per line, so a version bump reads as a line diff."""
    head = {k: v for k, v in lock.items() if k != "artifacts"}
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    arts = lock["artifacts"]
    rows = [json.dumps(a) for a in arts] if isinstance(arts, list) else []
    body = ",\n".join(f"    {r}" for r in rows)
    return "{\n" + "\n".join(lines) + '\n  "artifacts": [\n' + body + "\n  ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--neo4j", default="2026.01.4")
    parser.add_argument("--gds", default="2.26.0")
    parser.add_argument("--browser", default="5.24.0")
    parser.add_argument("--output", type=Path, default=LOCK_PATH)
    args = parser.parse_args(argv)
    if shutil.which("mvn") is None:
        raise SystemExit("mvn not found on PATH: install Maven (only maintainers need it)")
    entries = lock_entries(args.neo4j, args.gds, args.browser)
    lock = {
        "lock_version": 1,
        "generated_by": "scripts/lock_neo4j_jars.py",
        "repository": MAVEN_CENTRAL,
        "neo4j": args.neo4j,
        "gds": args.gds,
        "browser": args.browser,
        "artifacts": entries,
    }
    args.output.write_text(render(lock))
    for target in ("lib", "plugins"):
        sel = [e for e in entries if e["target"] == target]
        size = sum(int(str(e["size"])) for e in sel)
        print(f"{target}: {len(sel)} jars, {size / 1e6:.1f} MB", file=sys.stderr)
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
