// params: hash
// returns: id, tenant, role, name, revoked_at
// Authentication is the one lookup that precedes a tenant: the key itself names the tenant.
MATCH (k:ApiKey {hash: $hash})
RETURN k.id AS id, k.tenant AS tenant, k.role AS role, k.name AS name, k.revoked_at AS revoked_at
