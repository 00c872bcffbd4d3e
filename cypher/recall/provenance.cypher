// params: tenant, facts, episodes, procedures
// returns: id, evidence
// Provenance of recalled items in one round trip: the supporting episodes (fact DERIVED_FROM,
// procedure EVIDENCED_BY, an episode is its own evidence) with their contributors.
CALL () {
  UNWIND $facts AS id
  MATCH (f:Fact {id: id})
  WHERE f.tenant = $tenant
  OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
  RETURN f.id AS id, e, d.weight AS weight, null AS success
  UNION ALL
  UNWIND $procedures AS id
  MATCH (p:Procedure {id: id})
  WHERE p.tenant = $tenant
  OPTIONAL MATCH (p)-[r:EVIDENCED_BY]->(e:Episode)
  RETURN p.id AS id, e, null AS weight, r.success AS success
  UNION ALL
  UNWIND $episodes AS id
  MATCH (e:Episode {id: id})
  WHERE e.tenant = $tenant
  RETURN e.id AS id, e, null AS weight, null AS success
}
OPTIONAL MATCH (e)-[:CONTRIBUTED_BY]->(u:User)
WITH id, e, weight, success, u ORDER BY e.started_at
RETURN id,
       [x IN collect(CASE WHEN e IS NULL THEN null ELSE {
          episode_id: e.id, session_id: e.session_id, user_id: u.id, weight: weight,
          success: success, started_at: e.started_at, summary: e.summary, source: e.source
       } END) WHERE x IS NOT NULL] AS evidence
