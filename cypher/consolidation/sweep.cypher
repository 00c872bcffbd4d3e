// params: tenant, run_id, limit
// returns: dropped
// A page of a rolled-back run's snapshots deleted (at most `limit`; the caller pages until
// fewer come back, and then the run has none left). Nothing reads them once the run is
// rolled back: the rollback's restore marked them spent and its last pass used the ones it
// needed. A run not rolled back keeps its snapshots (they are what a rollback restores).
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run_id})
WHERE r.status = 'rolled_back'
CALL (r) {
  MATCH (s:ConsolidationSnapshot {snapshot_run: r.id})
  WHERE s.snapshot_of IS NOT NULL  // seeks the (snapshot_run, snapshot_of) index
  WITH s LIMIT $limit
  DETACH DELETE s
  RETURN count(*) AS dropped
}
SET r.snapshots_left = CASE WHEN dropped < $limit THEN null ELSE true END
RETURN dropped
