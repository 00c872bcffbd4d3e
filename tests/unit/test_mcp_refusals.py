"""A refused MCP message is answered with the request's id when its top level names one,
however broken the rest is."""

from __future__ import annotations

import pytest

from graph_memory.http_guard import Refusal
from graph_memory.integrations.mcp_refusals import check_message, expects_answer, request_id
from graph_memory.limits import Limits

DEEP = b"[" * 3000 + b"]" * 3000


@pytest.mark.parametrize(
    ("message", "id_"),
    [
        (b'{"jsonrpc": "2.0", "id": 4, "params": {"a": ' + DEEP + b"}}", 4),
        (b'{"params": {"id": 9, "s": "a,}\\"{"}, "id" : "abc"}', "abc"),  # not the nested one
        (b'  {"id": -3}', -3),
        (b'{"jsonrpc": "2.0", "id": 7, "method": ', 7),  # cut short after the id
        (b'{"id": ' + b"1" * 5000 + b"}", None),
        (b'{"id": true}', None),
        (b'{"id": 1.5}', None),
        (b'{"id": "\\ud800"}', None),  # no answer could carry it
        (b'{"method": "notifications/initialized"}', None),
        (b"this is not json", None),
        (b"[1, 2]", None),
    ],
)
def test_the_request_id_is_found_at_the_top_level_only(message: bytes, id_: object) -> None:
    assert request_id(message) == id_


@pytest.mark.parametrize(
    "message",
    [
        b'{"query": "\\ud800"}',
        b'{"a": ' + DEEP + b"}",
        b'{"k": ' + b"9" * 5000 + b"}",
        b'{"q": "\xff"}',
        b'{"k": NaN}',
        b"not json",
    ],
)
def test_a_message_the_sdk_cannot_parse_is_a_validation_refusal(message: bytes) -> None:
    with pytest.raises(Refusal) as refused:
        check_message(message, Limits())
    assert refused.value.code == "VALIDATION"


@pytest.mark.parametrize(
    ("message", "answered"),
    [
        (b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "\\ud800"}', True),
        (b'{"jsonrpc": "2.0", "method": "notifications/x", "params": "\\ud800"}', False),
        (b'{"jsonrpc": "2.0", "id": 0, "result": {"q": "\\ud800"}}', False),
        (b'{"jsonrpc": "2.0", "id": 0, "error": {"code": 1, "message": "\\ud800"}}', False),
        (b'{"params": {"method": "x"}, "id": 3, "result": 1}', False),  # not the nested one
        (b"this is not json", True),
        (b'{"jsonrpc": "2.0", "id": 9, "params": ' + DEEP + b"}", True),  # kind unknown
    ],
)
def test_a_refused_notification_or_response_is_not_answered(message: bytes, answered: bool) -> None:
    assert expects_answer(message) is answered
