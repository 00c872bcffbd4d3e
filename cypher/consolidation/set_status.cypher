// params: tenant, run_id, status, from, props
// returns: id
// A run moves from one of the statuses `from` to `status` (a resume, a rollback starting);
// no row when it is in none of them (someone else moved it first).
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run_id})
WHERE r.status IN $from
SET r += $props, r.status = $status
RETURN r.id AS id
