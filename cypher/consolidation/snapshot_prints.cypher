// params: tenant, run_id, batch
// returns: id, print
// The fingerprint a run left each memory of one of its batches with, for those not yet
// restored (a rollback batch checks them when someone wrote since its previous batch).
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_batch: $batch})
// The planner otherwise seeks (snapshot_run, snapshot_of), reading every snapshot of the run
// per batch: a rollback of 25 batches read all of them 25 times.
USING INDEX s:ConsolidationSnapshot(snapshot_run, snapshot_batch)
WHERE s.tenant = $tenant AND s.spent IS NULL
RETURN s.snapshot_of AS id, s.after_print AS print
