// params: tenant, scope, before, graph
// returns: nodes
// The in-memory graph episode compaction clusters: ONE scope's episodes that ended before
// `before`, with their vectors, not yet compacted and not digests themselves.
MATCH (e:Episode {tenant: $tenant, scope: $scope})
WHERE e.embedding IS NOT NULL AND e.compacted_into IS NULL AND NOT coalesce(e.digest, false)
  AND coalesce(e.ended_at, e.started_at, e.recorded_at) < $before
WITH gds.graph.project($graph, e, null,
       {sourceNodeProperties: {embedding: e.embedding}, targetNodeProperties: null}) AS g
RETURN g.nodeCount AS nodes
