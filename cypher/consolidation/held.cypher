// params: tenant, scopes, now
// returns: scope, run_id
// The runs that hold these scopes now: a lease another run holds (consolidation.claim takes
// them), or a rollback under way (it holds no lease, and stops between its pages). A dry
// run, which claims none, refuses while one is held: it would read a half-applied (or
// half-restored) store and return the diff of that.
UNWIND $scopes AS scope
MATCH (l:ConsolidationLease {tenant: $tenant, scope: scope})
WHERE l.until > $now
RETURN scope, l.run_id AS run_id
UNION
MATCH (r:ConsolidationRun {tenant: $tenant})
WHERE r.id IS NOT NULL  // seeks the (tenant, id) index, not every tenant's runs
  AND r.status = 'rolling_back'
UNWIND [s IN coalesce(r.scopes, []) WHERE s IN $scopes] AS scope
RETURN scope, r.id AS run_id
