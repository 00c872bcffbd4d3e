// params: tenant, run_id, limit
// returns: id, print
// A run's snapshots not yet restored, in the index's order (a rollback batch takes the next
// page; sorting by slot instead cost a sort of every snapshot left per batch), with the
// fingerprint each memory had when the run left it.
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
WHERE s.tenant = $tenant
RETURN s.snapshot_of AS id, s.after_print AS print
ORDER BY s.snapshot_run, s.snapshot_of
LIMIT $limit
