"""Failed-key throttling: a client guessing keys gets 429s instead of database lookups.

Counted per client address over a sliding window. Once an address has failed ``max_failures``
times within ``window`` seconds, its requests with a key not already known good are refused
(``RATE_LIMITED``, with the seconds until its oldest failure ages out) without touching the
store; a key in the auth cache still works, so a busy agent behind the same address is not
locked out by a neighbour's typos. Memory is bounded: at most ``max_clients`` addresses are
tracked, the least recently failing forgotten first.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque

__all__ = ["FailureThrottle"]


class FailureThrottle:
    def __init__(self, max_failures: int, window: float = 60.0, max_clients: int = 100_000) -> None:
        self.max_failures = max_failures
        self.window = window
        self.max_clients = max_clients
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, client: str, now: float) -> deque[float] | None:
        times = self._failures.get(client)
        if times is None:
            return None
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self._failures[client]
            return None
        return times

    def retry_after(self, client: str) -> float | None:
        """Seconds this client must wait, or None when it may try a key."""
        now = time.monotonic()
        times = self._recent(client, now)
        if times is None or len(times) < self.max_failures:
            return None
        return max(0.0, times[0] + self.window - now)

    def failed(self, client: str) -> None:
        now = time.monotonic()
        times = self._recent(client, now) or deque()
        times.append(now)
        # Keep only what can still count: the window's last max_failures attempts.
        while len(times) > self.max_failures:
            times.popleft()
        self._failures[client] = times
        self._failures.move_to_end(client)
        while len(self._failures) > self.max_clients:
            self._failures.popitem(last=False)
