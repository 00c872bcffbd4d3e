"""Memory after abuse: the service's RSS before, during and after a run of abusive requests.

    python bench/abuse_memory.py                 # 8 abusers for 60 s
    python bench/abuse_memory.py --seconds 120 --threads 8

The issue's run grew the process from 470 MB to 1.3 GB and never gave it back. Here the real
app runs in a uvicorn subprocess; after a warm-up (every operation once, so caches and the
embedding model are loaded) its RSS is the baseline. Then threads send the abuse list over
and over: bodies far over the limit, 1,000 aliases, deep nesting, huge headers, nested JSON,
and the largest requests the limits accept (1,000-fact batches with long texts, 200-episode
batches, the most recalls a query may hold with the longest query text). RSS is sampled
throughout and for a while after; the figures printed are baseline, peak, and after idle.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serving import delete_tenant, make_key, rss_mb, start_server, wait_idle
from graph_memory.settings import Settings

NOW = "2026-01-01T00:00:00Z"


def _episodes(n: int) -> dict[str, Any]:
    return {
        "query": "mutation($e: [EpisodeInput!]!) { recordEpisodes(episodes: $e) { ok } }",
        "variables": {
            "e": [
                {
                    "userId": f"u{i % 20}",
                    "sessionId": uuid.uuid4().hex,
                    "summary": f"user {i} talked about order {random.random()} " * 20,
                    "outcome": "SUCCESS",
                    "startedAt": NOW,
                }
                for i in range(n)
            ]
        },
    }


def _facts(episode: str, n: int) -> dict[str, Any]:
    return {
        "query": "mutation($f: [FactInput!]!) { assertFacts(facts: $f) { accepted } }",
        "variables": {
            "f": [
                {
                    "subject": f"u{i % 20}",
                    "predicate": "likes",
                    "object": f"thing {uuid.uuid4().hex}",
                    "text": "x" * 1500,
                    "episodes": [{"episodeId": episode}],
                }
                for i in range(n)
            ]
        },
    }


def _recalls(n: int, chars: int) -> dict[str, Any]:
    text = " ".join(
        random.choice(["order", "refund", "paris", "tea", "late"]) for _ in range(chars // 6)
    )
    body = " ".join(
        f'r{i}: recall(query: $q, scopes: ["user:u{i}", "tenant"]) {{ items {{ text }} }}'
        for i in range(n)
    )
    return {"query": f"query($q: String!) {{ {body} }}", "variables": {"q": text[:chars]}}


def abuse_list(episode: str) -> list[tuple[str, bytes, dict[str, str]]]:
    """(name, body, extra headers): the issue's abuse, refused or at the limits' edge."""
    deep = '{ facts(filter: {scopes: ["tenant"]}) { edges { node { ' + "dependents { " * 40
    deep += "id " + "} " * 40 + "} } } }"
    nested = "[" * 100_000 + "]" * 100_000
    return [
        ("50 MB body", json.dumps({"query": "{ __typename }", "x": "a" * 50_000_000}).encode(), {}),
        ("1,000 aliases", json.dumps(_recalls(1000, 20)).encode(), {}),
        ("deep nesting", json.dumps({"query": deep}).encode(), {}),
        ("1 MB header", b'{"query": "{ __typename }"}', {"X-Junk": "a" * 1_000_000}),
        (
            "100k nested arrays",
            ('{"query": "{ __typename }", "variables": {"v": ' + nested + "}}").encode(),
            {},
        ),
        ("1,000 facts x 1.5 KB", json.dumps(_facts(episode, 1000)).encode(), {}),
        ("200 episodes", json.dumps(_episodes(200)).encode(), {}),
        ("9 recalls x 32k chars", json.dumps(_recalls(9, 32_000)).encode(), {}),
    ]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--idle", type=float, default=30, help="seconds idle before the last look")
    ap.add_argument("--port", type=int, default=18731)
    args = ap.parse_args()

    settings = Settings.from_env()
    tenant = f"bench-abuse-{uuid.uuid4().hex[:6]}"
    key = make_key(settings, tenant)
    proc = start_server(args.port)
    url = f"http://127.0.0.1:{args.port}/graphql"
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    try:
        with httpx.Client(headers=headers, timeout=120) as c:
            ep = c.post(url, json=_episodes(1)).json()
            episode = c.post(
                url,
                json={"query": '{ episodes(scopes: ["user:u0"], first: 1) { id } }'},
            ).json()["data"]["episodes"][0]["id"]
            del ep
            for name, body, extra in abuse_list(episode):  # warm-up: every path once
                if "MB" not in name and "nested" not in name:
                    c.post(url, content=body, headers=extra)
        time.sleep(3)
        baseline = rss_mb(proc.pid)
        print(f"baseline RSS after warm-up: {baseline:.0f} MB")

        requests = abuse_list(episode)
        stop = threading.Event()
        counts: dict[str, dict[int, int]] = {}
        lock = threading.Lock()

        def abuser(seed: int) -> None:
            rnd = random.Random(seed)
            with httpx.Client(headers=headers, timeout=120) as c:
                while not stop.is_set():
                    name, body, extra = rnd.choice(requests)
                    try:
                        status = c.post(url, content=body, headers=extra).status_code
                    except httpx.HTTPError:
                        status = -1
                    with lock:
                        counts.setdefault(name, {}).setdefault(status, 0)
                        counts[name][status] += 1

        threads = [threading.Thread(target=abuser, args=(i,)) for i in range(args.threads)]
        for t in threads:
            t.start()
        peak = baseline
        started = time.monotonic()
        while time.monotonic() - started < args.seconds:
            peak = max(peak, rss_mb(proc.pid))
            time.sleep(0.2)
        stop.set()
        for t in threads:
            t.join()
        end_of_abuse = rss_mb(proc.pid)
        drained = wait_idle(proc.pid)  # what clients gave up on finishes first
        at_idle = rss_mb(proc.pid)
        time.sleep(args.idle)
        after = rss_mb(proc.pid)
        print(f"abuse: {args.threads} threads for {args.seconds:.0f} s")
        for name, by_status in sorted(counts.items()):
            print(f"  {name:<24} {dict(sorted(by_status.items()))}")
        print(
            f"RSS MB: baseline {baseline:.0f}, peak {peak:.0f}, end of abuse {end_of_abuse:.0f}, "
            f"idle again after {drained:.0f} s at {at_idle:.0f}, {args.idle:.0f} s later "
            f"{after:.0f} ({after - baseline:+.0f} MB over baseline)"
        )
    finally:
        proc.kill()  # requests may still be in flight
        proc.wait(timeout=30)
        delete_tenant(settings, tenant)


if __name__ == "__main__":
    main()
