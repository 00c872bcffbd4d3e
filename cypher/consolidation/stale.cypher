// params: tenant, scopes, now
// returns: id, status
// Runs whose lease ran out while still 'running' stopped (a crash, a lost process). A run
// commits batch by batch, each with its diff and snapshots: one that committed none is
// abandoned (nothing of it is in the graph); one that committed some is interrupted, and
// can be resumed (resumeConsolidation) or rolled back like an applied run.
MATCH (l:ConsolidationLease {tenant: $tenant})
WHERE l.scope IN $scopes AND l.until <= $now
MATCH (r:ConsolidationRun {tenant: $tenant, id: l.run_id})
WHERE r.status = 'running'
WITH DISTINCT r
SET r.status = CASE WHEN coalesce(r.batches, 0) = 0 THEN 'abandoned' ELSE 'interrupted' END,
    r.finished_at = $now,
    r.error = CASE WHEN coalesce(r.batches, 0) = 0
                   THEN 'lease expired before the run committed; nothing was applied'
                   ELSE 'lease expired after ' + toString(r.batches) + ' committed batch(es); '
                        + 'resume or roll back the run' END
RETURN r.id AS id, r.status AS status
