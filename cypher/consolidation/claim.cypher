// params: tenant, scopes, run, now, until
// returns: held, run_id, scope
// A run claims each of its scopes for a bounded time (a lease in the graph, so service
// processes sharing one Neo4j exclude each other). The caller holds the tenant lock, so two
// claims never interleave; a lease still held by another run refuses the whole claim.
UNWIND $scopes AS scope
OPTIONAL MATCH (l:ConsolidationLease {tenant: $tenant, scope: scope})
WITH collect({scope: scope, lease: l}) AS wanted
WITH wanted, [w IN wanted WHERE w.lease IS NOT NULL AND w.lease.until > $now] AS held
CALL (wanted, held) {
  WITH wanted, held WHERE size(held) = 0
  UNWIND wanted AS w
  MERGE (l:ConsolidationLease {tenant: $tenant, scope: w.scope})
  SET l.run_id = $run.id, l.until = $until, l.claimed_at = $now
  RETURN count(l) AS claimed
}
WITH held, claimed
CALL (held, claimed) {
  WITH held WHERE size(held) = 0
  CREATE (r:ConsolidationRun)
  SET r = $run, r.tenant = $tenant, r.started_at = $now, r.status = 'running'
  RETURN count(r) AS created
}
UNWIND CASE WHEN size(held) = 0 THEN [null] ELSE held END AS h
RETURN size(held) > 0 AS held, h.lease.run_id AS run_id, h.scope AS scope
