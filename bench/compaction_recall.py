"""Recall over a compacted store: is the digest found for the questions its members answered?

    python bench/compaction_recall.py                  # 10 topics x 5 episodes + 10 singletons
    python bench/compaction_recall.py --rounds 3       # the same topics told 3 times over

Support-desk episodes, 45 to 90 days old, are recorded through the real EpisodeService (local
embedder): ``--topics`` topics of ``--per-topic`` episodes each, every one with a detail of
its own (which product, which city, ...), plus singletons about nothing else. Each episode
answers one question that names its detail. Recall (RecallService, as the API runs it, k=5,
episodes only) is asked every question before and after a consolidation run with only the
COMPACTION step (GDS kNN similarity graph + Leiden through graphdatascience). Before, a hit
is the episode itself in the top k; after, it is the digest that replaced it (or the episode,
if it was not compacted). Also printed: how many episodes were compacted into how many
digests, and how pure the digests are (members of one generated topic). Needs a running Neo4j
(graph-memory neo4j start); the bench tenant is deleted at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.container import build_services
from graph_memory.domain import EpisodeInput, Outcome, Principal, Role
from graph_memory.migrations import migrate
from graph_memory.services.recall.request import RecallRequest
from graph_memory.settings import Settings

SCOPE = "team:support"
# (episode template, question template, details): one topic each, a detail per episode.
TOPICS: list[tuple[str, str, list[str]]] = [
    (
        "Customer asked for a refund because the {} arrived damaged; the refund went back "
        "to their card.",
        "Was the customer refunded for the damaged {}?",
        ["blender", "kettle", "toaster", "headphones", "desk lamp", "coffee grinder"],
    ),
    (
        "User was locked out after too many attempts on their {}; we sent a password "
        "reset email and they got back in.",
        "How did we help the user locked out on their {}?",
        ["tablet", "work laptop", "phone", "smart TV", "game console", "e-reader"],
    ),
    (
        "The order shipped to {} was delayed by the courier; the customer got a tracking "
        "update and a discount code for the wait.",
        "What happened with the delayed order to {}?",
        ["Lisbon", "Oslo", "Krakow", "Dublin", "Valencia", "Tallinn"],
    ),
    (
        "Customer was charged twice for the {} plan this month; the duplicate charge was "
        "reversed and a receipt emailed.",
        "Was the double charge for the {} plan reversed?",
        ["family", "student", "premium", "business", "annual", "starter"],
    ),
    (
        "The {} laptop battery drained overnight while asleep; the agent suggested a "
        "firmware update and a battery recalibration.",
        "What fix was suggested for the {} battery drain?",
        ["Zenbook", "ThinkPad", "XPS", "Spectre", "Swift", "Galaxy Book"],
    ),
    (
        "The printer in the {} office kept jamming in tray two; the agent walked them "
        "through cleaning the feed rollers.",
        "How was the jamming printer in the {} office fixed?",
        ["Berlin", "Madrid", "Paris", "Vienna", "Zurich", "Prague"],
    ),
    (
        "Home wifi dropped every evening on the {} router; the agent moved it to a less "
        "crowded channel and the connection stabilised.",
        "What stopped the evening wifi drops on the {} router?",
        ["Netgear", "TP-Link", "Asus", "Linksys", "Fritzbox", "Eero"],
    ),
    (
        "Customer cancelled the {} subscription over the price; a retention discount was "
        "offered and declined.",
        "Why did the customer cancel the {} subscription?",
        ["music streaming", "meal kit", "cloud storage", "news", "fitness app", "VPN"],
    ),
    (
        "User asked for an export of their {} data as CSV under data protection rules; "
        "the export link was emailed within a day.",
        "Did the user get the CSV export of their {} data?",
        ["purchase history", "contacts", "calendar", "health", "location", "messages"],
    ),
    (
        "The {} smart thermostat stopped following its schedule after the update; a "
        "factory reset and re-pairing fixed it.",
        "How was the {} thermostat schedule problem fixed?",
        ["Nest", "Ecobee", "Honeywell", "Tado", "Netatmo", "Hive"],
    ),
]
SINGLETONS: list[tuple[str, str]] = [
    (
        "A caller asked whether the store sells gift cards in other currencies; only euro "
        "cards exist.",
        "Can gift cards be bought in other currencies?",
    ),
    (
        "Customer reported a typo in the printed user manual on page twelve; forwarded to "
        "the documentation team.",
        "Who got the report about the manual typo?",
    ),
    (
        "Someone asked if the warehouse is open on public holidays; it closes on national "
        "holidays.",
        "Is the warehouse open on public holidays?",
    ),
    (
        "A partner asked for the company's VAT number for an invoice; it was sent by "
        "registered letter.",
        "How was the VAT number sent to the partner?",
    ),
    (
        "Customer wanted to know whether pets are allowed in the showroom; only guide dogs are.",
        "Are pets allowed in the showroom?",
    ),
]


@dataclass(frozen=True)
class Question:
    text: str
    episode: str  # the episode that answers it
    topic: int  # -1: a singleton


async def load(services: object, who: Principal, args: argparse.Namespace) -> list[Question]:
    now = datetime.now(UTC)
    rows: list[tuple[EpisodeInput, str, int]] = []
    n = 0
    for _ in range(args.rounds):
        for t, (told, asked, details) in enumerate(TOPICS[: args.topics]):
            for detail in details[: args.per_topic]:
                at = now - timedelta(days=45 + n % 45, hours=n)
                item = EpisodeInput(
                    user_id=f"u{n % 7}",
                    session_id=f"s{n}",
                    started_at=at,
                    ended_at=at + timedelta(minutes=15),
                    summary=told.format(detail),
                    outcome=Outcome.SUCCESS,
                    source="user",
                    confidence=0.8,
                    scope=SCOPE,
                )
                rows.append((item, asked.format(detail), t))
                n += 1
    for told, asked in SINGLETONS:
        at = now - timedelta(days=60, hours=n)
        item = EpisodeInput(
            user_id="u0",
            session_id=f"s{n}",
            started_at=at,
            ended_at=at + timedelta(minutes=15),
            summary=told,
            outcome=Outcome.SUCCESS,
            source="user",
            confidence=0.8,
            scope=SCOPE,
        )
        rows.append((item, asked, -1))
        n += 1
    got = await services.episodes.record(who, [r[0] for r in rows])  # type: ignore[attr-defined]
    out = []
    for (_, asked, topic), (ep_id, err) in zip(rows, got, strict=True):
        if err is not None:
            raise SystemExit(f"episode refused: {err}")
        out.append(Question(asked, str(ep_id), topic))
    return out


async def ask(
    services: object, who: Principal, questions: list[Question], k: int
) -> list[list[str]]:
    recall = services.recall  # type: ignore[attr-defined]
    out = []
    for q in questions:
        req = RecallRequest(query=q.text, scopes=(SCOPE,), k=k, kinds=("episode",))
        out.append([s.id for s in (await recall.rank(who, req)).items])
    return out


def hit_rates(got: list[list[str]], targets: list[str]) -> tuple[float, float]:
    at1 = sum(t in g[:1] for g, t in zip(got, targets, strict=True)) / len(targets)
    atk = sum(t in g for g, t in zip(got, targets, strict=True)) / len(targets)
    return at1, atk


async def run(args: argparse.Namespace) -> None:
    services = build_services(Settings.from_env())
    tenant = f"bench-compaction-{uuid.uuid4().hex[:8]}"
    agent = Principal(tenant=tenant, role=Role.AGENT, key_id="bench", name="bench")
    admin = Principal(tenant=tenant, role=Role.ADMIN, key_id="bench", name="bench")
    try:
        await migrate(services.db, dimensions=services.embedder.dimensions)
        t0 = time.perf_counter()
        questions = await load(services, agent, args)
        print(
            f"{len(questions)} episodes ({args.topics} topics x {args.per_topic} x "
            f"{args.rounds} rounds + {len(SINGLETONS)} singletons), recorded in "
            f"{time.perf_counter() - t0:.1f} s"
        )
        members = [q.episode for q in questions]
        before = await ask(services, agent, questions, args.k)
        t0 = time.perf_counter()
        report = await services.consolidation.run(admin, [SCOPE], steps=["compaction"])  # type: ignore[union-attr]
        took = time.perf_counter() - t0
        digest_of: dict[str, str] = {}
        sizes: list[int] = []
        pure = 0
        topic_of = {q.episode: q.topic for q in questions}
        for c in report.changes or ():
            if c.action != "compact_episodes" or not c.after:
                continue
            ids = json.loads(c.after)["members"]
            sizes.append(len(ids))
            pure += len({topic_of.get(i) for i in ids}) == 1
            for i in ids:
                digest_of[i] = c.target_id
        print(
            f"compaction run in {took:.2f} s: {len(digest_of)} of {len(questions)} episodes "
            f"into {len(sizes)} digests (sizes {sorted(sizes)}), {pure} of them one topic"
        )
        after = await ask(services, agent, questions, args.k)
        targets = [digest_of.get(m, m) for m in members]
        b1, bk = hit_rates(before, members)
        a1, ak = hit_rates(after, targets)
        compacted = [i for i, m in enumerate(members) if m in digest_of]
        c_before = hit_rates([before[i] for i in compacted], [members[i] for i in compacted])
        c_after = hit_rates([after[i] for i in compacted], [targets[i] for i in compacted])
        served = sum(m in g for g, m in zip(after, members, strict=True) if m in digest_of)
        k = args.k
        print(f"\n{'':34}{'hit@1':>8}{f'hit@{k}':>8}   (n)")
        for name, (r1, rk), n in (
            ("before compaction: the episode", (b1, bk), len(members)),
            ("after: its digest (or itself)", (a1, ak), len(members)),
            ("compacted members, before", c_before, len(compacted)),
            ("compacted members, their digest", c_after, len(compacted)),
        ):
            print(f"{name:34}{r1:8.3f}{rk:8.3f}   ({n})")
        print(f"compacted members still served themselves after compaction: {served}")
    finally:
        await services.db.run_raw(
            "MATCH (n) WHERE n.tenant = $t CALL (n) { DETACH DELETE n }", {"t": tenant}
        )
        await services.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=len(TOPICS))
    ap.add_argument("--per-topic", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--k", type=int, default=5)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
