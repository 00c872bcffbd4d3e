// params: tenant, ids
// returns: episode
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
RETURN e {.*, embedding: null} AS episode
