// params: tenant, run_id, status, props, changes, now
// returns: id
// The run's outcome: status, counts and step durations (props), and its diff, one
// ConsolidationChange per changed memory with its state before and after (JSON text).
MATCH (r:ConsolidationRun {tenant: $tenant, id: $run_id})
SET r += $props, r.status = $status, r.finished_at = $now
WITH r
CALL (r) {
  UNWIND $changes AS c
  CREATE (r)-[:CHANGED]->(x:ConsolidationChange)
  SET x = c, x.tenant = $tenant, x.run_id = r.id
  RETURN count(x) AS n
}
RETURN r.id AS id
