// params: tenant, contributors, limit
// returns: ids, procedures, judged
// The next $limit episodes of these contributors, once no fact cites any of them (the last
// batches of a purge: episodes whose facts are done, or that never backed one), with the
// procedures they evidence.
MATCH (u:User)
WHERE u.key IN $contributors AND u.tenant = $tenant
MATCH (u)<-[:CONTRIBUTED_BY]-(e:Episode)
// A digest goes with the compaction's residue, which also serves its other members again.
WHERE NOT coalesce(e.digest, false)
WITH e LIMIT $limit
CALL (e) {
  OPTIONAL MATCH (p:Procedure)-[:EVIDENCED_BY]->(e)
  WHERE p.tenant = $tenant
  RETURN collect(p.id) AS procedures
}
// One row of lists (per episode, its procedures; the service merges them), and the episodes
// that reported outcomes (forget.free_episodes).
RETURN collect(e.id) AS ids, collect(procedures) AS procedures,
       collect(CASE WHEN EXISTS { (e)-[:LED_TO]->() } THEN e.id END) AS judged
