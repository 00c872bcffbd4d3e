"""`graph-memory export` / `graph-memory import`: a tenant's memory as JSON Lines, moved
between stores (see graph_memory/services/transfer.py for the format)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

from graph_memory.settings import Settings

__all__ = ["register"]


async def _open(settings: Settings) -> tuple[Any, Any]:
    from graph_memory.db import Database
    from graph_memory.embeddings import build_embedder
    from graph_memory.services.embedding_config import check_embedding_model

    db = Database.connect(settings.neo4j())
    embedder = build_embedder(settings)
    try:
        await check_embedding_model(db, embedder, record=False)
    except BaseException:
        await db.close()
        raise
    return db, embedder


def _export(args: argparse.Namespace) -> int:
    from graph_memory.repositories.transfer import TransferRepository
    from graph_memory.services.transfer import export_tenant

    async def go() -> int:
        db, embedder = await _open(Settings.from_env())
        try:
            with contextlib.ExitStack() as files:
                out = (
                    sys.stdout
                    if args.output == "-"
                    else files.enter_context(Path(args.output).open("w", encoding="utf-8"))
                )
                summary = await export_tenant(
                    TransferRepository(db),
                    args.tenant,
                    embedder.model,
                    embedder.dimensions,
                    out.write,
                )
        finally:
            await db.close()
        print(
            f"exported tenant {summary.tenant}: {summary.nodes} nodes, "
            f"{summary.relationships} relationships"
            + (f" ({summary.skipped} to API keys left out)" if summary.skipped else ""),
            file=sys.stderr,
        )
        return 0

    return asyncio.run(go())


def _import(args: argparse.Namespace) -> int:
    from graph_memory.repositories.transfer import TransferRepository
    from graph_memory.services.transfer import import_tenant

    async def go() -> int:
        db, embedder = await _open(Settings.from_env())
        try:
            with contextlib.ExitStack() as files:
                source = (
                    sys.stdin
                    if args.file == "-"
                    else files.enter_context(Path(args.file).open(encoding="utf-8"))
                )
                summary = await import_tenant(
                    TransferRepository(db), source, embedder.model, embedder.dimensions
                )
        finally:
            await db.close()
        print(
            f"imported tenant {summary.tenant}: {summary.nodes} nodes, "
            f"{summary.relationships} relationships (create its keys with "
            f"`graph-memory keys create --tenant {summary.tenant}`)",
            file=sys.stderr,
        )
        return 0

    return asyncio.run(go())


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write a tenant's memory as JSON Lines")
    p.add_argument("--tenant", required=True)
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    p.set_defaults(handler=_export)
    p = sub.add_parser("import", help="recreate an exported tenant in this store")
    p.add_argument("file", help="an export file, or - for stdin")
    p.set_defaults(handler=_import)
