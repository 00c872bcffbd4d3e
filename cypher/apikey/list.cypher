// params: tenant
// returns: id, tenant, role, name, created_at, revoked_at
MATCH (k:ApiKey)
WHERE $tenant IS NULL OR k.tenant = $tenant
RETURN k.id AS id, k.tenant AS tenant, k.role AS role, k.name AS name,
       k.created_at AS created_at, k.revoked_at AS revoked_at
ORDER BY k.tenant, k.created_at
