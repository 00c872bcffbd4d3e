// params: tenant, ids
// returns: scope
// The scopes these versions live in (a change to named versions locks their scopes).
MATCH (f:Fact)
WHERE f.id IN $ids AND f.tenant = $tenant
RETURN DISTINCT f.scope AS scope
