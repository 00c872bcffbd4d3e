"""Episode compaction: GDS communities over an episode similarity graph (through the
``graphdatascience`` client), and the digest writes a consolidation batch makes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from graphdatascience import GraphDataScience

from graph_memory.cypher import catalog
from graph_memory.db import Database, Record, Tx
from graph_memory.domain import utcnow
from graph_memory.repositories._scope import require_tenant
from graph_memory.settings import Neo4jConnection

__all__ = ["CompactionRepository"]


class CompactionRepository:
    def __init__(self, db: Database, conn: Neo4jConnection) -> None:
        self.db = db
        self.conn = conn

    def _run(self, gds: GraphDataScience, name: str, params: dict[str, Any]) -> Any:
        q = catalog()[name]
        return gds.run_cypher(q.text, q.bind(params))

    def communities(
        self, tenant: str, scope: str, before: datetime, cutoff: float, top_k: int
    ) -> list[list[str]]:
        """Groups of the scope's episodes that ended before ``before``: kNN (cosine over
        their vectors, at least ``cutoff``) makes the similarity graph, Leiden its
        communities. Seeded, one thread: the same store gives the same groups. Synchronous
        (callers run it in a worker thread)."""
        tenant = require_tenant(tenant)
        gds = GraphDataScience(
            self.conn.uri,
            auth=(self.conn.user, self.conn.password),
            database=self.conn.database,
            show_progress=False,
            arrow=False,
        )
        graph = f"ec_{uuid.uuid4().hex}"
        try:
            nodes = self._run(
                gds,
                "compaction.project",
                {"tenant": tenant, "scope": scope, "before": before, "graph": graph},
            )
            # No episode old enough: the projection aggregates nothing and reports null.
            count = None if nodes.empty else nodes["nodes"][0]
            if count is None or count != count or int(count) < 2:  # None, NaN
                return []
            g = gds.graph.get(graph)
            # kNN reports cosine mapped onto [0, 1] as (1 + cos) / 2.
            gds.knn.mutate(
                g,
                node_properties=["embedding"],
                top_k=top_k,
                similarity_cutoff=(cutoff + 1.0) / 2.0,
                sample_rate=1.0,
                delta_threshold=0.0,
                random_seed=42,
                concurrency=1,
                mutate_relationship_type="SIMILAR",
                mutate_property="score",
            )
            g = gds.graph.get(graph)
            # kNN may register SIMILAR with no relationship when no pair reaches the cutoff,
            # and Leiden fails (a GDS NullPointerException) on a graph without one: no
            # relationship means no community, so Leiden is not asked. The projection has no
            # relationships of its own, so the graph's count is kNN's.
            if "SIMILAR" not in g.relationship_types() or g.relationship_count() == 0:
                return []
            gds.graph.relationships.to_undirected(
                g, relationship_type="SIMILAR", mutate_relationship_type="ALIKE"
            )
            g = gds.graph.get(graph)
            found = gds.leiden.stream(
                g,
                relationship_types=["ALIKE"],
                relationship_weight_property="score",
                random_seed=42,
                concurrency=1,
            )
            if found.empty:
                return []
            ids = sorted(int(n) for n in found["nodeId"])
            rows = self._run(gds, "compaction.nodes", {"tenant": tenant, "nodes": ids})
            episode = {int(r.node): str(r.id) for r in rows.itertuples()}
            groups: dict[int, list[str]] = {}
            for r in found.itertuples():
                if int(r.nodeId) in episode:
                    groups.setdefault(int(r.communityId), []).append(episode[int(r.nodeId)])
            return sorted((sorted(g) for g in groups.values() if len(g) > 1), key=lambda g: g[0])
        finally:
            gds.graph.drop(graph, fail_if_missing=False)
            gds.close()

    @staticmethod
    async def members(tx: Tx, tenant: str, ids: list[str]) -> list[Record]:
        return await tx.run("compaction.members", {"tenant": require_tenant(tenant), "ids": ids})

    @staticmethod
    async def create_digests(
        tx: Tx, tenant: str, rows: list[dict[str, Any]], run_id: str, now: datetime
    ) -> list[Record]:
        if not rows:
            return []
        return await tx.run(
            "compaction.create_digest",
            {"tenant": require_tenant(tenant), "rows": rows, "run_id": run_id, "now": now},
        )

    @staticmethod
    async def undo(tx: Tx, tenant: str, run_id: str) -> int:
        """The run's digests go and their members are served again; returns how many members."""
        rows = await tx.run("compaction.undo", {"tenant": require_tenant(tenant), "run_id": run_id})
        return int(rows[0]["members"]) if rows else 0

    async def forget_user(
        self, tenant: str, user_id: str, before: datetime | None = None
    ) -> Record:
        rows = await self.db.write(
            "compaction.forget_user",
            {
                "tenant": require_tenant(tenant),
                "user_id": user_id,
                "before": before,
                "now": utcnow(),  # when the audit events about its digests were blanked
            },
        )
        return rows[0] if rows else {"digests": 0, "members": 0}
