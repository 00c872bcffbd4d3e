// params: tenant, ids
// returns: procedure
#include forget/_hidden
UNWIND $ids AS id
MATCH (p:Procedure {id: id})
WHERE p.tenant = $tenant AND NOT
#include forget/_hidden_procedure(p)
RETURN p {.*, embedding: null} AS procedure
