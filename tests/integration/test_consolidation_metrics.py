"""Consolidation in the service's Prometheus /metrics: a run, a dry run and a rollback move
the runs, wall time, batches, per-step time and per-step change counters, by the amounts the
run itself reports; no tenant in any label."""

from __future__ import annotations

import pytest

from graph_memory.client import GraphMemoryClient, GraphMemoryClientError
from graph_memory.settings import Settings
from tests.integration.consolidation_helpers import M_ROLLBACK, build_store, run
from tests.integration.test_metrics import matching, scrape


def test_runs_and_rollbacks_are_counted_with_their_steps_and_changes(
    server: str,
    settings: Settings,
    tenant: str,
    client: GraphMemoryClient,
    admin: GraphMemoryClient,
) -> None:
    build_store(settings, tenant, client, admin)
    before = scrape(server)
    run(admin, dry=True)
    done = run(admin)
    admin.execute(M_ROLLBACK, {"id": done["id"]})
    # Rolled back already: a refusal (CONFLICT), counted apart from failures.
    with pytest.raises(GraphMemoryClientError) as again:
        admin.execute(M_ROLLBACK, {"id": done["id"]})
    assert again.value.code == "CONFLICT"
    after = scrape(server)

    def moved(name: str, **labels: str) -> float:
        return matching(after, name, **labels) - matching(before, name, **labels)

    runs = "graph_memory_consolidation_runs_total"
    assert moved(runs, kind="run", status="applied") == 1
    assert moved(runs, kind="dry_run", status="dry_run") == 1
    assert moved(runs, kind="rollback", status="rolled_back") == 1
    assert moved(runs, kind="rollback", status="refused") == 1
    assert moved(runs, kind="rollback", status="failed") == 0
    assert moved("graph_memory_consolidation_seconds_count", kind="run") == 1
    assert moved("graph_memory_consolidation_seconds_sum", kind="rollback") > 0
    assert moved("graph_memory_consolidation_batches_total", kind="run") >= 1
    assert moved("graph_memory_consolidation_batches_total", kind="rollback") >= 1
    changed = 0
    for step in done["steps"]:
        name = step["step"].lower()
        # The dry run and the run each timed every step once.
        assert moved("graph_memory_consolidation_step_seconds_count", step=name) == 2, name
        for c in step["counts"]:
            got = moved("graph_memory_consolidation_changes_total", step=name, count=c["name"])
            assert got == c["value"], (name, c)  # the dry run counted nothing
            changed += c["value"]
    assert changed > 0
    text = "".join(f"{k}" for k in after)
    assert tenant not in text
