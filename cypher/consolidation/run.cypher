// params: tenant, id
// returns: run
// One run's node without its diff (a rollback batch re-reads its status and progress; the
// diff of a large run is tens of thousands of entries).
MATCH (r:ConsolidationRun {tenant: $tenant, id: $id})
RETURN r {.*} AS run
