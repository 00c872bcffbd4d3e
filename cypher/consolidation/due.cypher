// params: tenants, now, every_seconds, limit
// returns: tenant, scopes
// Tenants a scheduled run is due for: written to since their last run began, and that run
// at least `every_seconds` ago (a quiet tenant is left alone). The scheduler's cadence lives
// in the graph, so several service processes agree on it; leases keep their runs apart.
MATCH (f:Fact)
WHERE $tenants IS NULL OR f.tenant IN $tenants
WITH f.tenant AS tenant, collect(DISTINCT f.scope) AS scopes, max(f.recorded_at) AS last_write
OPTIONAL MATCH (r:ConsolidationRun {tenant: tenant})
WHERE r.status IN ['applied', 'running'] AND NOT coalesce(r.dry_run, false)
WITH tenant, scopes, last_write, max(r.started_at) AS last_run
WHERE last_run IS NULL
   OR (last_run < last_write AND last_run <= $now - duration({seconds: $every_seconds}))
RETURN tenant, scopes
ORDER BY tenant
LIMIT $limit
