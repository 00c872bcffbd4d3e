// params: tenant, run_id, props, changes, prints, until
// returns: id, leases
// One committed batch of a run, in the batch's own transaction: the run's totals so far
// (props), the batch's diff entries, the fingerprint of each memory as the batch left it (a
// rollback refuses to restore over a later change), and the lease renewed. `leases` 0 means
// the run lost its lease (it stalled past it and another run claimed the scope): the
// caller aborts the batch.
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run_id})
SET r += $props
WITH r
CALL (r) {
  UNWIND $changes AS c
  CREATE (r)-[:CHANGED]->(x:ConsolidationChange)
  SET x = c, x.tenant = $tenant, x.run_id = r.id
  RETURN count(x) AS created
}
CALL () {
  UNWIND $prints AS p
  MATCH (s:ConsolidationSnapshot {snapshot_run: $run_id, snapshot_of: p.id})
  SET s.after_print = p.print
  RETURN count(s) AS printed
}
CALL (r) {
  OPTIONAL MATCH (l:ConsolidationLease {tenant: $tenant, run_id: r.id})
  SET l.until = $until
  RETURN count(l) AS leases
}
RETURN r.id AS id, leases
