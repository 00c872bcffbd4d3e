// params: after, limit
// returns: tenant
// Tenants that hold facts, in order, after a given one (the backfill walks them).
MATCH (f:Fact)
WHERE f.tenant > $after
RETURN DISTINCT f.tenant AS tenant
ORDER BY tenant
LIMIT $limit
