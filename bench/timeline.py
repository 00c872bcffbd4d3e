"""The time rule's cost on big slots: ``settle_open`` (what every write runs, under the slot's
lock, for each slot it touched) over one slot of n versions told one after another.

    python bench/timeline.py [--sizes 100 300 600] [--repeat 3]

Slots are generated (seeded): versions said an hour apart, a share of them with a stated start
(anywhere up to their telling), a fifth with an end, objects drawn from n. Pure Python, no
Neo4j: it prints the median over --repeat runs per size and share of dated versions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from graph_memory.temporal import VersionLife, settle_open

T0 = datetime(2025, 1, 1, tzinfo=UTC)


def slot(n: int, stated_share: float, seed: int = 1) -> list[VersionLife]:
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        told = T0 + timedelta(hours=i)
        stated = rnd.random() < stated_share
        start = T0 + timedelta(hours=rnd.randint(-5000, i)) if stated else told
        end = start + timedelta(hours=rnd.randint(1, 3000)) if rnd.random() < 0.2 else None
        obj = f"o{rnd.randint(0, n)}"
        out.append(VersionLife(f"f{i}", i + 1, obj, start, end, stated, told, told, None))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 600])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    now = T0 + timedelta(days=3650)
    print(f"{'versions':>8} {'dated':>6} {'settle_open p50':>16}")
    for n in args.sizes:
        for share in (0.0, 0.5, 1.0):
            lives = slot(n, share)
            took = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                settle_open(lives, [], now)
                took.append(time.perf_counter() - t)
            print(f"{n:>8} {share:>6.0%} {statistics.median(took) * 1000:>13.0f} ms")


if __name__ == "__main__":
    main()
