// params: tenant, run_id
// returns: digests, members
// A rollback's share for compaction: the run's digests go, its members are served again.
CALL () {
  MATCH (m:Episode {tenant: $tenant})
  WHERE m.compacted_run = $run_id AND m.scope IS NOT NULL  // seeks (tenant, scope)
  REMOVE m.compacted_into, m.compacted_run, m.compacted_at
  RETURN count(m) AS members
}
CALL () {
  MATCH (d:Episode {tenant: $tenant})
  WHERE d.digest_run = $run_id AND d.scope IS NOT NULL  // seeks (tenant, scope)
  DETACH DELETE d
  RETURN count(*) AS digests
}
RETURN digests, members
