// params: tenant, ids
// returns: procedure
UNWIND $ids AS id
MATCH (p:Procedure {id: id})
WHERE p.tenant = $tenant
RETURN p {.*, embedding: null} AS procedure
