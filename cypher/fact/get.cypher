// params: tenant, ids
// returns: fact
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
RETURN f {.*, embedding: null} AS fact
