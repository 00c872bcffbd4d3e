// params: tenant, run_id, limit
// returns: id, print
// A run's snapshots not yet restored, slot by slot (read once by a rollback, whose batches
// then take whole slots where they can: a batch mixing slots of every merged entity would
// rebuild nearly every survivor's slot each time), with the fingerprint each memory had
// when the run left it.
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
WHERE s.tenant = $tenant
RETURN s.snapshot_of AS id, s.after_print AS print
ORDER BY s.scope, s.subject, s.predicate, id
LIMIT $limit
