// params: tenant, rows, now
// returns: id, added
// Re-asserting the current object adds evidence to that version instead of a new version.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant
UNWIND row.citations AS c
MATCH (e:Episode {id: c.episode_id})
WHERE e.tenant = $tenant
OPTIONAL MATCH (f)-[existing:DERIVED_FROM]->(e)
MERGE (f)-[d:DERIVED_FROM]->(e)
ON CREATE SET d.weight = c.weight, d.at = $now
RETURN f.id AS id, existing IS NULL AS added
