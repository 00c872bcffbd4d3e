// params: tenant, contributors
// returns: scopes
// Every scope a purge batch can write in through the contributors' episodes (deleted) and
// the procedures they evidence (demoted or recomputed). Nothing new can cite a forgotten
// contributor's episodes (refused from phase 1 on), so this only shrinks while the purge runs:
// a runner reads it once per set of contributors, not once a batch (it walks every episode
// left, which made each batch of a large user cost more than the last).
MATCH (u:User)
WHERE u.key IN $contributors AND u.tenant = $tenant
MATCH (u)<-[:CONTRIBUTED_BY]-(e:Episode)
CALL (e) {
  OPTIONAL MATCH (p:Procedure)-[:EVIDENCED_BY]->(e)
  RETURN collect(DISTINCT p.scope) AS procedures
}
UNWIND [e.scope] + procedures AS scope
WITH scope WHERE scope IS NOT NULL
RETURN collect(DISTINCT scope) AS scopes
