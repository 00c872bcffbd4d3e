"""What both MCP transports refuse before the SDK reads a message, and how the refusal reads.

One message (an HTTP POST's body, a stdio line) is held to the GraphQL endpoint's body rules
(graph_memory/http_guard.py): at most ``max_body_bytes``, UTF-8, JSON without ``NaN``, an
integer Python converts, no lone surrogate (``\\ud800``), nesting within ``max_nesting``. The
SDK cannot answer a message that breaks one (it fails to parse it, or passes the surrogate on
to a tool), so the transport answers a JSON-RPC error itself: code -32700 (parse error) for
``VALIDATION``, -32600 otherwise, ``data.code`` the service's code, and the request's ``id``
when a scan of the message's top level finds one, so the client can match it to its call.

A request (a ``method``) whose top-level ``id`` is no JSON-RPC id (an object, a list, a
fraction, a boolean, null) is refused too (-32600, ``VALIDATION``, id null): the SDK reads it as
a notification, since it has a method and no id it accepts, and never answers it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from graph_memory.http_guard import Refusal, check_value, decode_json
from graph_memory.limits import Limits

__all__ = [
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "InvalidRequest",
    "check_message",
    "expects_answer",
    "refusal_message",
    "request_id",
    "too_large",
]

PARSE_ERROR = -32700  # JSON-RPC: the message is not a JSON text the server can parse
INVALID_REQUEST = -32600
_WS = re.compile(rb"[ \t\r\n]*")
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_ID_TEXT_MAX = 200  # an id worth echoing is short; a longer one is answered as null


def too_large(limits: Limits) -> Refusal:
    """The refusal of a message over ``max_body_bytes``."""
    return Refusal(413, "PAYLOAD_TOO_LARGE", f"the message exceeds {limits.max_body_bytes} bytes")


class InvalidRequest(Refusal):
    """A message that parses but is no JSON-RPC message the server may answer as such
    (-32600, where a `Refusal` of its bytes is a parse error)."""


def check_message(body: bytes, limits: Limits) -> Any:
    """The decoded message, or a `Refusal` saying which body rule it breaks."""
    if len(body) > limits.max_body_bytes:
        raise too_large(limits)
    value = decode_json(body, limits)
    check_value(value, limits)
    if _is_request(value) and _as_id_value(value["id"]) is None:
        raise InvalidRequest(400, "VALIDATION", "the request's id must be a string or an integer")
    return value


def _is_request(value: Any) -> bool:
    return isinstance(value, dict) and "method" in value and "id" in value


def refusal_message(r: Refusal, id_: str | int | None) -> dict[str, Any]:
    """The JSON-RPC error answering a refused message: a parse error for a ``VALIDATION``
    refusal of its bytes, an invalid request otherwise."""
    parse = r.code == "VALIDATION" and not isinstance(r, InvalidRequest)
    code = PARSE_ERROR if parse else INVALID_REQUEST
    error = {"code": code, "message": r.message, "data": {"code": r.code}}
    return {"jsonrpc": "2.0", "id": id_, "error": error}


def request_id(body: bytes) -> str | int | None:
    """The top-level ``"id"`` of a message that may not decode (too deep, a huge number, a
    surrogate elsewhere), or None if there is none or it is no valid JSON-RPC id (a string or
    an integer)."""
    raw = _top_level(body).get(b'"id"')
    return None if raw is None else _as_id(raw)


def expects_answer(body: bytes, whole: bool = True) -> bool:
    """Whether a refused message gets an error back: a notification (a method, no id) gets
    none, as JSON-RPC says, nor does a response of the peer's (a result or an error, no
    method), whose id numbers the peer's own requests; anything whose kind cannot be told
    (no JSON, a broken member before those keys) does, with the id found or null. ``whole``
    False: ``body`` is only the start of the message (a line too long to keep), where an id
    may come after the params (the TypeScript SDK writes it last): a method without an id
    seen is answered, with the id null, rather than left waiting."""
    keys = _top_level(body)
    if b'"method"' in keys:
        return b'"id"' in keys or not whole
    return b'"result"' not in keys and b'"error"' not in keys


def _top_level(body: bytes) -> dict[bytes, bytes]:
    """The top-level members of a JSON object, as raw key and value bytes, up to the first one
    that does not scan: values are skipped by brackets and strings, never recursed into, so a
    key inside the arguments is not mistaken for a top-level one."""
    out: dict[bytes, bytes] = {}
    i = _WS.match(body, 0).end()  # type: ignore[union-attr]  # matches the empty string
    if body[i : i + 1] != b"{":
        return out
    i += 1
    while True:
        i = _WS.match(body, i).end()  # type: ignore[union-attr]
        key = _STRING.match(body, i)
        if key is None:
            return out
        i = _WS.match(body, key.end()).end()  # type: ignore[union-attr]
        if body[i : i + 1] != b":":
            return out
        start = i + 1
        end = _value_end(body, start)
        if end < 0:
            return out
        out.setdefault(key.group(), body[start:end])
        if body[end : end + 1] != b",":
            return out
        i = end + 1


def _value_end(body: bytes, i: int) -> int:
    """Where the JSON value starting at ``i`` ends (at the ``,`` or ``}`` after it), or -1."""
    depth = 0
    while i < len(body):
        c = body[i : i + 1]
        if c == b'"':
            m = _STRING.match(body, i)
            if m is None:
                return -1
            i = m.end()
            continue
        if c in (b"[", b"{"):
            depth += 1
        elif c in (b"]", b"}"):
            if depth == 0:
                return i
            depth -= 1
        elif c == b"," and depth == 0:
            return i
        i += 1
    return -1


def _as_id(raw: bytes) -> str | int | None:
    text = raw.strip()
    if len(text) > _ID_TEXT_MAX:
        return None
    try:
        value = json.loads(text)
    except ValueError:  # not JSON (or not UTF-8)
        return None
    return _as_id_value(value)


def _as_id_value(value: Any) -> str | int | None:
    """``value`` if it is a JSON-RPC id MCP accepts (a string or an integer, as the SDK's
    strict ``RequestId``), else None."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no answer could carry it
            return None
    return value
