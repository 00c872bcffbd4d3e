"""Request limits: how much one request may ask of the service.

The service is one process serving every tenant; a single request that walks ten levels of
``dependents`` or asks 1,000 aliased ``recall``\\s stalls every other tenant behind it. Each
bound below is refused with a typed error before any work is done:

* ``QUERY_TOO_COMPLEX``: the operation's shape (text length, nesting, tokens, depth, aliases,
  estimated cost);
* ``PAYLOAD_TOO_LARGE`` (HTTP 413, or 431 for headers): the request's bytes;
* ``VALIDATION`` (with ``extensions.limit``): one argument's size (a batch, a scope list, a
  text, a page).

Every limit is a deployment setting (``GRAPH_MEMORY_LIMIT_<NAME>``); the defaults leave room
for every documented use with a margin.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields

__all__ = ["Limits"]


@dataclass(frozen=True)
class Limits:
    # The HTTP request.
    max_body_bytes: int = 2 * 1024 * 1024  # 1,000 facts with 2 KB texts; ~40 ms of JSON
    max_header_bytes: int = 16 * 1024
    # The GraphQL document.
    max_query_chars: int = 50_000
    max_tokens: int = 5_000
    max_nesting: int = 64  # brackets of any kind, and JSON nesting of the variables
    max_depth: int = 12
    max_aliases: int = 30
    # Estimated values resolved (see graphql/limits.py for the model).
    max_cost: int = 100_000
    # Arguments.
    max_batch: int = 1_000  # assertFacts / defineTenant-style batch arguments
    max_episode_batch: int = 200  # recordEpisodes: each item is embedded
    max_scopes: int = 100
    max_list: int = 200  # any other list argument or input field
    max_query_text: int = 32_000  # recall/context query text (a pasted page still fits)
    max_string: int = 20_000  # any other string argument or input field
    # Seconds a query may run before it is cancelled (503 TIMEOUT); mutations are not cut
    # off (one stopped between two transactions would be half applied): their batch limits
    # bound them instead.
    max_query_seconds: int = 30
    # Authentication: failed keys per client address per minute before 429 RATE_LIMITED.
    max_failed_auth: int = 20
    # Versions that compete in one slot (one object's, for a many-valued predicate): every
    # write there resolves the rule over all of them under the slot's lock, at a cost that
    # grows with their square (about a second at 1,000 dated versions on one core), so a
    # client retelling one slot without end would stall it and burn every tenant's CPU. A
    # write that would add one more is VALIDATION (limit max_slot_versions); a re-telling of
    # a version already there still lands.
    max_slot_versions: int = 1_000

    @classmethod
    def from_env(cls) -> Limits:
        """``GRAPH_MEMORY_LIMIT_MAX_DEPTH=8`` etc.; a non-positive or non-integer value is a
        configuration error raised at start-up, not a silently unlimited service."""
        values: dict[str, int] = {}
        for f in fields(cls):
            name = f"GRAPH_MEMORY_LIMIT_{f.name.upper()}"
            raw = os.environ.get(name)
            if raw is None or raw == "":
                continue
            try:
                value = int(raw)
            except ValueError as e:
                raise SystemExit(f"{name}={raw!r} is not an integer") from e
            if value < 1:
                raise SystemExit(f"{name}={raw!r} must be >= 1")
            values[f.name] = value
        return cls(**values)
