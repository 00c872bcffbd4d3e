// params: tenant, ids
// returns: keys
// Entities the excised versions name (checked again once they are gone).
UNWIND $ids AS id
MATCH (f:Fact {id: id})-[:ABOUT|OBJECT]->(en:Entity)
WHERE f.tenant = $tenant
RETURN collect(DISTINCT en.key) AS keys
