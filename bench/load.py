"""Mixed load on one tenant: 80% recall, 15% writes, 5% as-of reads, at 1, 8 and 32 clients.

    python bench/load.py                          # 30 s per level
    python bench/load.py --seconds 60 --clients 1 8 32 --users 50

The issue's targets at 32 clients on this 2-core machine: write p99 <= 2 s, recall p99 <=
500 ms. The real app runs in a uvicorn subprocess (one process, as `graph-memory serve`);
the clients are closed loops (each sends its next request when the last one is answered)
on one asyncio loop in this process. Seeding goes through the API too: `--users` users with
10 episodes and 40 facts each. Writes are an agent's turn: a recordEpisode (one in three) or
an assertFacts of two facts citing one of the user's episodes, half of them on a
single-valued predicate (each supersedes the last). As-of reads page the user's facts as
believed at a random moment since seeding. Every request answers 200 without errors or
counts as an error (by kind and code). The bench tenant is deleted at the end.

With ``--victim`` a second tenant runs one closed-loop client of a small read (a page of
five facts) beside every level and prints its latencies: how much one tenant's load slows
another (the in-flight cap serves waiting tenants in turns, admission.py). With ``--heavy``
every request of the loaded tenant is the costliest allowed recall instead of the mix (eight
aliases, k 100, overRecall 500, candidates, expired and unverified included): how much one
tenant's expensive queries slow another (database turns, session_share.py).

    python bench/load.py --heavy --victim --clients 6 --seconds 20 \
        --baseline-env GRAPH_MEMORY_DB_TURNS=0

Beside each level it prints where the time went (bench/load_split.py). To measure a change on
a shared machine, compare in one run: `--baseline DIR` (a checkout from before the change)
and/or `--baseline-env K=V` / `--env K=V` (one setting off and on) run a second service
against the same tenant, level by level, alternating with `--rounds`; `--floor` adds recall's
Cypher on the bare driver at each level.

    python bench/load.py --baseline /tmp/before --rounds 2 --floor
    python bench/load.py --baseline-env GRAPH_MEMORY_MAX_INFLIGHT=0 \
        --env GRAPH_MEMORY_MAX_INFLIGHT=6 --clients 32
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.load_split import load_average, neo4j_pid, raw_recall, split_lines, take
from bench.serving import delete_tenant, make_key, rss_mb, start_server
from graph_memory.settings import Settings

WORDS = [
    "tea",
    "coffee",
    "paris",
    "berlin",
    "rome",
    "order",
    "refund",
    "delay",
    "invoice",
    "laptop",
    "phone",
    "plan",
    "trip",
]
QUESTIONS = [
    "where does {u} live",
    "what does {u} like to drink",
    "which order of {u} was late",
    "what plan is {u} on",
    "did {u} ask for a refund",
    "what device does {u} use",
]
RECALL = """query($q: String!, $s: [String!]!) {
  recall(query: $q, scopes: $s, k: 5) { items { id kind text score { total } } } }"""
AS_OF = """query($s: [String!]!, $at: DateTime!) {
  facts(filter: {scopes: $s}, asOf: $at, first: 20) { edges { node { id object } } } }"""
HEAVY = (
    "query($s: [String!]!) {"
    + " ".join(
        f'r{i}: recall(query: "{q.format(u="them")}", scopes: $s, k: 100, overRecall: 500, '
        "includeCandidates: true, includeExpired: true, includeUnverified: true) "
        "{ items { id text } }"
        for i, q in enumerate(QUESTIONS + QUESTIONS[:2])
    )
    + "}"
)
VICTIM = """query($s: [String!]!) {
  facts(filter: {scopes: $s}, first: 5) { edges { node { id object } } } }"""
EPISODE = "mutation($e: EpisodeInput!) { recordEpisode(episode: $e) }"
ASSERT = """mutation($f: [FactInput!]!) {
  assertFacts(facts: $f) { accepted results { ok error { code message } } } }"""


def _episode(user: str, at: datetime) -> dict[str, Any]:
    words = " ".join(random.choices(WORDS, k=12))
    return {
        "userId": user,
        "sessionId": uuid.uuid4().hex[:12],
        "summary": f"{user} talked with support about {words}.",
        "outcome": "SUCCESS",
        "startedAt": at.isoformat(),
        "source": "user",
    }


def _facts(user: str, episode: str) -> list[dict[str, Any]]:
    return [
        {
            "subject": user,
            "predicate": "lives_in",
            "object": random.choice(["Paris", "Berlin", "Rome", "Oslo", "Lima"]),
            "cardinality": "ONE",
            "episodes": [{"episodeId": episode}],
        },
        {
            "subject": user,
            "predicate": "likes",
            "object": " ".join(random.choices(WORDS, k=2)),
            "episodes": [{"episodeId": episode}],
        },
    ]


class Load:
    def __init__(self, url: str, key: str, users: int, heavy: bool = False) -> None:
        self.url = url
        self.heavy = heavy
        self.headers = {"Authorization": f"Bearer {key}"}
        self.users = [f"u{i}" for i in range(users)]
        self.episodes: dict[str, list[str]] = defaultdict(list)
        self.seeded_at = datetime.now(UTC)

    async def call(self, c: httpx.AsyncClient, query: str, variables: dict[str, Any]) -> Any:
        r = await c.post(self.url, json={"query": query, "variables": variables})
        body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
        if r.status_code != 200 or body.get("errors"):
            errors = body.get("errors") or [{}]
            raise RuntimeError(str(errors[0].get("extensions", {}).get("code", r.status_code)))
        return body["data"]

    async def seed(self, c: httpx.AsyncClient) -> None:
        t0 = datetime(2026, 1, 1, tzinfo=UTC)
        q = "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok id } }"
        for u in self.users:
            eps = [_episode(u, t0 + timedelta(days=i)) for i in range(10)]
            out = await self.call(c, q, {"e": eps})
            self.episodes[u] = [e["id"] for e in out["recordEpisodes"]]
            facts = [f for _ in range(20) for f in _facts(u, random.choice(self.episodes[u]))]
            await self.call(c, ASSERT, {"f": facts})
        self.seeded_at = datetime.now(UTC)

    async def one(self, c: httpx.AsyncClient) -> str:
        u = random.choice(self.users)
        scopes = [f"user:{u}", "tenant"]
        if self.heavy:
            await self.call(c, HEAVY, {"s": [f"user:{v}" for v in self.users[:4]] + ["tenant"]})
            return "heavy recall"
        roll = random.random()
        if roll < 0.80:
            q = random.choice(QUESTIONS).format(u=u)
            await self.call(c, RECALL, {"q": q, "s": scopes})
            return "recall"
        if roll < 0.95:
            if random.random() < 1 / 3:
                ep = _episode(u, datetime.now(UTC))
                out = await self.call(c, EPISODE, {"e": ep})
                self.episodes[u].append(out["recordEpisode"])
            else:
                out = await self.call(c, ASSERT, {"f": _facts(u, random.choice(self.episodes[u]))})
                bad = [r["error"] for r in out["assertFacts"]["results"] if not r["ok"]]
                if bad:
                    raise RuntimeError(str(bad[0]["code"]))
            return "write"
        span = (datetime.now(UTC) - self.seeded_at).total_seconds()
        at = self.seeded_at + timedelta(seconds=random.uniform(0, max(span, 1)))
        await self.call(c, AS_OF, {"s": scopes, "at": at.isoformat()})
        return "as-of read"

    async def victim(self, seconds: float) -> list[float]:
        """One client of another tenant reading a page of its facts, over and over."""
        out: list[float] = []
        deadline = time.monotonic() + seconds
        async with httpx.AsyncClient(headers=self.headers, timeout=120) as c:
            while time.monotonic() < deadline:
                started = time.perf_counter()
                await self.call(c, VICTIM, {"s": ["user:u0"]})
                out.append(time.perf_counter() - started)
        return out

    async def run(
        self, clients: int, seconds: float
    ) -> tuple[dict[str, list[float]], Counter[str]]:
        latencies: dict[str, list[float]] = defaultdict(list)
        errors: Counter[str] = Counter()
        deadline = time.monotonic() + seconds
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(headers=self.headers, timeout=120, limits=limits) as c:

            async def loop() -> None:
                while time.monotonic() < deadline:
                    started = time.perf_counter()
                    try:
                        kind = await self.one(c)
                    except (RuntimeError, httpx.HTTPError) as e:
                        errors[f"{type(e).__name__}: {e}"] += 1
                        continue
                    latencies[kind].append(time.perf_counter() - started)

            await asyncio.gather(*(loop() for _ in range(clients)))
        return latencies, errors


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--port", type=int, default=18741)
    ap.add_argument("--keep", action="store_true", help="keep the bench tenant")
    ap.add_argument(
        "--victim",
        action="store_true",
        help="a second tenant's single client of small reads beside every level",
    )
    ap.add_argument(
        "--heavy",
        action="store_true",
        help="every request of the loaded tenant: eight aliased recalls, k 100, overRecall 500",
    )
    ap.add_argument("--profile", help="run the server under cProfile, stats to this file")
    ap.add_argument(
        "--floor",
        action="store_true",
        help="also run recall's Cypher round trips on the bare driver at each level",
    )
    ap.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of the code before a change (e.g. `git worktree add` or `git archive` "
        "of main): its service runs on port+1 against the same tenant, and every level runs "
        "against it and then this one, back to back, so both see the same machine load",
    )
    ap.add_argument(
        "--baseline-env",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="environment of the baseline service (the same checkout unless --baseline): "
        "compare one setting off and on, e.g. GRAPH_MEMORY_MAX_INFLIGHT=0",
    )
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run the levels this many times; with --baseline the order of the two services "
        "alternates from round to round, so neither always meets the machine first",
    )
    ap.add_argument(
        "--env",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="environment of this checkout's service",
    )
    args = ap.parse_args()
    if args.baseline_env and not args.baseline:
        args.baseline = Path(__file__).resolve().parents[1]

    settings = Settings.from_env()
    tenant = f"bench-load-{uuid.uuid4().hex[:6]}"
    key = make_key(settings, tenant)
    env = dict(kv.split("=", 1) for kv in args.env)
    procs = {"this": start_server(args.port, env=env, profile=args.profile)}
    if args.baseline:
        base_env = dict(kv.split("=", 1) for kv in args.baseline_env)
        procs["baseline"] = start_server(args.port + 1, env=base_env, root=args.baseline)
    ports = {"this": args.port, "baseline": args.port + 1}
    loads = {
        name: Load(f"http://127.0.0.1:{ports[name]}/graphql", key, args.users, args.heavy)
        for name in procs
    }
    other = f"{tenant}-victim"
    victims = (
        {
            name: Load(f"http://127.0.0.1:{ports[name]}/graphql", make_key(settings, other), 1)
            for name in procs
        }
        if args.victim
        else {}
    )
    try:
        asyncio.run(_levels(loads, victims, procs, ports, args, settings, tenant))
    finally:
        for proc in procs.values():
            # uvicorn re-raises the signal it stopped on: SIGINT ends as KeyboardInterrupt,
            # which lets cProfile write its file; SIGTERM would kill the process first.
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
        if not args.keep:
            delete_tenant(settings, tenant)
            if victims:
                delete_tenant(settings, other)


async def _levels(
    loads: dict[str, Load],
    victims: dict[str, Load],
    procs: dict[str, subprocess.Popen[bytes]],
    ports: dict[str, int],
    args: argparse.Namespace,
    settings: Settings,
    tenant: str,
) -> None:
    neo4j = neo4j_pid()
    started = time.perf_counter()
    seeder = loads["this"]
    async with httpx.AsyncClient(headers=seeder.headers, timeout=300) as c:
        await seeder.seed(c)
    if victims:
        first = next(iter(victims.values()))
        async with httpx.AsyncClient(headers=first.headers, timeout=300) as c:
            await first.seed(c)
    for load in loads.values():
        # One tenant for both services: the same users and episodes to cite.
        load.episodes, load.seeded_at = seeder.episodes, seeder.seeded_at
    print(
        f"seeded {args.users} users x (10 episodes, 40 facts) in tenant {tenant} in "
        f"{time.perf_counter() - started:.0f} s; server RSS {rss_mb(procs['this'].pid):.0f} MB"
    )
    for load in loads.values():
        # Plans, caches and the embedder warm before anything is measured.
        await load.run(1, min(5.0, args.seconds))
    for name, victim in victims.items():
        ms = [x * 1000 for x in await victim.victim(min(5.0, args.seconds))]
        print(
            f"other tenant's page of facts alone [{name}]: n {len(ms)}  p50 "
            f"{statistics.median(ms):.1f} ms  p95 {_pct(ms, 0.95):.1f} ms"
        )
    for r in range(args.rounds):
        order = ("baseline", "this") if r % 2 == 0 else ("this", "baseline")
        for n in args.clients:
            for name in order:
                if name in loads:
                    await _level(
                        name,
                        loads[name],
                        victims.get(name),
                        procs[name].pid,
                        ports[name],
                        neo4j,
                        n,
                        args,
                    )
            if args.floor:
                await _floor(settings, tenant, seeder.users, n, args.seconds / 2)


async def _floor(
    settings: Settings, tenant: str, users: list[str], clients: int, seconds: float
) -> None:
    ms = [x * 1000 for x in await raw_recall(settings, tenant, users, QUESTIONS, clients, seconds)]
    print(
        f"  floor: recall's Cypher on the bare driver, {len(ms) / seconds:.1f} req/s, "
        f"p50 {statistics.median(ms):.1f} p95 {_pct(ms, 0.95):.1f} p99 {_pct(ms, 0.99):.1f} ms; "
        f"{load_average()}"
    )


async def _level(
    name: str,
    load: Load,
    victim: Load | None,
    pid: int,
    port: int,
    neo4j: int | None,
    n: int,
    args: argparse.Namespace,
) -> None:
    metrics_url = f"http://127.0.0.1:{port}/metrics"
    load_before = load_average()
    before = take(metrics_url, pid, neo4j)
    if victim is None:
        lat, errors = await load.run(n, args.seconds)
        other: list[float] = []
    else:
        (lat, errors), other = await asyncio.gather(
            load.run(n, args.seconds), victim.victim(args.seconds)
        )
    after = take(metrics_url, pid, neo4j)
    total = sum(len(v) for v in lat.values())
    label = f" [{name} code]" if args.baseline else ""
    print(
        f"\n{n} client(s){label}, {args.seconds:.0f} s: {total / args.seconds:.1f} req/s, "
        f"{sum(errors.values())} errors; server RSS {rss_mb(pid):.0f} MB; machine "
        f"{load_before} before, {load_average()} after"
    )
    for kind in ("recall", "write", "as-of read", "heavy recall"):
        ms = [x * 1000 for x in lat.get(kind, [])]
        if not ms:
            print(f"  {kind:<11} none")
            continue
        print(
            f"  {kind:<11} n {len(ms):5d}  p50 {statistics.median(ms):8.1f} ms  "
            f"p95 {_pct(ms, 0.95):8.1f} ms  p99 {_pct(ms, 0.99):8.1f} ms"
        )
    if other:
        ms = [x * 1000 for x in other]
        print(
            f"  other tenant's page of facts, 1 client: n {len(ms)}  p50 "
            f"{statistics.median(ms):.1f} ms  p95 {_pct(ms, 0.95):.1f} ms  p99 "
            f"{_pct(ms, 0.99):.1f} ms"
        )
    for what, count in errors.most_common(5):
        print(f"  error x{count}: {what}")
    for line in split_lines(before, after, total + sum(errors.values())):
        print(line)


if __name__ == "__main__":
    main()
