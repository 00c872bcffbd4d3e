// params: tenant, scopes, run_id, now, until
// returns: held, run_id, scope
// A resumed run claims its scopes again under its own id (the caller holds the tenant lock
// and marked stale leases first); refused while another run holds one of them.
UNWIND $scopes AS scope
OPTIONAL MATCH (l:ConsolidationLease {tenant: $tenant, scope: scope})
WITH collect({scope: scope, lease: l}) AS wanted
WITH wanted, [w IN wanted WHERE w.lease IS NOT NULL AND w.lease.until > $now
                            AND w.lease.run_id <> $run_id] AS held
CALL (wanted, held) {
  WITH wanted, held WHERE size(held) = 0
  UNWIND wanted AS w
  MERGE (l:ConsolidationLease {tenant: $tenant, scope: w.scope})
  SET l.run_id = $run_id, l.until = $until, l.claimed_at = $now
  RETURN count(l) AS claimed
}
UNWIND CASE WHEN size(held) = 0 THEN [null] ELSE held END AS h
RETURN size(held) > 0 AS held, h.lease.run_id AS run_id, h.scope AS scope
