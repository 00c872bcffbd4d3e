"""The ASGI app: Starlette, API-key auth, strawberry GraphQL with GraphiQL at /graphql."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import importlib.resources
import logging
import math
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

from cross_web import HTTPException
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from strawberry.asgi import GraphQL

from graph_memory import request_trace
from graph_memory.admission import Admission
from graph_memory.container import Services, build_services
from graph_memory.errors import GraphMemoryError, StoreUnavailable
from graph_memory.graphql.context import Context
from graph_memory.graphql.errors import RETRY_AFTER_SECONDS, coded
from graph_memory.graphql.introspection import ANONYMOUS, introspection_only
from graph_memory.graphql.operation_label import describe
from graph_memory.graphql.schema import schema
from graph_memory.graphql_text import parse_aside
from graph_memory.http_guard import (
    Refusal,
    check_headers,
    check_payload,
    check_query_text,
    check_value,
    credential,
    decode_json,
    is_read_only,
    read_body,
    refusal_response,
)
from graph_memory.limits import Limits
from graph_memory.migrations import pending
from graph_memory.observability import RequestObserver, metrics_endpoint
from graph_memory.request_budget import ClientGone, bounded
from graph_memory.services.access.throttle import FailureThrottle
from graph_memory.services.store.embedding_config import StoreBoundEmbedder, check_embedding_model
from graph_memory.session_share import operation_sessions
from graph_memory.settings import Settings

__all__ = ["app_from_env", "create_app"]

log = logging.getLogger("graph_memory")

_AUTH_CHALLENGE = {"WWW-Authenticate": "Bearer"}
# The request body as the endpoint decoded it, for strawberry's decode_json of the same bytes.
_PARSED_BODY: contextvars.ContextVar[tuple[bytes, Any] | None] = contextvars.ContextVar(
    "graph_memory_parsed_body", default=None
)


# GraphiQL's assets ship in the package (graph_memory/static/graphiql, see its SOURCES.md) so
# /graphql works without internet access; strawberry's own page loads them from unpkg.com.
_GRAPHIQL_PACKAGE = ("graph_memory.static", "graphiql")
_GRAPHIQL_ASSET = re.compile(r'(?:src|href)="/graphql/static/([^"]+)"')


def _refuse(r: Refusal, headers: dict[str, str] | None = None) -> Response:
    """A boundary refusal, counted under its code like any GraphQL error."""
    trace = request_trace.current()
    if trace is not None:
        trace.error_codes.append(r.code)
    return refusal_response(r, headers)


def _name_operation(query: object, operation_name: object, limits: Limits) -> None:
    trace = request_trace.current()
    if trace is not None:
        trace.kind, trace.operation = describe(query, operation_name, limits.max_tokens)


def _graphiql_page() -> str:
    """Our copy of strawberry's GraphiQL page; raises at start-up if it names a missing asset."""
    folder = importlib.resources.files(".".join(_GRAPHIQL_PACKAGE))
    page = folder.joinpath("index.html").read_text(encoding="utf-8")
    assets = _GRAPHIQL_ASSET.findall(page)
    missing = [name for name in assets if not folder.joinpath(name).is_file()]
    if not assets or missing:
        raise RuntimeError(f"GraphiQL page names assets not shipped in the package: {missing}")
    return page


async def _query_text(request: Request, limits: Limits) -> object:
    """The operation text of a GET or a JSON POST, read within the body limits (the body
    stays cached for GraphQL); None when there is none or the body is refused."""
    if request.method == "GET":
        return request.query_params.get("query")
    try:
        await read_body(request, limits)
        body = decode_json(await request.body(), limits)
    except Refusal:
        return None
    return body.get("query") if isinstance(body, dict) else None


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

    def decode_json(self, data: str | bytes) -> object:
        # The endpoint has decoded and checked the body already: strawberry gets that value
        # instead of parsing megabytes twice. GET's `variables` parameter is decoded here.
        parsed = _PARSED_BODY.get()
        if parsed is not None and parsed[0] is data:
            return parsed[1]
        return decode_json(data, self.services.settings.limits)

    def parse_query_params(self, params: Any) -> dict[str, Any]:
        parsed = super().parse_query_params(params)
        limits = self.services.settings.limits
        check_value(parsed, limits)
        if isinstance(parsed.get("query"), str):
            check_query_text(parsed["query"], limits)
            _name_operation(parsed["query"], parsed.get("operationName"), limits)
        return parsed

    async def process_result(self, request: Any, result: Any) -> Any:
        response = coded(dict(await super().process_result(request, result)))
        trace = request_trace.current()
        if trace is not None:
            trace.error_codes.extend(e["extensions"]["code"] for e in response.get("errors") or [])
        return response

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
    from graph_memory.services.ingest.extraction import Extractor
    from graph_memory.services.ingest.worker import IngestWorker

    worker = IngestWorker(services, Extractor(settings))
    log.info("ingest worker %s started", worker.owner)

    async def run() -> None:
        try:
            await worker.run(stop)
        finally:
            await worker.extractor.close()

    return stop, asyncio.create_task(run(), name="ingest-worker")


def _start_scheduler(services: Services) -> tuple[asyncio.Event, asyncio.Task[None] | None]:
    """The consolidation scheduler inside `serve`, when a cadence is configured."""
    stop = asyncio.Event()
    every = services.settings.consolidate_every_seconds
    if every <= 0 or services.consolidation is None:
        return stop, None
    from graph_memory.services.consolidation.schedule import ConsolidationScheduler

    scheduler = ConsolidationScheduler(services.consolidation, every)
    log.info("consolidation scheduler started (every %.0f s)", every)
    return stop, asyncio.create_task(scheduler.run(stop), name="consolidation-scheduler")


def _start_forget_resumer(
    services: Services,
) -> tuple[asyncio.Event, asyncio.Task[None] | None]:
    """Resumes forget purges left without a runner (always on: a forget must finish)."""
    stop = asyncio.Event()
    if services.forget is None:
        return stop, None
    from graph_memory.services.forget.worker import ForgetResumer

    resumer = ForgetResumer(services.forget, services.settings.forget_poll_seconds)
    return stop, asyncio.create_task(resumer.run(stop), name="forget-resumer")


def _freeze_startup_objects() -> None:
    """What start-up made (modules, the query catalog, the driver, the embedder) lives as long
    as the process: moved out of the cyclic collector's sight, a full collection no longer
    walks it. Under bench/load.py at 32 clients a full collection stopped the event loop for
    every request in flight for 95-196 ms, every few seconds; with the start-up objects frozen
    they take 12-39 ms, and recall's p95 and p99 there came closer to its p50."""
    gc.collect()
    gc.freeze()


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
        # A process on another embedder than the store's would mix two models' vectors.
        await check_embedding_model(holder["s"].db, holder["s"].embedder, record=False)
        stop, worker = _start_worker(holder["s"])
        stop_schedule, scheduler = _start_scheduler(holder["s"])
        stop_resume, resumer = _start_forget_resumer(holder["s"])
        _freeze_startup_objects()
        try:
            yield
        finally:
            if resumer is not None:
                stop_resume.set()
                await resumer
            if holder["s"].forget is not None:
                await holder["s"].forget.stop()
            if holder["s"].consolidation is not None:
                await holder["s"].consolidation.stop()
            if scheduler is not None:
                stop_schedule.set()
                await scheduler
            if worker is not None:
                stop.set()
                await worker
            if own:
                await holder["s"].close()

    gql = _GraphQL(holder)
    # Per process, like the key cache: a client guessing keys meets 429s, not Neo4j lookups.
    throttle = FailureThrottle(settings.limits.max_failed_auth)
    admission = Admission(settings.max_inflight, settings.max_inflight_per_tenant)
    # Each kind's latency objective orders a tenant's queue (admission.py).
    read_within = settings.read_objective_ms / 1000
    write_within = settings.write_objective_ms / 1000

    async def graphql_endpoint(request: Request) -> Response:
        # GraphiQL itself (a browser GET for HTML) loads without a key; every operation needs one.
        wants_html = "text/html" in request.headers.get("accept", "")
        if request.method == "GET" and wants_html and "query" not in request.query_params:
            return HTMLResponse(gql.graphql_ide_html)
        limits = gql.services.settings.limits
        try:
            check_headers(request, limits)
            key = credential(request)
        except Refusal as e:
            return _refuse(e, _AUTH_CHALLENGE if e.status == 401 else None)
        auth = gql.services.auth
        client = request.client.host if request.client else "unknown"
        if auth.cached(key) is None:
            wait = throttle.retry_after(client)
            if wait is not None:
                return _refuse(
                    Refusal(429, "RATE_LIMITED", "too many failed API keys; retry later"),
                    {"Retry-After": str(math.ceil(wait) or 1)},
                )
        try:
            request.state.principal = await auth.authenticate(key)
        except StoreUnavailable as e:
            # The key may well be good: a 401 would make clients throw it away.
            return _refuse(
                Refusal(503, e.code, e.message), {"Retry-After": str(RETRY_AFTER_SECONDS)}
            )
        except GraphMemoryError as e:
            text = await _query_text(request, limits)
            # Keyless texts are parsed aside too, all of them one at a time ("": no tenant).
            await parse_aside(text, limits.max_tokens, "")
            if introspection_only(text, limits.max_tokens):
                # The schema is public (GraphiQL's docs load before a key is pasted);
                # anything that touches data still needs one.
                request.state.principal = ANONYMOUS
                return await _run(request, limits)
            throttle.failed(client)
            log.info("authentication failed from %s: %s", client, e.message)
            return _refuse(Refusal(401, e.code, e.message), _AUTH_CHALLENGE)
        trace = request_trace.current()
        if trace is not None:
            trace.tenant = request.state.principal.tenant
        return await _run(request, limits)

    async def _run(request: Request, limits: Limits) -> Response:
        try:
            read_only = request.method == "GET"  # strawberry refuses mutations over GET
            if request.method == "GET":
                tenant = request.state.principal.tenant or ""
                await parse_aside(request.query_params.get("query"), limits.max_tokens, tenant)
            if request.method == "POST":
                await read_body(request, limits)
                if "json" in request.headers.get("content-type", ""):
                    body = await request.body()
                    payload = check_payload(decode_json(body, limits), limits)
                    _PARSED_BODY.set((body, payload))
                    tenant = request.state.principal.tenant or ""
                    await parse_aside(payload.get("query"), limits.max_tokens, tenant)
                    _name_operation(payload.get("query"), payload.get("operationName"), limits)
                    read_only = is_read_only(payload, limits)
            tenant = request.state.principal.tenant or ""

            async def operation() -> Response:
                # A few Neo4j sessions at once for the operation, however it fans out.
                with operation_sessions(tenant=tenant):
                    return await gql.run(request)

            if not read_only:
                return await admission.run(operation, tenant, write_within)
            return await bounded(
                admission.run(operation, tenant, read_within),
                request.receive,
                limits.max_query_seconds,
            )
        except ClientGone:
            # Nobody reads the answer; 499 (nginx's "client closed request") is for the log.
            log.info("query cancelled: the client went away")
            return Response(status_code=499)
        except TimeoutError:
            log.warning("query cancelled after %d s", limits.max_query_seconds)
            return _refuse(
                Refusal(
                    503, "TIMEOUT", f"the query ran past {limits.max_query_seconds} s: ask for less"
                )
            )
        except Refusal as e:
            return _refuse(e)
        except HTTPException as e:
            # strawberry's own refusals (unsupported content type, GET for a mutation, ...).
            code = "PAYLOAD_TOO_LARGE" if e.status_code == 413 else "BAD_REQUEST"
            return _refuse(Refusal(e.status_code, code, e.reason))

    async def health(request: Request) -> Response:
        """Liveness and Neo4j reachability, with no detail: a probe learns nothing of the
        deployment (the reason goes to the log)."""
        del request
        try:
            await gql.services.db.driver.verify_connectivity()
        except Exception as e:  # any driver failure means "not healthy", reported as such
            log.warning("health: Neo4j unreachable (%s)", type(e).__name__)
            return JSONResponse(
                {"status": "unavailable"},
                status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> Response:
        """Ready to serve: Neo4j reachable and every migration of this code applied. As with
        /health, the answer names no server and no migration, only what to wait for."""
        del request
        try:
            todo = await pending(gql.services.db)
        except Exception as e:  # any driver failure means "not ready", reported as such
            log.warning("ready: Neo4j unreachable (%s)", type(e).__name__)
            return JSONResponse(
                {"status": "unavailable"},
                status_code=503,
                headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
            )
        if todo:
            return JSONResponse({"status": "migrations pending"}, status_code=503)
        embedder = gql.services.embedder
        if isinstance(embedder, StoreBoundEmbedder) and await embedder.problem() is not None:
            # Switching (`graph-memory reembed`), or this process is on the old embedder.
            return JSONResponse({"status": "embedder mismatch"}, status_code=503)
        return JSONResponse({"status": "ready"})

    return Starlette(
        routes=[
            Route("/graphql", graphql_endpoint, methods=["GET", "POST"]),
            Mount("/graphql/static", StaticFiles(packages=[_GRAPHIQL_PACKAGE]), name="graphiql"),
            Route("/health", health, methods=["GET"]),
            Route("/ready", ready, methods=["GET"]),
            Route("/metrics", metrics_endpoint(settings.metrics_token), methods=["GET"]),
        ],
        middleware=[Middleware(RequestObserver)],
        lifespan=lifespan,
    )


def app_from_env() -> Starlette:
    """The app of one of `graph-memory serve --workers N`'s processes: each configures its
    own logging (a spawned process inherits none) from the environment."""
    from graph_memory.logs import configure

    configure()
    return create_app(Settings.from_env())
