// params: tenant, key, scopes
// returns: entity
#include forget/_hidden
MATCH (e:Entity {tenant: $tenant, key: $key})
WHERE NOT
#include forget/_hidden_entity(e)
  AND
#include entity/_in_scopes(e)
RETURN e {.*} AS entity
