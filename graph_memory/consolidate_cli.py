"""`graph-memory consolidate`: one consolidation run from the command line (cron, operators).

The operator acts as the tenant's admin (``requested_by`` reads ``admin:cli``); the run itself
is audited as actor ``consolidation`` like one asked for over GraphQL.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from graph_memory.settings import Settings

__all__ = ["register"]


def _consolidate(args: argparse.Namespace) -> int:
    if not args.scope and not args.resume:
        print("consolidate: --scope (or --resume RUN_ID) is required", file=sys.stderr)
        return 2
    from tqdm import tqdm

    from graph_memory.db import Database
    from graph_memory.domain import Principal, Role
    from graph_memory.embeddings import build_embedder
    from graph_memory.repositories.compaction import CompactionRepository
    from graph_memory.repositories.resolution import ResolutionRepository
    from graph_memory.repositories.similarity import SimilarityRepository
    from graph_memory.repositories.trust import TrustRepository
    from graph_memory.services.consolidation.compaction import Compactor
    from graph_memory.services.consolidation.entities import EntityResolver
    from graph_memory.services.consolidation.report import report_dict
    from graph_memory.services.consolidation.service import ConsolidationService
    from graph_memory.services.trust.policy import PolicyStore

    async def go() -> int:
        settings = Settings.from_env()
        db = Database.connect(settings.neo4j())
        try:
            resolver = EntityResolver(
                ResolutionRepository(db),
                SimilarityRepository(settings.neo4j()),
                build_embedder(settings),
            )
            service = ConsolidationService(
                db,
                PolicyStore(TrustRepository(db)).policy_for,
                resolver=resolver,
                compactor=Compactor(CompactionRepository(db, settings.neo4j())),
            )
            who = Principal(tenant=args.tenant, role=Role.ADMIN, key_id="cli", name="cli")
            # The bar goes to stderr, so --json output on stdout stays machine-readable.
            bar = tqdm(
                total=len(args.step or []) or None,
                desc="consolidate",
                file=sys.stderr,
                disable=args.no_progress,
            )

            def progress(step: str, done: int, total: int) -> None:
                bar.total = total
                bar.set_postfix_str(step)
                bar.n = done
                bar.refresh()

            if args.resume:  # a run that stopped part way, from its recorded progress
                report = await service.resume(who, args.resume, progress)
            else:
                report = await service.run(who, args.scope, args.step, args.dry_run, progress)
            bar.close()
            if args.json:
                print(json.dumps(report_dict(report), default=str, indent=2))
                return 0
            print(f"run {report.id} {report.status} on {', '.join(report.scopes)}")
            for s in report.steps:
                counts = " ".join(f"{c.name}={c.value}" for c in s.counts)
                print(f"  {s.step:<15} {s.duration_ms:9.1f} ms  {counts}")
            print(f"{len(report.changes or ())} change(s)")
            return 0
        finally:
            await db.close()

    return asyncio.run(go())


def register(sub: Any) -> None:
    p = sub.add_parser(
        "consolidate", help="consolidate scopes of a tenant (expiry, promotion, dedupe, ...)"
    )
    p.add_argument("--tenant", required=True)
    p.add_argument("--scope", action="append", default=[], help="repeat for several scopes")
    p.add_argument(
        "--resume",
        metavar="RUN_ID",
        help="finish an interrupted or failed run from its recorded progress (no --scope)",
    )
    p.add_argument(
        "--step", action="append", help="repeat to choose steps (default: every step, in order)"
    )
    p.add_argument("--dry-run", action="store_true", help="report the diff, apply nothing")
    p.add_argument("--json", action="store_true", help="print the run as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(handler=_consolidate)
