// params: tenant, ids
// returns: keys, predicates
// Entities and predicates the excised versions name: dropped afterwards if nothing else does.
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
OPTIONAL MATCH (f)-[:ABOUT|OBJECT]->(en:Entity)
RETURN collect(DISTINCT en.key) AS keys, collect(DISTINCT f.predicate) AS predicates
