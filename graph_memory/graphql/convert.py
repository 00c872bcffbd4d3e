"""Driver values to API values."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

from graph_memory.domain import as_datetime
from graph_memory.errors import ValidationError

__all__ = ["decode_cursor", "dt", "encode_cursor"]


def dt(value: Any) -> datetime | None:
    return as_datetime(value)


def encode_cursor(at: Any, ident: str) -> str:
    stamp = dt(at)
    raw = json.dumps([stamp.isoformat() if stamp else None, ident])
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_cursor(cursor: str | None) -> tuple[datetime, str] | None:
    if not cursor:
        return None
    try:
        at, ident = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        stamp = datetime.fromisoformat(at)
    except (ValueError, TypeError) as e:
        raise ValidationError("malformed cursor", field="after") from e
    if stamp.tzinfo is None:
        # Cursors we issue always carry UTC; a naive one was forged and would match nothing.
        raise ValidationError("malformed cursor", field="after")
    return stamp, str(ident)
