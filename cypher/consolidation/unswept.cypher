// params: tenant, limit
// returns: id
// The tenant's rolled-back runs whose snapshots are not all swept yet (the process that
// rolled them back stopped before its sweep finished).
MATCH (r:ConsolidationRun {tenant: $tenant})
WHERE r.id IS NOT NULL  // seeks the (tenant, id) index, not every tenant's runs
  AND r.snapshots_left = true
RETURN r.id AS id
LIMIT $limit
