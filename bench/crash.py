"""Crash under load: kill -9 of the service and of Neo4j while agents write, and every
acknowledged write is there exactly once.

    python bench/crash.py                        # 4 writers, 3 kills of each, 6 s apart
    python bench/crash.py --writers 8 --kills 5 --every 4

Runs on a scratch Neo4j of its own (a temporary home on free ports; killing it must not touch
a server anyone uses). The service runs in a uvicorn subprocess. Each writer is an agent
serving a user of its own: `remember` calls of one episode and two facts with objects unique
to the call, each under an idempotency key of its own; a call that gets no answer (the
connection dropped, 503 while Neo4j is down) is retried with the same key, as a client that
was told nothing must, until it is acknowledged. The kills alternate: the service (restarted
at once), then Neo4j (`graph-memory neo4j start`; the service reconnects by itself). At the
end the store is read with raw Cypher: every acknowledged call's episode and facts must be
there exactly once, and nothing may be there twice.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.serving import NEO4J_CLI, free_port, make_key, scratch_neo4j, start_server
from graph_memory.neo4j_local.process import find_servers, is_alive
from graph_memory.settings import Settings

REMEMBER = """mutation($e: EpisodeInput!, $f: [FactInput!], $k: String) {
  remember(episode: $e, facts: $f, idempotencyKey: $k) {
    episodeId episodeError { code } facts { accepted rejected } } }"""


@dataclass
class Tally:
    acknowledged: list[str] = field(default_factory=list)  # call ids
    retries: int = 0
    refused: Counter[str] = field(default_factory=Counter)  # answers that were no answer
    failures: list[str] = field(default_factory=list)  # writers that stopped early
    lock: threading.Lock = field(default_factory=threading.Lock)


def _call(user: str, call: str) -> dict[str, Any]:
    return {
        "e": {
            "userId": user,
            "sessionId": f"s-{call}",
            "startedAt": "2026-06-01T10:00:00Z",
            "summary": f"{user} said two things in call {call}",
            "outcome": "SUCCESS",
        },
        "f": [
            {
                "subject": user,
                "predicate": "mentioned",
                "object": f"o-{call}-{n}",
                "cardinality": "MANY",
            }
            for n in range(2)
        ],
        "k": f"k-{call}",
    }


def _writer(url: str, key: str, user: str, stop: threading.Event, tally: Tally) -> None:
    try:
        with httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=30) as c:
            while not stop.is_set():
                call = uuid.uuid4().hex[:12]
                body = {"query": REMEMBER, "variables": _call(user, call)}
                # Until acknowledged (a client told nothing retries under its key), or the end
                # of the run: a call never answered may or may not be there, at most once.
                while not stop.is_set():
                    if _attempt(c, url, body, call, tally):
                        break
                    time.sleep(0.2)
    except Exception as e:  # a writer that stops early makes the run fail, loudly
        with tally.lock:
            tally.failures.append(f"{user}: {type(e).__name__}: {e}")


def _attempt(c: httpx.Client, url: str, body: dict[str, Any], call: str, tally: Tally) -> bool:
    """One try of a call; True once it is acknowledged."""
    try:
        r = c.post(url, json=body)
        answer = r.json()
    except (httpx.HTTPError, ValueError) as e:
        reason = type(e).__name__
    else:
        data = (answer.get("data") or {}).get("remember")
        if r.status_code == 200 and data and data["episodeId"]:
            if data["facts"]["accepted"] != 2:
                raise RuntimeError(f"acknowledged without its facts: {answer}")
            with tally.lock:
                tally.acknowledged.append(call)
            return True
        error = (answer.get("errors") or [{}])[0]
        reason = f"{r.status_code} {error.get('extensions', {}).get('code')}"
    with tally.lock:
        tally.refused[reason] += 1
        tally.retries += 1
    return False


def _count(tenant: str) -> tuple[Counter[str], Counter[str]]:
    """Episodes per session id, and per fact object its versions plus any evidence beyond its
    one episode (raw Cypher). A call that ran twice shows as a second episode (recorded by
    CREATE); its facts would be told again, a second citation of the same version rather than
    a second version, so a fact counts once per version and once per extra citation."""
    from neo4j import GraphDatabase

    conn = Settings.from_env().neo4j()
    with (
        GraphDatabase.driver(conn.uri, auth=(conn.user, conn.password)) as driver,
        driver.session(database=conn.database) as s,
    ):
        eps = s.run(
            "MATCH (e:Episode) WHERE e.tenant = $t RETURN e.session_id AS s", t=tenant
        ).value()
        rows = s.run(
            "MATCH (f:Fact) WHERE f.tenant = $t AND f.predicate = 'mentioned' "
            "RETURN f.object AS o, count { (f)-[:DERIVED_FROM]->() } AS cited",
            t=tenant,
        ).data()
    facts: Counter[str] = Counter()
    for r in rows:
        facts[r["o"]] += max(1, r["cited"])
    return Counter(eps), facts


def _kill_neo4j(env: dict[str, str]) -> float:
    """kill -9 of the scratch server, then `graph-memory neo4j start` once it is gone (a JVM
    still dying would read as a server already running); returns the seconds to restart."""
    root = next(Path(env["GRAPH_MEMORY_HOME"]).glob("neo4j-*"))
    servers = find_servers(root)
    if not servers:
        raise RuntimeError("no Neo4j server of the scratch home is running")
    began = time.monotonic()
    for pid in servers:
        os.kill(pid, signal.SIGKILL)
    while any(is_alive(pid) for pid in servers):
        time.sleep(0.1)
    subprocess.run([*NEO4J_CLI, "start"], env=env, check=True, capture_output=True)
    return time.monotonic() - began


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--kills", type=int, default=3, help="kills of each, alternating")
    ap.add_argument("--every", type=float, default=6, help="seconds of load between kills")
    args = ap.parse_args()

    with scratch_neo4j("gm-bench-crash-") as env:
        os.environ.update(env)  # Settings.from_env and the service see the scratch Neo4j
        tenant = f"crash-{uuid.uuid4().hex[:6]}"
        key = make_key(Settings.from_env(), tenant)
        port = free_port()
        url = f"http://127.0.0.1:{port}/graphql"
        server = start_server(port)
        tally = Tally()
        stop = threading.Event()
        writers = [
            threading.Thread(target=_writer, args=(url, key, f"user{i}", stop, tally), daemon=True)
            for i in range(args.writers)
        ]
        for w in writers:
            w.start()
        try:
            for _ in range(args.kills):
                time.sleep(args.every)
                server.kill()  # SIGKILL
                server.wait()
                print(f"kill -9 of the service ({len(tally.acknowledged)} acknowledged so far)")
                server = start_server(port)
                time.sleep(args.every)
                took = _kill_neo4j(env)
                print(
                    f"kill -9 of Neo4j, restarted in {took:.1f} s "
                    f"({len(tally.acknowledged)} acknowledged so far)"
                )
            time.sleep(args.every)
        finally:
            stop.set()
            for w in writers:
                w.join(timeout=120)
            server.kill()
            server.wait()
        episodes, facts = _count(tenant)
        acked = set(tally.acknowledged)
        missing = [c for c in acked if episodes[f"s-{c}"] != 1]
        missing_facts = [c for c in acked for n in range(2) if facts[f"o-{c}-{n}"] != 1]
        doubled = [s for s, k in episodes.items() if k > 1] + [o for o, k in facts.items() if k > 1]
        print(
            f"{args.writers} writers, {args.kills} kills of the service and {args.kills} of "
            f"Neo4j: {len(acked)} calls acknowledged, {tally.retries} retries "
            f"({dict(tally.refused.most_common())})"
        )
        print(
            f"acknowledged calls whose episode is not there exactly once: {len(missing)}; "
            f"whose facts are not: {len(missing_facts)}; anything there twice: {len(doubled)}; "
            f"in the store: {len(episodes)} episodes, {len(facts)} facts"
        )
        if tally.failures:
            print(f"writers that stopped early: {tally.failures}")
        if missing or missing_facts or doubled or tally.failures:
            sys.exit(1)


if __name__ == "__main__":
    main()
