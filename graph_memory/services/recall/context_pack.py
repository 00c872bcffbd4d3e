"""Working memory: recall packed into a text block that never exceeds a token budget.

Sections go in the spec's order (semantic facts, then episodes, then procedures), then the
events and todos ingestion extracted (memos), items in rank order within each. An item that
does not fit is dropped whole (never cut mid-sentence), reported in the response with its
reason, and logged; a later, smaller item may still fit.

Tokens are counted with the local all-MiniLM WordPiece tokenizer (the one shipped in
``graph_memory/embeddings``), without special tokens. Its 30k vocabulary splits English into at
least as many pieces as the 100k+ BPE vocabularies of current LLMs, so for them the count is a
conservative (high) estimate; every text is also counted at no less than one token per four
UTF-8 bytes, which covers scripts WordPiece folds into single unknown tokens.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from graph_memory.domain import Principal
from graph_memory.errors import ValidationError
from graph_memory.services.recall.ranking import Scored, dt
from graph_memory.services.recall.request import FloorDrops
from graph_memory.services.recall.service import RecallRequest, RecallService

__all__ = ["MAX_BUDGET", "ContextPack", "ContextService", "Packed", "TokenCounter"]

log = logging.getLogger("graph_memory.context")

MAX_BUDGET = 200_000
_HEADERS = {
    "fact": "## Facts",
    "episode": "## Episodes",
    "procedure": "## Procedures",
    "memo": "## Events and todos",
}
_ORDER = ("fact", "episode", "procedure", "memo")


class TokenCounter:
    """Counts tokens with the local tokenizer; loads it once, verified by its pinned sha256."""

    name = "all-MiniLM-L6-v2 wordpiece"

    def __init__(self, path: Path | None = None) -> None:
        # The embedder's own tokenizer, found as package data so the service counts what the
        # model sees wherever the package is installed.
        self._path = path or Path(
            str(resources.files("graph_memory.embeddings") / "tokenizer.json")
        )
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._tokenizer is None:
                from tokenizers import Tokenizer

                from graph_memory.embeddings.local import TOKENIZER_SHA256

                data = self._path.read_bytes()
                if hashlib.sha256(data).hexdigest() != TOKENIZER_SHA256:
                    raise RuntimeError(f"tokenizer at {self._path} fails its pinned sha256")
                tok = Tokenizer.from_str(data.decode("utf-8"))
                # The shipped file truncates at 128 and pads: both would falsify a count.
                tok.no_truncation()
                tok.no_padding()
                self._tokenizer = tok
            return self._tokenizer

    def count(self, text: str) -> int:
        return self.of(self.pieces(text), len(text.encode("utf-8")))

    def pieces(self, text: str) -> int:
        """Word pieces of ``text``. The tokenizer splits at whitespace before anything else,
        so the pieces of lines joined by newlines are the sum of each line's."""
        if not text:
            return 0
        tokenizer = self._tokenizer or self._load()
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    @staticmethod
    def of(pieces: int, size: int) -> int:
        """The count of a text of ``pieces`` word pieces and ``size`` UTF-8 bytes: never below
        a token per 4 bytes (a text the vocabulary splits oddly still costs its length)."""
        return max(pieces, math.ceil(size / 4))


@dataclass
class Packed:
    id: str
    kind: str
    score: float
    tokens: int
    reason: str | None = None


@dataclass
class ContextPack:
    text: str
    tokens: int
    budget: int
    tokenizer: str
    included: list[Packed] = field(default_factory=list)
    dropped: list[Packed] = field(default_factory=list)
    as_of: datetime | None = None
    valid_at: datetime | None = None
    floors: FloorDrops | None = None


def _day(value: Any) -> str:
    d = dt(value)
    return d.date().isoformat() if d else "?"


def render(s: Scored) -> str:
    """One item as the agent reads it: compact, with what makes it trustworthy."""
    r = s.record
    if s.kind == "fact":
        extra = f"{r.get('tier')}, confidence {float(r.get('confidence') or 0):.2f}"
        if r.get("valid_from") is not None:
            extra += f", since {_day(r.get('valid_from'))}"
        return f"- {r.get('text') or r.get('caption')} ({extra})"
    if s.kind == "episode":
        line = (
            f"- {_day(r.get('started_at'))} [{r.get('outcome')}] "
            f"{' '.join(str(r.get('summary') or '').split())}"
        )
        # A reply served in place of its question (services/recall/neighbours.py) reads with it.
        if s.via_text:
            line += f" (in reply to: {' '.join(s.via_text.split())})"
        return line
    if s.kind == "memo":
        when = f" ({'due' if r.get('kind') == 'todo' else 'on'} {_day(r.get('at'))})"
        state = " [done]" if r.get("status") == "done" else ""
        return f"- {r.get('kind')}{state}: {r.get('text')}{when if r.get('at') else ''}"
    steps = "\n".join(f"  {i}. {step}" for i, step in enumerate(r.get("steps") or [], 1))
    return (
        f"- {r.get('intent')} (role {r.get('role')}, v{r.get('version')}, "
        f"{r.get('status')}):\n{steps}"
    )


class ContextService:
    def __init__(self, recall: RecallService, counter: TokenCounter | None = None) -> None:
        self.recall = recall
        self.counter = counter or TokenCounter()

    async def context(
        self, principal: Principal, request: RecallRequest, token_budget: int
    ) -> ContextPack:
        """Recall up to ``request.k`` items per kind and pack them into at most
        ``token_budget`` tokens. Raises ValidationError for a budget outside 1..MAX_BUDGET."""
        if not 1 <= token_budget <= MAX_BUDGET:
            raise ValidationError(f"tokenBudget must be in 1..{MAX_BUDGET}", field="tokenBudget")
        ranked = await self.recall.rank(principal, request, per_kind=request.k)
        items = await self.recall.hydrate(principal.tenant, ranked.items, request.as_of)
        pack = self.pack(items, token_budget)
        pack.as_of, pack.valid_at = ranked.as_of, ranked.valid_at
        pack.floors = ranked.floors
        if pack.dropped:
            log.info(
                "context for tenant %s dropped %d item(s) over a %d-token budget: %s",
                principal.tenant,
                len(pack.dropped),
                token_budget,
                ", ".join(f"{d.kind}:{d.id}" for d in pack.dropped),
            )
        served = {p.id for p in pack.included}
        self.recall.note_retrieved(
            principal.tenant, [s for s in items if s.id in served], request.as_of
        )
        return pack

    def pack(self, items: list[Scored], budget: int) -> ContextPack:
        counter = self.counter
        chosen: dict[str, list[tuple[Scored, str, int]]] = {k: [] for k in _ORDER}
        dropped: list[Packed] = []
        # The block is counted as a whole, not as the sum of its parts' counts: a part's count
        # rounds up on its own, so the sum can exceed the whole, and a block that exactly fits
        # the budget would lose an item it has room for. The whole's count comes from its
        # running pieces and bytes (TokenCounter.pieces: they add up over lines), not from
        # counting the block again per item: that was quadratic, seconds of the event loop
        # for a 200,000-token budget of a few hundred items.
        pieces = size = parts = 0
        for kind in _ORDER:
            header = _HEADERS[kind]
            header_pieces, header_size = counter.pieces(header), len(header.encode("utf-8"))
            for s in (x for x in items if x.kind == kind):
                line = render(s)
                line_pieces, line_size = counter.pieces(line), len(line.encode("utf-8"))
                cost = counter.of(line_pieces, line_size)
                add_pieces, add_size, add_parts = line_pieces, line_size, 1
                if not chosen[kind]:  # the kind's header comes with its first line
                    add_pieces, add_size = add_pieces + header_pieces, add_size + header_size
                    add_parts += 1
                joined = size + add_size + parts + add_parts - 1  # a newline between parts
                if counter.of(pieces + add_pieces, joined) <= budget:
                    chosen[kind].append((s, line, cost))
                    pieces, size, parts = pieces + add_pieces, size + add_size, parts + add_parts
                else:
                    dropped.append(Packed(s.id, kind, s.total, cost, "over_budget"))
        text = self._join(chosen)
        included = [Packed(s.id, k, s.total, c) for k in _ORDER for s, _, c in chosen[k]]
        return ContextPack(
            text=text,
            tokens=counter.count(text),
            budget=budget,
            tokenizer=TokenCounter.name,
            included=included,
            dropped=dropped,
        )

    @staticmethod
    def _join(chosen: dict[str, list[tuple[Scored, str, int]]]) -> str:
        parts: list[str] = []
        for kind in _ORDER:
            if chosen[kind]:
                parts.append(_HEADERS[kind])
                parts += [line for _, line, _ in chosen[kind]]
        return "\n".join(parts)
