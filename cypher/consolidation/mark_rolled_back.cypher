// params: tenant, run_id, now, actor
// returns: id
// The run stays on record (with its diff) as rolled back; its timeline journals are spent
// (each rollback batch deleted its own; any left here are journals a rollback that
// recomputed the slots had no use for). Its snapshots, spent, are left to
// consolidation.sweep (`snapshots_left`), run in the background once the rollback has
// committed, and again by the tenant's next run if this process stopped first.
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run_id})
SET r.status = 'rolled_back', r.rolled_back_at = $now, r.rolled_back_by = $actor,
    r.snapshots_left = true
WITH r
CALL (r) {
  MATCH (j:ConsolidationJournal {tenant: $tenant, run_id: r.id})
  WHERE j.batch IS NOT NULL  // seeks the (tenant, run_id, batch) index
  DELETE j
  RETURN count(*) AS journals
}
RETURN r.id AS id
