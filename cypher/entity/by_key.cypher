// params: tenant, key
// returns: entity
#include forget/_hidden
MATCH (e:Entity {tenant: $tenant, key: $key})
WHERE NOT
#include forget/_hidden_entity(e)
RETURN e {.*} AS entity
