// params: tenant, rows
// returns: id
// Name vectors for entity resolution (derived from the name, so never part of a run's diff).
UNWIND $rows AS row
MATCH (e:Entity {id: row.id})
WHERE e.tenant = $tenant
SET e.name_embedding = row.vector
RETURN e.id AS id
