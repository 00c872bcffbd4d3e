// params: tenant, ids, scopes
// returns: entity
#include forget/_hidden
UNWIND $ids AS id
MATCH (e:Entity {id: id})
WHERE e.tenant = $tenant AND NOT
#include forget/_hidden_entity(e)
  AND
#include entity/_in_scopes(e)
RETURN e {.*} AS entity
