// params: tenant, ids
// returns: entity
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.tenant = $tenant
RETURN e {.*} AS entity
