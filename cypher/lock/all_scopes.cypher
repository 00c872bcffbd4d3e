// params: tenant
// returns: locked, lock_stamp, server_now
// Every scope lock of the tenant, in key order, for the changes that reach across scopes
// (forgetting a contributor, the expiry sweep). Taken after the tenant lock: writers that
// register a predicate take that one first too, so the order is the same for everyone.
MATCH (l:ScopeLock {tenant: $tenant})
WHERE l.scope IS NOT NULL  // seeks the (tenant, scope) index, not every tenant's locks
WITH l ORDER BY l.scope
SET l.seq = coalesce(l.seq, 0) + 1
WITH count(l) AS locked, toString(max(l.stamp)) AS lock_stamp
// After the aggregation: one row also for a tenant with no scope lock yet.
RETURN locked, lock_stamp, toString(datetime.realtime()) AS server_now
