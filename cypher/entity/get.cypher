// params: tenant, ids
// returns: entity
#include forget/_hidden
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.tenant = $tenant AND NOT
#include forget/_hidden_entity(e)
RETURN e {.*} AS entity
