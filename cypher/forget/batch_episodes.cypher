// params: tenant, contributors, limit
// returns: ids, slots, procedures
// The contributors' next episodes, the slots of every fact citing them and the procedures they
// evidence. A batch processes those slots whole, then deletes the episodes: the next call
// finds the next ones, so the job resumes from the graph itself, with no cursor to lose.
MATCH (u:User)
WHERE u.key IN $contributors AND u.tenant = $tenant
MATCH (u)<-[:CONTRIBUTED_BY]-(e:Episode)
WITH e LIMIT $limit
CALL (e) {
  OPTIONAL MATCH (e)<-[:DERIVED_FROM]-(f:Fact)
  RETURN collect(DISTINCT CASE WHEN f IS NULL THEN null
                 ELSE {scope: f.scope, subject: f.subject, predicate: f.predicate} END) AS slots
}
CALL (e) {
  OPTIONAL MATCH (p:Procedure)-[:EVIDENCED_BY]->(e)
  RETURN collect(DISTINCT p.id) AS procedures
}
// One row of lists (per episode: its slots, its procedures; the service merges them).
RETURN collect(e.id) AS ids, collect(slots) AS slots, collect(procedures) AS procedures
