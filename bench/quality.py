"""Retrieval quality of recall on synthetic multi-session conversations (bench/quality_data.py).

    python bench/quality.py                       # 6 conversations x 12 sessions, seed 7
    python bench/quality.py --conversations 10 --sessions 20 --seed 3

Every turn is recorded as an episode through the real EpisodeService (so sessions are NEXT
chains), one scope per conversation. Each question has one evidence turn; we report hit@5 and
hit@10 (the evidence among the first 5 / 10 episodes returned) for:

* recall: the product's RecallService, as the API runs it (pool-normalised fusion, recency
  against the scope's activity, floors, the reply after a matched question);
* recall with its floors off (minScore, minRelevance, relativeRelevance 0): what they cost;
* recall without the reply lift: the same, with services/recall/neighbours.py switched off (an
  ablation: how much comes from the fusion alone);
* old weighting: the scoring recall had before (raw cosine 0.5 + keyword x coverage 0.2 +
  wall-clock recency 0.2 + confidence 0.1, minScore 0.3, relevance floors on mixed scales),
  applied to the same candidate pool;
* BM25 only, vector only: the full-text and vector indexes' own orders (each index's top 20
  are in the pool, so their top 10 are exact).

in two reference-time modes: "live" (validAt an hour after the last session, as a deployment
asks) and "far future" (validAt five years later, as an offline benchmark over old data asks).
Needs a running Neo4j (graph-memory neo4j start); the bench tenant is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from quality_data import LAST, Conversation, Question, generate

from graph_memory.container import build_services
from graph_memory.db import Record
from graph_memory.domain import EpisodeInput, Outcome, Principal, Role
from graph_memory.migrations import migrate
from graph_memory.repositories.recall import Search
from graph_memory.services.recall import service as recall_module
from graph_memory.services.recall.ranking import Scored, build_lucene, coverage, recency
from graph_memory.services.recall.service import RecallRequest
from graph_memory.settings import Settings

MODES = {"live": LAST + timedelta(hours=1), "far future": LAST + timedelta(days=5 * 365)}
OVER_RECALL = 20  # the API's default


def old_weighting(rows: list[Record], query: str, valid_at: datetime) -> list[str]:
    """The scoring recall used before pool normalisation, kept here as the baseline: raw
    cosine, keyword = BM25 / best x coverage, recency from validAt, its floors (minScore 0.3,
    relevance max(cosine, keyword) >= 0.3 and >= 0.5 x the best's)."""
    best_kw = max((float(r["keyword"] or 0) for r in rows), default=0.0)
    scored = []
    for r in rows:
        cos = min(max(2 * float(r["similarity"] or 0.5) - 1, 0.0), 1.0)
        kw = float(r["keyword"] or 0) / best_kw if best_kw > 0 else 0.0
        if kw > 0:
            kw *= coverage(query, str(r["text"]))
        age = valid_at - datetime.fromtimestamp(r["fresh_ms"] / 1000, valid_at.tzinfo)
        rec = recency(age.total_seconds(), 30.0)
        total = 0.5 * cos + 0.2 * kw + 0.2 * rec + 0.1 * float(r["confidence"] or 0)
        scored.append((total, max(cos, kw), str(r["id"])))
    top = max((rel for _, rel, _ in scored), default=0.0)
    kept = [s for s in scored if s[0] >= 0.3 and s[1] >= 0.3 and s[1] >= 0.5 * top]
    return [i for _, _, i in sorted(kept, reverse=True)]


def _unlifted(ranked: list[Scored], replies: object, follows: object) -> list[Scored]:
    return ranked


def by_signal(rows: list[Record], key: str) -> list[str]:
    hits = [r for r in rows if r[key] is not None]
    return [str(r["id"]) for r in sorted(hits, key=lambda r: -float(r[key]))]


async def load(services: object, principal: Principal, convs: list[Conversation]) -> dict:
    """Record every session (one batch each, turns in order); evidence turn id per question."""
    evidence: dict[int, str] = {}
    for conv in convs:
        for s, turns in enumerate(conv.sessions):
            items = [
                EpisodeInput(
                    user_id=conv.id,
                    session_id=f"{conv.id}-s{s}",
                    started_at=t.at,
                    ended_at=t.at,
                    summary=t.text,
                    outcome=Outcome.SUCCESS,
                    source="user",
                    confidence=0.8,
                )
                for t in turns
            ]
            got = await services.episodes.record(principal, items)  # type: ignore[attr-defined]
            for t, (ep_id, err) in zip(turns, got, strict=True):
                if err is not None:
                    raise SystemExit(f"turn refused: {t.text!r}: {err}")
                if t.evidence_for is not None:
                    evidence[t.evidence_for] = str(ep_id)
    return evidence


async def run(args: argparse.Namespace) -> None:
    settings = Settings.from_env()
    services = build_services(settings)
    tenant = f"bench-quality-{uuid.uuid4().hex[:8]}"
    principal = Principal(tenant=tenant, role=Role.AGENT, key_id="bench", name="bench")
    try:
        await migrate(services.db, dimensions=services.embedder.dimensions)
        convs, questions = generate(args.seed, args.conversations, args.sessions)
        n_turns = sum(len(t) for c in convs for t in c.sessions)
        t0 = time.perf_counter()
        evidence = await load(services, principal, convs)
        print(f"{len(convs)} conversations, {n_turns} turns, {len(questions)} questions "
              f"(loaded in {time.perf_counter() - t0:.1f} s)")  # fmt: skip
        await report(services, principal, questions, evidence)
    finally:
        await services.db.run_raw(
            "MATCH (n) WHERE n.tenant = $t CALL (n) { DETACH DELETE n }", {"t": tenant}
        )
        await services.close()


Ranker = Callable[[list[Record], str, datetime], list[str]]
METHODS: dict[str, Ranker | None] = {
    "recall (new fusion)": None,
    "recall, no reply lift": None,
    "recall, floors off": None,
    "old weighting": old_weighting,
    "BM25 only": lambda rows, q, at: by_signal(rows, "keyword"),
    "vector only": lambda rows, q, at: by_signal(rows, "similarity"),
}


async def report(
    services: object, principal: Principal, questions: list[Question], evidence: dict[int, str]
) -> None:
    recall = services.recall  # type: ignore[attr-defined]
    rows_of: dict[tuple[int, str], list[Record]] = {}
    hits: dict[tuple[str, str, str], list[int]] = {}
    for q in questions:
        scope = f"user:{q.conversation}"
        vector = await services.embedder.embed_query(q.text)  # type: ignore[attr-defined]
        for mode, at in MODES.items():
            search = Search(
                principal.tenant, [scope], vector,
                build_lucene(principal.tenant, [scope], q.text), datetime.now(at.tzinfo), at,
            )  # fmt: skip
            rows, _ = await recall.repo.search_kind(search, "episode", OVER_RECALL)
            rows_of[(q.index, mode)] = rows
            for name, ranker in METHODS.items():
                if ranker is None:
                    req = RecallRequest(
                        query=q.text, scopes=(scope,), k=10, kinds=("episode",), valid_at=at
                    )
                    if name == "recall, floors off":
                        req = replace(req, min_score=0, min_relevance=0, relative_relevance=0)
                    lift = recall_module.lift_replies
                    if name == "recall, no reply lift":
                        recall_module.lift_replies = _unlifted
                    try:
                        got = [s.id for s in (await recall.rank(principal, req)).items]
                    finally:
                        recall_module.lift_replies = lift
                else:
                    got = ranker(rows, q.text, at)
                for k in (5, 10):
                    subsets = ["all", "reply to a look-alike" if q.adjacent else "said alone"]
                    if q.evidence_age_days > 180:
                        subsets.append("evidence > 180 days old")
                    for sub in subsets:
                        hits.setdefault((name, mode, f"{sub}@{k}"), []).append(
                            int(evidence[q.index] in got[:k])
                        )
    subsets = ["all", "reply to a look-alike", "said alone", "evidence > 180 days old"]
    for mode in MODES:
        print(f"\nreference time: {mode} ({MODES[mode]:%Y-%m-%d})")
        head = "".join(f"{s[:22]:>26}" for s in subsets)
        print(f"{'':22}{head}")
        print(f"{'':22}" + "".join(f"{'hit@5  hit@10':>26}" for _ in subsets))
        for name in METHODS:
            cells = []
            for sub in subsets:
                h5 = hits.get((name, mode, f"{sub}@5"), [])
                h10 = hits.get((name, mode, f"{sub}@10"), [])
                cells.append(f"{pct(h5):5.1f}% {pct(h10):5.1f}%  (n={len(h5):3d})")
            print(f"{name:22}" + "".join(f"{c:>26}" for c in cells))


def pct(xs: list[int]) -> float:
    return 100 * sum(xs) / len(xs) if xs else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--conversations", type=int, default=6)
    ap.add_argument("--sessions", type=int, default=12)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
