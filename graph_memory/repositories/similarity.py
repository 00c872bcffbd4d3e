"""Entity similarity with GDS, through the ``graphdatascience`` client.

One scope at a time: its entities (with name vectors) are projected into an in-memory graph,
kNN finds each one's most alike neighbours by cosine over the vectors, and the graph is dropped
again. The client is synchronous; callers run it in a worker thread.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from graphdatascience import GraphDataScience

from graph_memory.cypher import catalog
from graph_memory.repositories._scope import require_tenant
from graph_memory.settings import Neo4jConnection

__all__ = ["SimilarEntities", "SimilarityRepository"]


@dataclass(frozen=True)
class SimilarEntities:
    scope: str
    a_key: str
    a_name: str
    a_facts: int
    b_key: str
    b_name: str
    b_facts: int
    score: float


class SimilarityRepository:
    def __init__(self, conn: Neo4jConnection) -> None:
        self.conn = conn

    def _run(self, gds: GraphDataScience, name: str, params: dict[str, Any]) -> Any:
        q = catalog()[name]
        return gds.run_cypher(q.text, q.bind(params))

    def similar(self, tenant: str, scope: str, cutoff: float, top_k: int) -> list[SimilarEntities]:
        """Pairs of the scope's entities at least ``cutoff`` alike (each pair once)."""
        tenant = require_tenant(tenant)
        gds = GraphDataScience(
            self.conn.uri,
            auth=(self.conn.user, self.conn.password),
            database=self.conn.database,
            show_progress=False,
            arrow=False,
        )
        graph = f"er_{uuid.uuid4().hex}"
        try:
            nodes = self._run(
                gds, "resolution.project", {"tenant": tenant, "scope": scope, "graph": graph}
            )
            if nodes.empty or int(nodes["nodes"][0]) < 2:
                return []
            g = gds.graph.get(graph)
            # GDS kNN reports cosine mapped onto [0, 1] as (1 + cos) / 2; thresholds and
            # scores here are plain cosine. Exhaustive and seeded (sampleRate 1, one thread):
            # the same store always gives the same pairs, so a dry run shows what a run does.
            pairs = gds.knn.stream(
                g,
                node_properties=["name_embedding"],
                top_k=top_k,
                similarity_cutoff=(cutoff + 1.0) / 2.0,
                sample_rate=1.0,
                delta_threshold=0.0,
                random_seed=42,
                concurrency=1,
                log_progress=False,
            )
            if pairs.empty:
                return []
            ids = sorted({int(n) for n in pairs["node1"]} | {int(n) for n in pairs["node2"]})
            rows = self._run(gds, "resolution.nodes", {"tenant": tenant, "nodes": ids})
            info = {int(r.node): r for r in rows.itertuples()}
            seen: dict[tuple[str, str], SimilarEntities] = {}
            for p in pairs.itertuples():
                a, b = info.get(int(p.node1)), info.get(int(p.node2))
                if a is None or b is None:
                    continue
                first, second = (a, b) if a.key < b.key else (b, a)
                seen[(first.key, second.key)] = SimilarEntities(
                    scope,
                    first.key,
                    first.name,
                    int(first.facts),
                    second.key,
                    second.name,
                    int(second.facts),
                    2.0 * float(p.similarity) - 1.0,
                )
            return sorted(seen.values(), key=lambda s: (-s.score, s.a_key, s.b_key))
        finally:
            gds.graph.drop(graph, fail_if_missing=False)
            gds.close()
