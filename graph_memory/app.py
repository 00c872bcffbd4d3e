"""The ASGI app: Starlette, API-key auth, strawberry GraphQL with GraphiQL at /graphql."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.resources
import logging
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from strawberry.asgi import GraphQL

from graph_memory.container import Services, build_services
from graph_memory.errors import GraphMemoryError
from graph_memory.graphql.context import Context
from graph_memory.graphql.errors import coded
from graph_memory.graphql.schema import schema
from graph_memory.settings import Settings

__all__ = ["create_app"]

log = logging.getLogger("graph_memory")


# GraphiQL's assets ship in the package (graph_memory/static/graphiql, see its SOURCES.md) so
# /graphql works without internet access; strawberry's own page loads them from unpkg.com.
_GRAPHIQL_PACKAGE = ("graph_memory.static", "graphiql")
_GRAPHIQL_ASSET = re.compile(r'(?:src|href)="/graphql/static/([^"]+)"')


def _graphiql_page() -> str:
    """Our copy of strawberry's GraphiQL page; raises at start-up if it names a missing asset."""
    folder = importlib.resources.files(".".join(_GRAPHIQL_PACKAGE))
    page = folder.joinpath("index.html").read_text(encoding="utf-8")
    assets = _GRAPHIQL_ASSET.findall(page)
    missing = [name for name in assets if not folder.joinpath(name).is_file()]
    if not assets or missing:
        raise RuntimeError(f"GraphiQL page names assets not shipped in the package: {missing}")
    return page


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("x-api-key")


class _GraphQL(GraphQL[Context, None]):
    def __init__(self, holder: dict[str, Services]) -> None:
        super().__init__(schema, graphql_ide="graphiql")
        self._holder = holder
        self._ide_html = _graphiql_page()

    @property
    def graphql_ide_html(self) -> str:
        return self._ide_html

    @property
    def services(self) -> Services:
        return self._holder["s"]

    async def process_result(self, request: Any, result: Any) -> Any:
        return coded(dict(await super().process_result(request, result)))

    async def get_context(self, request: Any, response: Any) -> Context:
        return Context(
            principal=request.state.principal,
            services=self.services,
            request=request,
            response=response,
        )


def _start_worker(services: Services) -> tuple[asyncio.Event, asyncio.Task[None] | None]:
    """The ingest worker inside `serve`: only with a model configured and not switched off
    (extraction may run in separate `graph-memory worker` processes instead)."""
    stop = asyncio.Event()
    settings = services.settings
    if not (settings.llm_configured and settings.ingest_worker):
        return stop, None
    from graph_memory.services.extraction import Extractor
    from graph_memory.services.ingest_worker import IngestWorker

    worker = IngestWorker(services, Extractor(settings))
    log.info("ingest worker %s started", worker.owner)

    async def run() -> None:
        try:
            await worker.run(stop)
        finally:
            await worker.extractor.close()

    return stop, asyncio.create_task(run(), name="ingest-worker")


def create_app(
    settings: Settings | None = None,
    services: Services | None = None,
    services_factory: Callable[[Settings], Services] | None = None,
) -> Starlette:
    """Build the app. Services are made inside the server's event loop (the async driver is
    bound to the loop that created it), by ``services_factory`` when given."""
    settings = settings or Settings.from_env()
    holder: dict[str, Services] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        own = services is None
        holder["s"] = services or (services_factory or build_services)(settings)
        await holder["s"].db.driver.verify_connectivity()
        stop, worker = _start_worker(holder["s"])
        try:
            yield
        finally:
            if worker is not None:
                stop.set()
                await worker
            if own:
                await holder["s"].close()

    gql = _GraphQL(holder)

    async def graphql_endpoint(request: Request) -> Response:
        # GraphiQL itself (a browser GET for HTML) loads without a key; every operation needs one.
        wants_html = "text/html" in request.headers.get("accept", "")
        if request.method == "GET" and wants_html and "query" not in request.query_params:
            return HTMLResponse(gql.graphql_ide_html)
        try:
            request.state.principal = await gql.services.auth.authenticate(_bearer(request))
        except GraphMemoryError as e:
            return JSONResponse(
                {"errors": [{"message": e.message, "extensions": {"code": e.code}}]},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
        try:
            return await gql.run(request)
        except HTTPException as e:
            return PlainTextResponse(e.reason, status_code=e.status_code)

    async def health(request: Request) -> Response:
        del request
        try:
            await gql.services.db.driver.verify_connectivity()
        except Exception as e:  # any driver failure means "not healthy", reported as such
            return JSONResponse({"status": "unavailable", "error": str(e)}, status_code=503)
        return JSONResponse({"status": "ok"})

    return Starlette(
        routes=[
            Route("/graphql", graphql_endpoint, methods=["GET", "POST"]),
            Mount("/graphql/static", StaticFiles(packages=[_GRAPHIQL_PACKAGE]), name="graphiql"),
            Route("/health", health, methods=["GET"]),
        ],
        lifespan=lifespan,
    )
