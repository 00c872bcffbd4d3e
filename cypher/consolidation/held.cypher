// params: tenant, scopes, now
// returns: scope, run_id
// The leases another run holds on these scopes now (consolidation.claim takes them): a dry
// run, which claims none, refuses while one is held, since between that run's batches it
// would read a half-applied store and return the diff of that.
UNWIND $scopes AS scope
MATCH (l:ConsolidationLease {tenant: $tenant, scope: scope})
WHERE l.until > $now
RETURN scope, l.run_id AS run_id
