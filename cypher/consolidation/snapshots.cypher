// params: tenant, run_id, limit
// returns: id, print
// A run's snapshots not yet restored, with the fingerprint each memory had when the run left
// it (a rollback compares them when someone else wrote the run's scopes; a resumed run
// knows from them which memories it already changed).
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id})
// `snapshot_of IS NOT NULL` (always true) seeks the (snapshot_run, snapshot_of) index.
WHERE s.snapshot_of IS NOT NULL AND s.tenant = $tenant AND s.spent IS NULL
RETURN s.snapshot_of AS id, s.after_print AS print
LIMIT $limit
