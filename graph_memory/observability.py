"""Each GraphQL request traced, counted and logged once; ``/metrics`` for Prometheus.

`RequestObserver` is plain ASGI middleware (not Starlette's BaseHTTPMiddleware, which runs
the endpoint in another task and would hide the context variable from it): it opens the
request's trace, answers with its id in ``X-Request-Id``, and when the response starts
records the figures and writes the one request line of the log.

``/metrics`` is not for tenants: with ``GRAPH_MEMORY_METRICS_TOKEN`` set it answers a
``Authorization: Bearer <token>`` header only (Prometheus' ``authorization`` setting);
unset, only clients on this host (loopback) may scrape it.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph_memory import metrics, request_trace

__all__ = ["RequestObserver", "metrics_endpoint"]

log = logging.getLogger("graph_memory.request")

_TRACED = frozenset({"/graphql"})


class RequestObserver:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in _TRACED:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw_id = headers.get(b"x-request-id")
        trace = request_trace.RequestTrace(
            request_trace.request_id_from(raw_id.decode("latin-1") if raw_id else None)
        )
        # Until a response starts: the client went away (nginx's 499) unless the app raised.
        status = 499
        started = False

        async def observed_send(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status, started = int(message["status"]), True
                message.setdefault("headers", [])
                message["headers"] = [
                    *message["headers"],
                    (b"x-request-id", trace.request_id.encode("latin-1")),
                    # How long the operation waited for an in-flight slot (admission.py) and
                    # its reads for database turns (session_share.py), in the standard
                    # header browsers' and clients' timing tools read: a slow answer tells
                    # whether it queued or ran slowly.
                    (
                        b"server-timing",
                        f"queue;dur={trace.queue_seconds * 1000:.1f}, "
                        f"dbturn;dur={trace.turn_seconds * 1000:.1f}".encode(),
                    ),
                ]
            await send(message)

        token = request_trace.use(trace)
        try:
            await self.app(scope, receive, observed_send)
        except Exception:
            if not started:
                status = 500
            trace.error_codes.append("INTERNAL")
            log.exception("request failed outside GraphQL")
            raise
        finally:
            metrics.observe_request(trace, status)
            _log_request(trace, status, scope.get("method", ""))
            request_trace.reset(token)


def _log_request(trace: request_trace.RequestTrace, status: int, method: str) -> None:
    fields = {
        "method": method,
        "status": status,
        "kind": trace.kind,
        "duration_ms": round(trace.elapsed() * 1000, 2),
        "neo4j_ms": round(trace.neo4j_seconds * 1000, 2),
        "neo4j_calls": trace.neo4j_calls,
        "embed_ms": round(trace.embed_seconds * 1000, 2),
        "queue_ms": round(trace.queue_seconds * 1000, 2),
        "db_turn_ms": round(trace.turn_seconds * 1000, 2),
    }
    if trace.error_codes:
        fields["errors"] = sorted(set(trace.error_codes))
    # A 5xx is ours to look at; a client's 4xx or typed error is its own business.
    log.log(logging.WARNING if status >= 500 else logging.INFO, "request", extra=fields)


def _loopback(host: str | None) -> bool:
    if host is None:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def metrics_endpoint(token: str | None) -> Callable[[Request], Awaitable[Response]]:
    def refuse(status: int, code: str, message: str) -> Response:
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(
            {"errors": [{"message": message, "extensions": {"code": code}}]},
            status_code=status,
            headers=headers,
        )

    async def endpoint(request: Request) -> Response:
        if token:
            sent = request.headers.get("authorization", "")
            given = sent[7:].strip() if sent.lower().startswith("bearer ") else ""
            if not hmac.compare_digest(given.encode(), token.encode()):
                return refuse(401, "UNAUTHENTICATED", "/metrics needs the metrics bearer token")
        elif not _loopback(request.client.host if request.client else None):
            return refuse(
                403,
                "FORBIDDEN",
                "/metrics answers this host only; set GRAPH_MEMORY_METRICS_TOKEN to scrape "
                "it from elsewhere",
            )
        return Response(metrics.render(), media_type=metrics.CONTENT_TYPE)

    return endpoint
