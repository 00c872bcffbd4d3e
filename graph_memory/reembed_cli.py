"""`graph-memory reembed`: switch the store to the configured embedder in place (see
graph_memory/services/store/reembed.py), with a progress bar on stderr and `--json` for scripts."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
from typing import Any

from graph_memory.settings import Settings

__all__ = ["register"]

_LABELS = {
    "stage": "embedding",
    "switch": "switching",
    "fix": "re-embedding stragglers",
}


def _reembed(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from graph_memory.db import Database
    from graph_memory.embeddings import build_embedder
    from graph_memory.repositories.reembed import ReembedRepository
    from graph_memory.services.store.reembed import Reembedder

    async def go() -> int:
        settings = Settings.from_env()
        db = Database.connect(settings.neo4j())
        repo = ReembedRepository(db)
        reembedder = Reembedder(
            repo, build_embedder(settings), batch_size=args.batch, grace_seconds=args.grace
        )
        try:
            if args.abandon:
                dropped = await reembedder.abandon()
                out = {"abandoned": True, "staged_vectors_dropped": dropped}
                print(
                    json.dumps(out) if args.json else f"abandoned: {dropped} staged vectors dropped"
                )
                return 0
            counts = await repo.counts()
            bars: dict[str, Any] = {}

            def progress(step: str, n: int) -> None:
                if step not in bars:
                    for bar in bars.values():
                        bar.close()
                    total = sum(counts.values()) if step in ("stage", "switch") else None
                    bars[step] = tqdm(
                        desc=_LABELS.get(step, step),
                        total=total,
                        unit=" nodes",
                        disable=None if not args.json else True,
                        file=sys.stderr,
                        leave=False,
                    )
                bars[step].update(n)

            try:
                report = await reembedder.run(progress)
            finally:
                for bar in bars.values():
                    bar.close()
        finally:
            await db.close()
        if args.json:
            print(json.dumps(dataclasses.asdict(report), indent=2))
        elif report.nothing_to_do:
            print(f"the store is already embedded with {report.to_model}: nothing to do")
        else:
            staged = ", ".join(f"{n} {k}" for k, n in report.staged.items() if n)
            recreated = (
                f"; vector indexes recreated for {report.to_dimensions} dims"
                if report.indexes_recreated
                else ""
            )
            print(
                f"re-embedded {report.from_model} ({report.from_dimensions} dims) -> "
                f"{report.to_model} ({report.to_dimensions} dims)"
                f"{' (resumed)' if report.resumed else ''}: {staged or 'nothing'}; "
                f"{report.switched} vectors switched, {report.fixed} re-made after the switch"
                f"{recreated}; {report.seconds:.1f} s"
            )
        return 0

    return asyncio.run(go())


def register(sub: Any) -> None:
    p = sub.add_parser(
        "reembed",
        help="switch the store's vectors to the configured embedder in place (resumable)",
    )
    p.add_argument(
        "--batch", type=int, default=256, help="nodes embedded per transaction (default 256)"
    )
    p.add_argument(
        "--grace",
        type=float,
        default=10.0,
        help="seconds the switch waits for writes already embedding to commit (default 10)",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--abandon",
        action="store_true",
        help="drop an unfinished run and its staged vectors (before its switch began)",
    )
    p.set_defaults(handler=_reembed)
