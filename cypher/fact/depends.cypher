// params: tenant, ids
// returns: id, premises, dependents
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[:DEPENDS_ON]->(p:Fact)
WITH f, collect(DISTINCT p.id) AS premises
OPTIONAL MATCH (d:Fact)-[:DEPENDS_ON]->(f)
RETURN f.id AS id, premises, collect(DISTINCT d.id) AS dependents
