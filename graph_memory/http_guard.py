"""The HTTP boundary: what a request's bytes must be before GraphQL sees them.

Everything a client can get wrong below the GraphQL layer is refused here, once, with a
GraphQL-shaped JSON body (``{"errors": [{"message", "extensions": {"code"}}]}``), never a
``text/plain`` 500:

* headers over ``max_header_bytes`` (431), a body over ``max_body_bytes`` (413):
  ``PAYLOAD_TOO_LARGE``;
* more than one credential (two ``Authorization`` headers, or one plus ``X-Api-Key``), or one
  in a form not accepted (``Basic``, a bare key, an empty one): 401 ``UNAUTHENTICATED``
  (graph_memory/credentials.py);
* a body that is not UTF-8, not JSON, not a JSON object, uses ``NaN``/``Infinity``, nests
  past what ``json`` can decode, holds an integer longer than Python converts
  (``sys.get_int_max_str_digits()``, 4300 digits; the limit stays: it guards against
  quadratic-time conversion) or a lone surrogate (``\\ud800``) in any string: 400
  ``VALIDATION``. Python decodes ``"\\ud800"`` into a str that cannot be encoded back, which
  the driver met deep in a write as an INTERNAL error; checked here it covers every string
  argument of every field;
* a query text over ``max_query_chars`` or bracketed deeper than ``max_nesting``: 400
  ``QUERY_TOO_COMPLEX`` (graphql-core's recursive parser would otherwise overflow the stack).
"""

from __future__ import annotations

import functools
import json
import re
import sys
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from graph_memory.credentials import CredentialRefused, credential_of
from graph_memory.limits import Limits

__all__ = [
    "Refusal",
    "check_headers",
    "check_payload",
    "check_query_text",
    "check_value",
    "credential",
    "decode_json",
    "is_read_only",
    "read_body",
    "refusal_response",
]

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# GraphQL strings (block strings first) and comments: brackets inside them do not nest.
_NOT_CODE = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*')
_BRACKETS = re.compile(r"[{}()\[\]]")


class Refusal(Exception):
    """A request refused at the boundary, with its HTTP status and ``extensions.code``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def refusal_response(r: Refusal, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"errors": [{"message": r.message, "extensions": {"code": r.code}}]},
        status_code=r.status,
        headers=headers,
    )


def check_headers(request: Request, limits: Limits) -> None:
    raw = request.headers.raw
    size = sum(len(k) + len(v) + 4 for k, v in raw)
    if size > limits.max_header_bytes:
        raise Refusal(
            431, "PAYLOAD_TOO_LARGE", f"request headers exceed {limits.max_header_bytes} bytes"
        )
    declared = request.headers.get("content-length")
    # ASCII digits only ("²".isdigit() is true, int() refuses it), and a length test before
    # int(), which refuses more than 4300 digits.
    if (
        declared is not None
        and declared.isascii()
        and declared.isdigit()
        and (len(declared) > 18 or int(declared) > limits.max_body_bytes)
    ):
        raise Refusal(
            413, "PAYLOAD_TOO_LARGE", f"request body exceeds {limits.max_body_bytes} bytes"
        )


def credential(request: Request) -> str | None:
    """The one API key the request carries (graph_memory/credentials.py says which forms):
    None without any credential header, a 401 Refusal for one in a form not accepted."""
    try:
        return credential_of(request.headers.raw)
    except CredentialRefused as e:
        raise Refusal(401, e.code, str(e)) from None


async def read_body(request: Request, limits: Limits) -> None:
    """Read the body up to the limit (a chunked upload has no Content-Length to check) and
    leave it where Starlette's ``request.body()`` finds it."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limits.max_body_bytes:
            raise Refusal(
                413, "PAYLOAD_TOO_LARGE", f"request body exceeds {limits.max_body_bytes} bytes"
            )
        chunks.append(chunk)
    request._body = b"".join(chunks)


def _no_constant(name: str) -> Any:
    raise Refusal(400, "VALIDATION", f"{name} is not a JSON number GraphQL accepts")


def decode_json(data: str | bytes, limits: Limits) -> Any:
    """JSON from the client (the body, or GET's ``variables``), checked by ``check_value``."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refusal(400, "VALIDATION", "the request body is not valid UTF-8") from None
    else:
        text = data
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise Refusal(
            400, "VALIDATION", f"the request body nests deeper than {limits.max_nesting} levels"
        ) from None
    except json.JSONDecodeError as e:
        raise Refusal(400, "VALIDATION", f"the request body is not JSON: {e.msg}") from None
    except ValueError:
        # The one other ValueError json.loads raises: int() refusing a literal over the
        # interpreter's digit limit (its message suggests lifting the limit; ours does not).
        raise Refusal(
            400,
            "VALIDATION",
            f"the request body holds an integer of more than {sys.get_int_max_str_digits()} digits",
        ) from None
    # Strict UTF-8 decoding has already refused raw surrogates, so one can only come from a
    # \\uD800-style escape: without one in the text (nearly always) the walk is skipped, which
    # on a 3 MB batch is 130 ms saved. Nesting past json's own recursion limit raised above;
    # nesting within it is bounded per argument by QueryLimits.
    if _SURROGATE_ESCAPE.search(text):
        check_value(value, limits)
    return value


def check_payload(value: Any, limits: Limits) -> dict[str, Any]:
    """The request object (query, variables, operationName, extensions), decoded."""
    if not isinstance(value, dict):
        raise Refusal(
            400,
            "VALIDATION",
            "the request body must be a JSON object {query, variables, operationName}",
        )
    query = value.get("query")
    if isinstance(query, str):
        check_query_text(query, limits)
    return value


def check_value(value: Any, limits: Limits) -> None:
    """Every string in a decoded JSON value is valid Unicode; nesting stays bounded."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limits.max_nesting:
            raise Refusal(
                400, "VALIDATION", f"the request nests deeper than {limits.max_nesting} levels"
            )
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise Refusal(
                    400,
                    "VALIDATION",
                    "a string holds a lone UTF-16 surrogate (such as \\ud800): not valid Unicode",
                )
        elif isinstance(item, dict):
            for k, v in item.items():
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(item, list):
            stack.extend((x, depth + 1) for x in item)


def check_query_text(query: str, limits: Limits) -> None:
    if len(query) > limits.max_query_chars:
        raise Refusal(
            400,
            "QUERY_TOO_COMPLEX",
            f"the query text is longer than {limits.max_query_chars} characters",
        )
    if _nesting(query) > limits.max_nesting:
        raise Refusal(
            400,
            "QUERY_TOO_COMPLEX",
            f"the query nests brackets deeper than {limits.max_nesting} levels",
        )


def is_read_only(payload: dict[str, Any], limits: Limits) -> bool:
    """True when the operation to run is a query (not a mutation): only those may be cut off
    by the time budget, since a mutation stopped between two of its transactions would be
    half applied."""
    query = payload.get("query")
    if not isinstance(query, str):
        return False
    name = payload.get("operationName")
    return _read_only(query, name if isinstance(name, str) else None, limits.max_tokens)


@functools.lru_cache(maxsize=512)
def _read_only(query: str, name: str | None, max_tokens: int) -> bool:
    # Imported here: the MCP server's HTTP guard shares this module's body and header checks,
    # and an install with the `mcp` extra alone has no graphql-core.
    from graphql import OperationDefinitionNode, OperationType

    from graph_memory.graphql_text import parsed

    doc = parsed(query, max_tokens)
    if doc is None:
        return False  # strawberry reports it; nothing runs
    ops = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    if name is not None:
        ops = [o for o in ops if o.name is not None and o.name.value == name]
    return bool(ops) and all(o.operation is OperationType.QUERY for o in ops)


@functools.lru_cache(maxsize=512)
def _nesting(query: str) -> int:
    """How deep the document's brackets go; agents resend the same texts, hence the cache."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(_NOT_CODE.sub("", query)):
        if m.group() in "{([":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest
