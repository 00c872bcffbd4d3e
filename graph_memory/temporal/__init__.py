"""The time rule, written once: pure Python, no driver, no GraphQL.

A slot's versions and their lifecycle (``VersionLife``) are resolved into its effective
timeline: which version answers for which stretch of validity time, for which stretch of
belief time (``Segment``). Writes store that timeline (repositories/timeline.py); every
bitemporal read is then a plain interval predicate on it.
"""

from __future__ import annotations

from graph_memory.temporal.clock import clock_after
from graph_memory.temporal.model import Claim, Span, Telling, VersionLife, View
from graph_memory.temporal.rule import beats, winners_at
from graph_memory.temporal.timeline import (
    Segment,
    answers_at,
    bitemporal,
    effective,
    normalise,
    settle_open,
)
from graph_memory.temporal.withdrawal import (
    Link,
    Said,
    kept_telling,
    repromote,
    rest_on,
    withdraw,
)

__all__ = [
    "Claim",
    "Link",
    "Said",
    "Segment",
    "Span",
    "Telling",
    "VersionLife",
    "View",
    "answers_at",
    "beats",
    "bitemporal",
    "clock_after",
    "effective",
    "kept_telling",
    "normalise",
    "repromote",
    "rest_on",
    "settle_open",
    "winners_at",
    "withdraw",
]
