// params: tenants, now, every_seconds, limit
// returns: tenant, scopes
// Tenants a scheduled run is due for: written to (a fact or an episode: compaction works on
// episodes alone) since their last run began, and that run at least `every_seconds` ago (a
// quiet tenant is left alone). A run rolled back counts as run when it was rolled back: an
// admin's rollback is not undone by the next tick, only writes after it make the tenant due.
// The scheduler's cadence lives in the graph, so several service processes agree on it;
// leases keep their runs apart.
CALL () {
  MATCH (f:Fact)
  WHERE $tenants IS NULL OR f.tenant IN $tenants
  RETURN f.tenant AS tenant, f.scope AS scope, f.recorded_at AS at
  UNION ALL
  MATCH (e:Episode)
  WHERE $tenants IS NULL OR e.tenant IN $tenants
  RETURN e.tenant AS tenant, e.scope AS scope, e.recorded_at AS at
}
WITH tenant, collect(DISTINCT scope) AS scopes, max(at) AS last_write
WHERE tenant IS NOT NULL
OPTIONAL MATCH (r:ConsolidationRun {tenant: tenant})
WHERE r.status IN ['applied', 'running', 'rolled_back'] AND NOT coalesce(r.dry_run, false)
WITH tenant, [s IN scopes WHERE s IS NOT NULL] AS scopes, last_write,
     max(CASE WHEN r.status = 'rolled_back' THEN coalesce(r.rolled_back_at, r.started_at)
              ELSE r.started_at END) AS last_run
WHERE last_run IS NULL
   OR (last_run < last_write AND last_run <= $now - duration({seconds: $every_seconds}))
RETURN tenant, scopes
ORDER BY tenant
LIMIT $limit
