// params: tenant, scopes, now
// returns: id
// Runs whose lease ran out while still 'running' crashed before their one applying
// transaction committed, so nothing of them is in the graph: they are marked abandoned.
MATCH (l:ConsolidationLease {tenant: $tenant})
WHERE l.scope IN $scopes AND l.until <= $now
MATCH (r:ConsolidationRun {tenant: $tenant, id: l.run_id})
WHERE r.status = 'running'
SET r.status = 'abandoned', r.finished_at = $now,
    r.error = 'lease expired before the run committed; nothing was applied'
RETURN DISTINCT r.id AS id
