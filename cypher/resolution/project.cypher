// params: tenant, scope, graph
// returns: nodes
// The in-memory graph GDS compares: the tenant's entities that facts of ONE scope are about,
// with their name vectors (so a merge never crosses tenants or scopes). Only versions still
// believed count: an entity a merge absorbed keeps its retracted originals (its history) and
// is not compared again, unless something new is told about it.
MATCH (e:Entity {tenant: $tenant})
WHERE e.key IS NOT NULL  // seeks the (tenant, key) index, not every tenant's entities
  AND e.name_embedding IS NOT NULL
  AND EXISTS { MATCH (f:Fact {tenant: $tenant, scope: $scope})-[:ABOUT]->(e)
               WHERE f.retracted_at IS NULL AND f.rejected_at IS NULL }
WITH gds.graph.project($graph, e, null,
       {sourceNodeProperties: {name_embedding: e.name_embedding}, targetNodeProperties: null}) AS g
// No entity at all: the aggregation projects nothing and g is null (no graph to compare).
RETURN coalesce(g.nodeCount, 0) AS nodes
