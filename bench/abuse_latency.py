"""The abuse list against another tenant's latency: every abusive request answered with a typed
error within a second, while a second tenant's simple read stays quick.

    python bench/abuse_latency.py                    # 30 s of abuse, 2 attackers
    python bench/abuse_latency.py --seconds 60 --attackers 4

The real app runs in a uvicorn subprocess (as `graph-memory serve`). The attackers are
processes of their own (encoding and sending a 50 MB body must not share the victim's GIL):
each sends the issue's abuse list back to back (tests/integration/test_query_limits.py's list
and the malformed bodies of bench/abuse_memory.py) and records each answer's HTTP status,
error code and time. The victim, another tenant in this process, reads a page of five facts
in a closed loop, first alone, then throughout the abuse. Printed: per abusive request its
answers by code and its slowest; the victim's p50/p95/p99 alone and under abuse.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.abuse_memory import abuse_list
from bench.serving import delete_tenant, free_port, make_key, start_server
from graph_memory.settings import Settings
from tests.integration.test_query_limits import _abuse

SIMPLE = '{ facts(filter: {scopes: ["user:alice"]}, first: 5) { edges { cursor } } }'
# The malformed inputs the issue lists beside the oversized ones (each a typed 4xx).
MALFORMED: list[tuple[str, bytes]] = [
    (
        "datetime overflowing UTC",
        json.dumps(
            {
                "query": 'query { facts(filter: {scopes: ["user:alice"]}, '
                'asOf: "9999-12-31T23:59:59-14:00") { edges { cursor } } }'
            }
        ).encode(),
    ),
    (
        "lone surrogate",
        b'{"query": "query($q: String!) { recall(query: $q, scopes: [\\"user:alice\\"]) '
        b'{ considered } }", "variables": {"q": "\\ud800"}}',
    ),
    ("invalid UTF-8", b'{"query": "{ __typename \xff\xfe }"}'),
    ("a JSON string as the body", b'"{ __typename }"'),
    (
        "1,025 scopes",
        json.dumps(
            {
                "query": "query($s: [String!]!) "
                '{ recall(query: "where", scopes: $s) { considered } }',
                "variables": {"s": [f"user:u{i}" for i in range(1025)]},
            }
        ).encode(),
    ),
]


def _requests(episode: str) -> list[tuple[str, bytes, dict[str, str]]]:
    refused = [r for r in abuse_list(episode) if r[0] in _REFUSED]
    names = [
        "dependents 10 deep",
        "1,000 recall aliases",
        "entity facts 4 deep",
        "10,000 episodes",
        "20,000 scopes",
        "5 MB query text",
    ]
    listed = [
        (name, json.dumps({"query": q, "variables": v}).encode(), {})
        for name, (q, v) in zip(names, _abuse(), strict=True)
    ]
    return [*refused, *listed, *((n, b, {}) for n, b in MALFORMED)]


_REFUSED = {"50 MB body", "1,000 aliases", "deep nesting", "1 MB header", "100k nested arrays"}


def _attack(url: str, key: str, episode: str, seconds: float, out: Any) -> None:
    requests = _requests(episode)
    answers: list[tuple[str, int, str, float]] = []
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    deadline = time.monotonic() + seconds
    with httpx.Client(headers=headers, timeout=60) as c:
        while time.monotonic() < deadline:
            for name, body, extra in requests:
                began = time.perf_counter()
                try:
                    r = c.post(url, content=body, headers=extra)
                    status = r.status_code
                    try:
                        code = str(r.json()["errors"][0]["extensions"]["code"])
                    except (ValueError, KeyError, IndexError, TypeError):
                        code = "no typed error" if status >= 400 or "errors" in r.text else "ok"
                except httpx.HTTPError as e:
                    status, code = -1, type(e).__name__
                answers.append((name, status, code, time.perf_counter() - began))
    out.put(answers)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _read(url: str, key: str, seconds: float) -> list[float]:
    out: list[float] = []
    deadline = time.monotonic() + seconds
    with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30) as c:
        while time.monotonic() < deadline:
            began = time.perf_counter()
            body = c.post(url, json={"query": SIMPLE}).json()
            if "errors" in body:
                raise RuntimeError(body["errors"])
            out.append((time.perf_counter() - began) * 1000)
    return out


def _line(label: str, ms: list[float]) -> str:
    return (
        f"{label}: n {len(ms)}  p50 {statistics.median(ms):.1f}  p95 {_pct(ms, 0.95):.1f}  "
        f"p99 {_pct(ms, 0.99):.1f}  max {max(ms):.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--attackers", type=int, default=2)
    ap.add_argument("--port", type=int, default=0, help="0: a free one")
    args = ap.parse_args()
    if args.seconds < 3:
        ap.error("--seconds must be at least 3")
    args.port = args.port or free_port()

    settings = Settings.from_env()
    attacker_tenant = f"bench-attacker-{uuid.uuid4().hex[:6]}"
    victim_tenant = f"bench-victim-{uuid.uuid4().hex[:6]}"
    attacker, victim = make_key(settings, attacker_tenant), make_key(settings, victim_tenant)
    proc = start_server(args.port)
    url = f"http://127.0.0.1:{args.port}/graphql"
    try:
        record = "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { id } }"
        eps = [
            {
                "userId": "alice",
                "sessionId": uuid.uuid4().hex,
                "summary": "alice likes tea",
                "outcome": "SUCCESS",
                "startedAt": "2026-01-01T00:00:00Z",
            }
        ]
        with httpx.Client(headers={"Authorization": f"Bearer {victim}"}, timeout=60) as c:
            ep = c.post(url, json={"query": record, "variables": {"e": eps}}).json()
            episode = ep["data"]["recordEpisodes"][0]["id"]
            facts = [
                {
                    "subject": "alice",
                    "predicate": "likes",
                    "object": f"thing {i}",
                    "episodes": [{"episodeId": episode}],
                }
                for i in range(8)
            ]
            told = c.post(
                url,
                json={
                    "query": "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }",
                    "variables": {"f": facts},
                },
            ).json()
            if (told.get("data") or {}).get("assertFacts", {}).get("accepted") != len(facts):
                raise RuntimeError(f"the victim's facts were not written: {told}")
        alone = _read(url, victim, 5)
        ctx = mp.get_context("spawn")
        queue = ctx.Queue()
        procs = [
            ctx.Process(target=_attack, args=(url, attacker, episode, args.seconds, queue))
            for _ in range(args.attackers)
        ]
        for p in procs:
            p.start()
        time.sleep(1)  # the attackers' interpreters start
        under = _read(url, victim, args.seconds - 1)
        answers = [a for _ in procs for a in queue.get(timeout=args.seconds + 120)]
        for p in procs:
            p.join(timeout=30)
        print(
            f"{args.attackers} attacker process(es), {args.seconds:.0f} s, "
            f"{len(answers)} abusive requests"
        )
        by_name: dict[str, list[tuple[int, str, float]]] = {}
        for name, status, code, took in answers:
            by_name.setdefault(name, []).append((status, code, took))
        for name, rows in by_name.items():
            codes: dict[str, int] = {}
            for status, code, _ in rows:
                codes[f"{status} {code}"] = codes.get(f"{status} {code}", 0) + 1
            print(
                f"  {name:<28} n {len(rows):4d}  slowest {max(r[2] for r in rows):.3f} s  {codes}"
            )
        print(
            f"slowest abusive answer: {max(a[3] for a in answers):.3f} s; untyped: "
            f"{sum(1 for a in answers if a[2] in ('no typed error', 'ok') or a[1] < 0)}"
        )
        print(_line("victim alone", alone))
        print(_line("victim under abuse", under))
    finally:
        proc.kill()
        proc.wait(timeout=30)
        delete_tenant(settings, attacker_tenant)
        delete_tenant(settings, victim_tenant)


if __name__ == "__main__":
    main()
