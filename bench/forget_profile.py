"""Phase 2 of a forget, per statement: load one tenant as bench/forget.py does, purge it with
no other load, print each named statement's total time (the metrics histogram), the time
inside the batches' transaction functions and in their commits; with ``floor``, the bare
batched DETACH DELETE of the same nodes on a fresh copy, in the same run, and that floor (bare,
then with the audit redaction) in write transactions of BATCH, its statements' time apart from
its commits'.

    python bench/forget_profile.py FACTS EMBED(0|1) BATCH [floor]
    python bench/forget_profile.py 10000 1 2000 floor
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import uuid
from typing import Any

import forget as B

from graph_memory import metrics
from graph_memory.db import Database
from graph_memory.domain import Principal, Role
from graph_memory.embeddings import LocalEmbedder
from graph_memory.repositories.trust import TrustRepository
from graph_memory.services.forget.service import ForgetService
from graph_memory.services.store.timeline_backfill import rebuild_tenant
from graph_memory.services.trust.policy import PolicyStore
from graph_memory.settings import Settings


async def main(n: int, embed: bool, batch: int, floor: bool) -> None:
    B.EMBED = embed
    settings = Settings.from_env()
    db = Database.connect(settings.neo4j())
    rng = np.random.default_rng(7)
    emb = LocalEmbedder()
    emb.load()
    svc = ForgetService(db, PolicyStore(TrustRepository(db)).policy_for, emb, batch_size=batch)
    tenant = f"forgetprof-{uuid.uuid4().hex[:8]}"
    await B.load(db, tenant, n, max(1, n // 10), rng)
    await rebuild_tenant(db, tenant)
    admin = Principal(tenant=tenant, role=Role.ADMIN, key_id="b", name="b")

    def snap():
        out = {}
        for fam in metrics.NEO4J_QUERY_SECONDS.collect():
            for s in fam.samples:
                if s.name.endswith("_sum"):
                    out[next(iter(s.labels.values()))] = s.value
        return out

    acc = {"embed": 0.0, "write_tx": 0.0}
    orig_embed = emb.embed

    async def embed(texts):
        t = time.perf_counter()
        r = await orig_embed(texts)
        acc["embed"] += time.perf_counter() - t
        return r

    emb.embed = embed
    orig_wt = db.write_tx

    async def write_tx(fn):
        box = {}

        async def wrapped(tx):
            t1 = time.perf_counter()
            r = await fn(tx)
            box["end"] = time.perf_counter()
            acc["in_fn"] = acc.get("in_fn", 0) + box["end"] - t1
            return r

        t = time.perf_counter()
        r = await orig_wt(wrapped)
        e = time.perf_counter()
        acc["write_tx"] += e - t
        acc["commit"] = acc.get("commit", 0) + e - box["end"]
        return r

    db.write_tx = write_tx
    s0 = snap()
    t = time.perf_counter()
    job = await svc.mark(admin, "victim")
    p1 = time.perf_counter() - t
    t = time.perf_counter()
    j = await svc.run(tenant, job)
    el = time.perf_counter() - t
    s1 = snap()
    d = sorted(((s1[k] - s0.get(k, 0), k) for k in s1), reverse=True)
    print(
        f"n={n} batch={batch} phase1 {p1 * 1000:.0f} ms phase2 {el:.2f}s "
        f"{j.counts.fact_versions_deleted / el:.0f} v/s batches {j.batches}"
    )
    tot = sum(x for x, _ in d)
    print("  ", {k: round(v, 2) for k, v in acc.items()})
    for x, k in d[:25]:
        print(f"  {x:7.2f}s {100 * x / el:5.1f}%  {k}")
    print(f"  sum of statements {tot:.2f}s of {el:.2f}s")
    await B.clean(db, tenant)
    if floor:
        tenant = f"forgetprof-{uuid.uuid4().hex[:8]}"
        await B.load(db, tenant, n, max(1, n // 10), rng)
        await rebuild_tenant(db, tenant)
        ms, v = await B.floor(db, tenant, batch=10_000, redact=False)
        print(
            f"  floor {ms / 1000:.2f}s = {v / (ms / 1000):.0f} v/s; "
            f"purge/floor = {el / (ms / 1000):.2f}x"
        )
        await B.clean(db, tenant)
        # Where a bare delete's time goes: its statements, or their commits (index upkeep);
        # and what blanking the audit events about the same nodes adds to each.
        for redact in (False, True):
            tenant = f"forgetprof-{uuid.uuid4().hex[:8]}"
            await B.load(db, tenant, n, max(1, n // 10), rng)
            await rebuild_tenant(db, tenant)
            total, statements = await _floor_split(db, tenant, batch, redact)
            what = "+ audit redaction" if redact else "bare"
            print(
                f"  floor {what}, batch {batch}, in write transactions: {total:.2f}s, "
                f"statements {statements:.2f}s, commits {total - statements:.2f}s; "
                f"purge/it = {el / total:.2f}x"
            )
            await B.clean(db, tenant)
    await db.close()


async def _floor_split(db: Database, tenant: str, batch: int, redact: bool) -> tuple[float, float]:
    """bench/forget.py's floor, each batch one write transaction: (total s, statements s)."""
    rows = await db.run_raw(
        "CALL () { " + B.FLOOR + " } RETURN collect(elementId(n)) AS ids, collect(n.id) AS keys",
        {"tenant": tenant},
    )
    ids, keys = list(rows[0]["ids"]), list(rows[0]["keys"])
    statements = 0.0
    started = time.perf_counter()
    for i in range(0, len(ids), batch):

        async def work(tx: Any, lo: int = i) -> float:
            t = time.perf_counter()
            if redact:
                done = await tx._tx.run(
                    B.FLOOR_REDACT, {"tenant": tenant, "ids": keys[lo : lo + batch]}
                )
                await done.consume()
            done = await tx._tx.run(B.FLOOR_DELETE, {"ids": ids[lo : lo + batch]})
            await done.consume()
            return time.perf_counter() - t

        statements += await db.write_tx(work)
    return time.perf_counter() - started, statements


asyncio.run(main(int(sys.argv[1]), sys.argv[2] == "1", int(sys.argv[3]), len(sys.argv) > 4))
