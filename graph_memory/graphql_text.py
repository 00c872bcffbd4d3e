"""A request's GraphQL text parsed once for every reader of it.

The HTTP guard (is it read-only?), the request log's label (which operation?), the
introspection check (no key needed?) and strawberry itself (through SharedParserCache) each
need the document; each parsed it on its own, so a 14 KB text (190 copies of one field) cost
20-70 ms of the event loop four times a request. Agents resend the same few texts, hence the
cache (keyed by text and token cap, bounded).

No strawberry here, and graphql-core imported lazily: the MCP server's HTTP guard shares the
guard's module, and an install with the `mcp` extra alone has no graphql-core.
"""

from __future__ import annotations

import asyncio
import functools
from collections import defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphql import DocumentNode

__all__ = ["document", "parse_aside", "parsed"]

# A text this long is parsed in a worker thread, one at a time per tenant: a 5,000-token text
# (the parser's cap) is ~50 ms of Python, and eight of them at once from one tenant held the
# event loop, so every other tenant's reads waited seconds. A shorter one (an agent's usual
# operation: its data in variables) takes under a millisecond, parsed where it is needed.
ASIDE_CHARS = 2_000
_aside: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)


def parsed(query: str, max_tokens: int | None) -> DocumentNode | None:
    """The document, or None when the text does not parse (strawberry reports why)."""
    from graphql import GraphQLError

    try:
        return document(query, max_tokens)
    except (GraphQLError, RecursionError):
        return None


def document(query: str, max_tokens: int | None) -> DocumentNode:
    """The document; raises graphql-core's GraphQLError (syntax, too many tokens) as its
    ``parse`` does (a failure is not cached: it is parsed again, as before)."""
    if len(query) <= ASIDE_CHARS:
        return _short(query, max_tokens)
    return _long(query, max_tokens)


def _parse(query: str, max_tokens: int | None) -> DocumentNode:
    from graphql import parse

    return parse(query, max_tokens=max_tokens)


# Agents resend the same short texts: many are kept. A long text's tree is tens of thousands
# of objects: only the last 16 are kept, as every garbage collection of the process walks
# them (measured against 8 clients of 190-copy texts, another tenant's read p95: 16 kept
# 191 ms, 64 kept 705-749 ms). A request admitted after 16 others' long texts were parsed
# parses its own again, on the loop: the lesser cost.
_short = functools.lru_cache(maxsize=512)(_parse)
_long = functools.lru_cache(maxsize=16)(_parse)


async def parse_aside(query: object, max_tokens: int | None, tenant: str) -> None:
    """Parse a long text off the event loop (into the cache ``parsed`` and ``document`` read),
    a tenant's texts one at a time, so that its parsing waits on itself, not on others."""
    if not isinstance(query, str) or len(query) <= ASIDE_CHARS:
        return
    async with _aside[tenant]:
        await asyncio.to_thread(parsed, query, max_tokens)
