// params: tenant, scope, graph
// returns: nodes
// The in-memory graph GDS compares: the tenant's entities that facts of ONE scope are about,
// with their name vectors (so a merge never crosses tenants or scopes).
MATCH (e:Entity {tenant: $tenant})
WHERE e.name_embedding IS NOT NULL
  AND EXISTS { MATCH (f:Fact {tenant: $tenant, scope: $scope})-[:ABOUT]->(e) }
WITH gds.graph.project($graph, e, null,
       {sourceNodeProperties: {name_embedding: e.name_embedding}, targetNodeProperties: null}) AS g
// No entity at all: the aggregation projects nothing and g is null (no graph to compare).
RETURN coalesce(g.nodeCount, 0) AS nodes
