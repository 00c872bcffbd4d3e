// params: tenant, rows, now
// returns: linked
// New versions have no edges yet, so CREATE (not MERGE) is exact and cheaper.
UNWIND $rows AS row
MATCH (f:Fact {id: row.fact_id})
MATCH (e:Episode {id: row.episode_id})
WHERE e.tenant = $tenant
CREATE (f)-[:DERIVED_FROM {weight: row.weight, at: $now}]->(e)
RETURN count(*) AS linked
