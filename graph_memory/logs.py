"""One log format for the whole process: a JSON object a line.

Every line has ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``message`` and ``pid``; a
line written while a request is served also has its ``request_id`` and, once known,
``tenant`` and ``operation``; fields given as ``extra=`` (the request line's ``status``,
``duration_ms``, ...) are added as they are; a traceback, when there is one, is ``exc``.
uvicorn's and the libraries' records go through the same formatter, so nothing prints in a
second format.

Levels, by who is at fault: a client's mistake (a refused key, a VALIDATION or NOT_FOUND
error) is INFO or below and has no traceback; a fault of ours (INTERNAL) is ERROR with the
traceback and the request id the client was given in ``X-Request-Id``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime
from typing import Any

from graph_memory import request_trace

__all__ = ["JsonFormatter", "configure"]

# The attributes every LogRecord has: anything else on a record came in through `extra=`
# (uvicorn's `color_message` is its message again, with terminal colours).
_STANDARD = frozenset(logging.makeLogRecord({}).__dict__) | {
    "message",
    "asctime",
    "taskName",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            # Which process: `serve --workers N` writes N processes' lines into one stream.
            "pid": record.process,
        }
        trace = request_trace.current()
        if trace is not None:
            line["request_id"] = trace.request_id
            if trace.tenant is not None:
                line["tenant"] = trace.tenant
            if trace.operation != "none":
                line["operation"] = trace.operation
        for key, value in record.__dict__.items():
            if key not in _STANDARD and not key.startswith("_"):
                line[key] = value
        if record.exc_info and record.exc_info[0] is not None:
            line["exc"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["exc"] = record.exc_text
        return json.dumps(line, default=str, ensure_ascii=False)


def configure(default_level: str = "INFO") -> None:
    """JSON lines on stderr for the root logger and uvicorn's (whose own handlers are
    dropped, so they propagate here). ``GRAPH_MEMORY_LOG_LEVEL`` sets the level."""
    chosen = (os.environ.get("GRAPH_MEMORY_LOG_LEVEL") or default_level).upper()
    if chosen not in logging.getLevelNamesMapping():
        raise SystemExit(f"GRAPH_MEMORY_LOG_LEVEL={chosen!r} is not a logging level")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(chosen)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
