"""Switch the store's embedder in place: every vector re-made with the configured embedder.

A run goes through steps, each recorded on a ``(:ReembedRun)`` node in the same transaction
as the batch it describes, so a crash loses at most the batch in flight and the next run
resumes from the cursor:

1. ``stage``: kind by kind (facts, episodes, memos, procedures, entity names, then digests,
   whose vector is the mean of their members'), in id order, a bounded batch per
   transaction, the new vector is written *beside* the live one (``embedding_next``). Reads
   and writes go on as before, on the live vectors and their indexes. A node written or
   reworded meanwhile is caught by ``sweep``: passes over every kind until one stages nothing.
2. ``switch``: the store says so (``EmbeddingModel.switching_to``); every service process
   refuses vector work within `CHECK_SECONDS` (StoreBoundEmbedder); after that and a grace
   for writes in flight, a last sweep, then the vector indexes made for another size are
   dropped, each kind's staged vector becomes the live one (a batch per transaction), live
   vectors still of the wrong size are re-made (``fix``), the indexes are recreated from
   cypher/schema, and the store's embedder identity is set: processes configured with the
   new embedder serve again, those with the old one refuse vector work until restarted.

A second run while one holds the lease (`LEASE_SECONDS`, renewed by every batch) is refused.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from graph_memory.db import Tx
from graph_memory.domain import utcnow
from graph_memory.embeddings import Embedder
from graph_memory.errors import Conflict
from graph_memory.migrations import schema_migrations
from graph_memory.repositories.reembed import PendingNode, ReembedRepository
from graph_memory.services.consolidation.compaction import mean_vector
from graph_memory.services.procedures.service import intent_text
from graph_memory.services.store.embedding_config import CHECK_SECONDS

__all__ = ["KINDS", "LEASE_SECONDS", "ReembedReport", "Reembedder"]

# Digests last: their vector is the mean of their members' new ones.
KINDS = ("fact", "episode", "memo", "procedure", "entity", "digest")
SWITCH_KINDS = ("fact", "episode", "memo", "procedure", "entity")  # digests are episodes
LEASE_SECONDS = 30.0
# The vector indexes of cypher/schema whose nodes KINDS covers.
KNOWN_INDEXES = frozenset(
    {"fact_embedding", "episode_embedding", "memo_embedding", "procedure_embedding"}
)
_SWEEP_ROUNDS = 5
_STEPS = ("stage", "sweep", "switch_wait", "switch_sweep", "drop", "switch", "fix", "index")

Progress = Callable[[str, int], None]  # (step, nodes done in this batch)


@dataclass
class ReembedReport:
    from_model: str
    from_dimensions: int
    to_model: str
    to_dimensions: int
    resumed: bool = False
    nothing_to_do: bool = False
    staged: dict[str, int] = field(default_factory=dict)
    switched: int = 0
    fixed: int = 0
    indexes_recreated: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Reembedder:
    def __init__(
        self,
        repo: ReembedRepository,
        embedder: Embedder,
        *,
        batch_size: int = 256,
        grace_seconds: float = 10.0,
        lease_seconds: float = LEASE_SECONDS,
        check_seconds: float = CHECK_SECONDS,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch size must be >= 1, got {batch_size}")
        self.repo = repo
        self.embedder = embedder
        self.batch_size = batch_size
        self.grace_seconds = grace_seconds
        self.lease_seconds = lease_seconds
        self.check_seconds = check_seconds
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"

    async def run(self, progress: Progress | None = None) -> ReembedReport:
        """Re-embed the store with `self.embedder`, or resume the run in progress.

        Raises Conflict when another process holds the run's lease, when the run in progress
        targets another embedder, or when the store was never migrated.
        """
        began = time.monotonic()
        say = progress or (lambda _step, _n: None)
        stored = await self.repo.stored_embedder()
        if stored is None:
            raise Conflict("the store has no embedder recorded: run `graph-memory migrate` first")
        target = (self.embedder.model, self.embedder.dimensions)
        state = await self.repo.run()
        if state is not None:
            self._check_resumable(state)
            report = ReembedReport(
                str(state["from_model"]), int(state["from_dimensions"]), *target, resumed=True
            )
            report.staged = dict(zip(KINDS, state.get("staged") or [0] * len(KINDS), strict=True))
            report.switched = int(state.get("switched") or 0)
            report.fixed = int(state.get("fixed") or 0)
        else:
            report = ReembedReport(stored.model, stored.dimensions, *target)
            if (stored.model, stored.dimensions) == target and stored.switching_to is None:
                report.nothing_to_do = True
                return report
            unknown = set(await self.repo.vector_indexes()) - KNOWN_INDEXES
            if unknown:
                # Vectors this code would leave on the old model: refuse rather than mix.
                raise Conflict(
                    f"vector index(es) {', '.join(sorted(unknown))} hold vectors a "
                    "re-embedding does not know how to remake: add their kind to "
                    "graph_memory/services/store/reembed.py"
                )
            report.staged = dict.fromkeys(KINDS, 0)
            state = {
                "model": target[0],
                "dimensions": target[1],
                "from_model": stored.model,
                "from_dimensions": stored.dimensions,
                "step": "stage",
                "kind": KINDS[0],
                "after": "",
                "started_at": utcnow(),
            }
        self._state = state
        self._report = report
        await self._save({**state, **self._counts()})
        step = str(state["step"])
        for name in _STEPS[_STEPS.index(step) :]:
            await getattr(self, "_" + name)(say)
            nxt = _STEPS.index(name) + 1
            if nxt < len(_STEPS):
                await self._save({"step": _STEPS[nxt], "kind": KINDS[0], "after": ""})
        await self._finish()
        report.seconds = time.monotonic() - began
        return report

    async def abandon(self) -> int:
        """Drop the run in progress and the vectors it staged (the live ones were never
        touched); returns how many staged vectors were dropped. Refused once its switch
        began (live vectors are being replaced: finish it instead)."""
        state = await self.repo.run()
        if state is None:
            return 0
        if state["step"] not in _ABANDONABLE:
            raise Conflict(
                f"the re-embedding to {state['model']} is switching over: finish it "
                "(`graph-memory reembed` with that embedder configured)"
            )
        self._check_lease(state)
        dropped = 0
        for kind in SWITCH_KINDS:
            after = ""
            while True:

                async def batch(tx: Tx, k: str = kind, a: str = after) -> list[str]:
                    return await ReembedRepository.discard(tx, k, a, self.batch_size * 8)

                ids = await self.repo.db.write_tx(batch)
                if not ids:
                    break
                dropped += len(ids)
                after = ids[-1]
        await self.repo.db.write_tx(ReembedRepository.forget_run)
        return dropped

    def _check_resumable(self, state: dict[str, Any]) -> None:
        if (state["model"], int(state["dimensions"])) != (
            self.embedder.model,
            self.embedder.dimensions,
        ):
            raise Conflict(
                f"a re-embedding to {state['model']} ({state['dimensions']} dims) is in "
                f"progress: finish it with that embedder configured"
                + (", or `graph-memory reembed --abandon`" if state["step"] in _ABANDONABLE else "")
            )
        self._check_lease(state)

    def _check_lease(self, state: dict[str, Any]) -> None:
        held = state.get("lease_until")
        if held is not None and state.get("owner") != self.owner:
            left = held.to_native().timestamp() - time.time()
            if left > 0:
                raise Conflict(
                    f"another re-embedding ({state.get('owner')}) holds the lease for "
                    f"{left:.0f} s more: it is running, or wait for its lease to run out"
                )

    # -- steps ----------------------------------------------------------------------------

    async def _stage(self, say: Progress) -> None:
        await self._pass("stage", KINDS, say)

    async def _sweep(self, say: Progress) -> None:
        # Nodes written or reworded since their kind's pass; writes go on, so a bounded number
        # of rounds: the switch's own sweep, once writes are refused, takes the rest.
        for _ in range(_SWEEP_ROUNDS):
            if not await self._pass("stage", KINDS, say, from_start=True):
                return

    async def _switch_wait(self, say: Progress) -> None:
        del say
        if self._state.get("switch_began_at") is None:
            now = utcnow()

            async def begin(tx: Tx) -> None:
                await ReembedRepository.begin_switch(tx, str(self._state["model"]))
                await ReembedRepository.save_run(tx, self._props({"switch_began_at": now}))

            await self.repo.db.write_tx(begin)
            self._state["switch_began_at"] = now
            began = now.timestamp()
        else:
            began = self._state["switch_began_at"].to_native().timestamp()
        # Every process's cached view of the store expires, and writes that embedded before
        # it did commit; then nothing embeds with either model until the switch ends.
        wait = began + self.check_seconds + self.grace_seconds - time.time()
        if wait > 0:
            await asyncio.sleep(wait)

    async def _switch_sweep(self, say: Progress) -> None:
        while await self._pass("stage", KINDS, say, from_start=True):
            pass

    async def _drop(self, say: Progress) -> None:
        del say
        target = int(self._state["dimensions"])
        for name, dims in (await self.repo.vector_indexes()).items():
            if dims != target:
                await self.repo.drop_index(name)
                self._report.indexes_recreated.append(name)

    async def _switch(self, say: Progress) -> None:
        kinds = SWITCH_KINDS[SWITCH_KINDS.index(self._kind(SWITCH_KINDS)) :]
        for kind in kinds:
            after = str(self._state["after"]) if kind == self._state["kind"] else ""
            while True:

                async def batch(tx: Tx, k: str = kind, a: str = after) -> list[str]:
                    ids = await ReembedRepository.switch(tx, k, a, self.batch_size * 8)
                    if ids:
                        self._report.switched += len(ids)
                        await ReembedRepository.save_run(
                            tx, self._props({"kind": k, "after": ids[-1]})
                        )
                    return ids

                ids = await self.repo.db.write_tx(batch)
                if not ids:
                    break
                after = ids[-1]
                say("switch", len(ids))

    async def _fix(self, say: Progress) -> None:
        await self._pass("fix", KINDS, say)

    async def _index(self, say: Progress) -> None:
        del say
        statements = [
            s for m in schema_migrations() for s in m.statements if "VECTOR INDEX" in s.upper()
        ]
        await self.repo.create_vector_indexes(statements, int(self._state["dimensions"]))

    async def _finish(self) -> None:
        model, dims = str(self._state["model"]), int(self._state["dimensions"])

        async def done(tx: Tx) -> None:
            await ReembedRepository.finish(tx, model, dims)

        await self.repo.db.write_tx(done)

    # -- batches --------------------------------------------------------------------------

    async def _pass(
        self, mode: str, kinds: tuple[str, ...], say: Progress, *, from_start: bool = False
    ) -> int:
        """Every node of `kinds` still to do in `mode`, from the recorded cursor; returns how
        many were written. `from_start`: a new pass, whatever the cursor says."""
        written = 0
        first = 0 if from_start else kinds.index(self._kind(kinds))
        for kind in kinds[first:]:
            after = "" if from_start or kind != self._state["kind"] else str(self._state["after"])
            while True:
                nodes = await self.repo.pending(
                    kind, mode, int(self._state["dimensions"]), after, self.batch_size
                )
                if not nodes:
                    break
                rows = await self._vectors(kind, nodes)
                last = nodes[-1].id

                async def batch(tx: Tx, k: str = kind, r: list[Any] = rows, a: str = last) -> int:
                    n = await ReembedRepository.stage(tx, k, mode, r)
                    if mode == "stage":
                        self._report.staged[k] += n
                    else:
                        self._report.fixed += n
                    await ReembedRepository.save_run(tx, self._props({"kind": k, "after": a}))
                    return n

                written += await self.repo.db.write_tx(batch)
                after = last
                say(mode, len(nodes))
        return written

    async def _vectors(self, kind: str, nodes: list[PendingNode]) -> list[dict[str, Any]]:
        dims = self.embedder.dimensions
        rows: list[dict[str, Any]] = []
        texts: list[tuple[int, str]] = []
        for n in nodes:
            source = n.text
            if kind == "procedure":
                # The same text a procedure is embedded from when written.
                source = intent_text(str(n.intent or ""), n.description)
            rows.append({"id": n.id, "source": source, "vector": None})
            members = [list(m) for m in n.members if len(m) == dims]
            if kind == "digest" and members:
                rows[-1]["vector"] = mean_vector(members)
            else:
                texts.append((len(rows) - 1, source))
        if texts:
            vectors = await self.embedder.embed([t for _, t in texts])
            for (i, _), v in zip(texts, vectors, strict=True):
                rows[i]["vector"] = v
        return rows

    # -- state ----------------------------------------------------------------------------

    def _kind(self, kinds: tuple[str, ...]) -> str:
        kind = str(self._state.get("kind") or kinds[0])
        return kind if kind in kinds else kinds[0]

    def _counts(self) -> dict[str, Any]:
        r = self._report
        return {
            "staged": [r.staged.get(k, 0) for k in KINDS],
            "switched": r.switched,
            "fixed": r.fixed,
        }

    def _props(self, changes: dict[str, Any]) -> dict[str, Any]:
        self._state.update(changes)
        lease = time.time() + self.lease_seconds
        return {
            **changes,
            **self._counts(),
            "owner": self.owner,
            "lease_until": datetime.fromtimestamp(lease, UTC),
            "updated_at": utcnow(),
        }

    async def _save(self, changes: dict[str, Any]) -> None:
        props = self._props(changes)

        async def save(tx: Tx) -> None:
            await ReembedRepository.save_run(tx, props)

        await self.repo.db.write_tx(save)


_ABANDONABLE = frozenset({"stage", "sweep"})
