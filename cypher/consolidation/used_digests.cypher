// params: tenant, run_id
// returns: id
// The run's digests that others built on since: a fact that cites one (DERIVED_FROM), an
// outcome reported on one (LED_TO) or a procedure's verdict told in one (EVIDENCED_BY). A
// rollback deletes the run's digests, which would leave that fact without its source or drop
// that verdict, so it refuses while there is one (a few named), as for any memory the run
// changed that changed since.
MATCH (d:Episode {tenant: $tenant})
WHERE d.digest_run = $run_id AND d.scope IS NOT NULL  // seeks the (tenant, scope) index
  AND (EXISTS { (:Fact)-[:DERIVED_FROM]->(d) } OR EXISTS { (:Episode)-[:LED_TO]->(d) }
       OR EXISTS { (:Procedure)-[:EVIDENCED_BY]->(d) })
RETURN d.id AS id
LIMIT 5
