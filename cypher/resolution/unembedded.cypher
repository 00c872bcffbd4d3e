// params: tenant, scopes, limit
// returns: id, key
// Entities that facts of these scopes are about and whose name has no vector yet.
MATCH (f:Fact {tenant: $tenant})-[:ABOUT]->(e:Entity)
WHERE f.scope IN $scopes AND e.name_embedding IS NULL
RETURN DISTINCT e.id AS id, e.key AS key
LIMIT $limit
