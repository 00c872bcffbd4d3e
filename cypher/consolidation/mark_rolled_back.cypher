// params: tenant, run_id, now, actor
// returns: id
// The run stays on record (with its diff) as rolled back; its snapshots and timeline
// journals are spent (each rollback batch deleted its own; any left here are of memories gone
// since, or journals a rollback that recomputed the slots had no use for).
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run_id})
SET r.status = 'rolled_back', r.rolled_back_at = $now, r.rolled_back_by = $actor
WITH r
CALL (r) {
  MATCH (s:ConsolidationSnapshot {snapshot_run: r.id})
  WHERE s.snapshot_of IS NOT NULL  // seeks the (snapshot_run, snapshot_of) index
  DETACH DELETE s
  RETURN count(*) AS spent
}
CALL (r) {
  MATCH (j:ConsolidationJournal {tenant: $tenant, run_id: r.id})
  WHERE j.batch IS NOT NULL  // seeks the (tenant, run_id, batch) index
  DELETE j
  RETURN count(*) AS journals
}
RETURN r.id AS id
