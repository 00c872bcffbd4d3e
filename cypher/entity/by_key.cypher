// params: tenant, key
// returns: entity
MATCH (e:Entity {tenant: $tenant, key: $key})
RETURN e {.*} AS entity
