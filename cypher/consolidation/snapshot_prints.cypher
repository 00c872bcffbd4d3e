// params: tenant, run_id, ids
// returns: id, print
// The fingerprint a run left each of these memories with, for those not yet restored (a
// rollback batch checks them when someone wrote since its previous batch).
UNWIND $ids AS id
MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: id})
WHERE s.tenant = $tenant
RETURN s.snapshot_of AS id, s.after_print AS print
