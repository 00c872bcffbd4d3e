"""`graph-memory export` / `graph-memory import`: a tenant's memory as JSON Lines, moved
between stores (see graph_memory/services/store/transfer.py for the format)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from graph_memory.settings import Settings

if TYPE_CHECKING:
    from graph_memory.embeddings import Embedder
    from graph_memory.repositories.transfer import TransferRepository
    from graph_memory.services.store.transfer import TransferSummary

__all__ = ["register"]

Work = Callable[["TransferRepository", "Embedder", IO[str]], Awaitable["TransferSummary"]]


def _run(path: str, mode: str, work: Work) -> TransferSummary:
    """``work`` on this store (its embedder checked against the store's) and on the file
    (``-``: stdin or stdout)."""
    from graph_memory.db import Database
    from graph_memory.embeddings import build_embedder
    from graph_memory.repositories.transfer import TransferRepository
    from graph_memory.services.store.embedding_config import check_embedding_model

    async def go() -> TransferSummary:
        settings = Settings.from_env()
        db = Database.connect(settings.neo4j())
        embedder = build_embedder(settings)
        try:
            await check_embedding_model(db, embedder, record=False)
            with contextlib.ExitStack() as files:
                stdio = sys.stdout if "w" in mode else sys.stdin
                stream = (
                    stdio
                    if path == "-"
                    else files.enter_context(Path(path).open(mode, encoding="utf-8"))
                )
                return await work(TransferRepository(db), embedder, stream)
        finally:
            await db.close()

    return asyncio.run(go())


def _export(args: argparse.Namespace) -> int:
    from graph_memory.services.store.transfer import export_tenant

    summary = _run(
        args.output,
        "w",
        lambda repo, embedder, out: export_tenant(
            repo, args.tenant, embedder.model, embedder.dimensions, out.write
        ),
    )
    skipped = f" ({summary.skipped} to API keys left out)" if summary.skipped else ""
    print(
        f"exported tenant {summary.tenant}: {summary.nodes} nodes, "
        f"{summary.relationships} relationships{skipped}",
        file=sys.stderr,
    )
    return 0


def _import(args: argparse.Namespace) -> int:
    from graph_memory.services.store.transfer import import_tenant

    summary = _run(
        args.file,
        "r",
        lambda repo, embedder, source: import_tenant(
            repo, source, embedder.model, embedder.dimensions
        ),
    )
    print(
        f"imported tenant {summary.tenant}: {summary.nodes} nodes, "
        f"{summary.relationships} relationships (create its keys with "
        f"`graph-memory keys create --tenant {summary.tenant}`)",
        file=sys.stderr,
    )
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("export", help="write a tenant's memory as JSON Lines")
    p.add_argument("--tenant", required=True)
    p.add_argument("-o", "--output", default="-", help="file to write (default: stdout)")
    p.set_defaults(handler=_export)
    p = sub.add_parser("import", help="recreate an exported tenant in this store")
    p.add_argument("file", help="an export file, or - for stdin")
    p.set_defaults(handler=_import)
