"""The MCP HTTP transport's boundary: a request's credential, and a POST's body, are checked
before the MCP SDK sees them.

A request whose credential headers are not one credential the service accepts
(graph_memory/credentials.py: ``Basic``, a bare key, two headers) gets HTTP 401 with a
JSON-RPC error whose ``data.code`` is ``UNAUTHENTICATED``, whatever its method: read as "no
credential" it would run as the key the server is bound to, which may be another tenant's.

The SDK answers a body that is not UTF-8, or JSON nested past Python's recursion limit, with
HTTP 500 and a logged traceback, and passes a lone surrogate (``\\ud800``) on to a tool, where
it surfaces as a codec message. The body rules both transports share
(graph_memory/integrations/mcp_refusals.py: size, UTF-8, JSON, nesting, surrogates) are
applied here, and a refused body gets HTTP 400 (413/431 for size) with a JSON-RPC error whose
``data.code`` is the service's code (``VALIDATION``, ``PAYLOAD_TOO_LARGE``) and whose ``id`` is
the request's when it can be recovered. A request whose id is no JSON-RPC id (the SDK reads it
as a notification and answers 202 with no body) gets HTTP 400 and -32600. Other methods'
bodies (GET's event stream, DELETE) are not read.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph_memory.credentials import CredentialRefused, credential_of
from graph_memory.http_guard import Refusal, check_headers, read_body
from graph_memory.integrations.mcp_refusals import (
    INVALID_REQUEST,
    check_message,
    refusal_message,
    request_id,
)
from graph_memory.limits import Limits

__all__ = ["McpBodyGuard"]


class McpBodyGuard:
    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            credential_of(scope["headers"])
        except CredentialRefused as e:
            error = {"code": INVALID_REQUEST, "message": str(e), "data": {"code": e.code}}
            response = JSONResponse(
                {"jsonrpc": "2.0", "id": None, "error": error},
                status_code=401,
                headers={"WWW-Authenticate": "Bearer"},
            )
            await response(scope, receive, send)
            return
        if scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        body = b""
        try:
            check_headers(request, self.limits)
            await read_body(request, self.limits)
            body = await request.body()
            check_message(body, self.limits)
        except Refusal as r:
            answer = refusal_message(r, request_id(body))
            await JSONResponse(answer, status_code=r.status)(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            # The body was read here: hand it to the SDK once, then the client's own events
            # (a disconnect) as they come.
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
