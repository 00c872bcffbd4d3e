// params: tenant, ids
// returns: id, evidence
// For each fact: its supporting episodes with the edge weight and the contributing user.
#include forget/_hidden
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE f.tenant = $tenant
WITH f, hidden WHERE NOT
#include forget/_hidden_fact(f)
OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
WHERE NOT
#include forget/_hidden_episode(e)
OPTIONAL MATCH (e)-[:CONTRIBUTED_BY]->(u:User)
WITH f, d, e, u ORDER BY e.started_at
RETURN f.id AS id,
       [x IN collect(CASE WHEN e IS NULL THEN null ELSE {
          episode_id: e.id, session_id: e.session_id, user_id: u.id, weight: d.weight,
          linked_at: d.at, summary: e.summary, started_at: e.started_at, source: e.source
       } END) WHERE x IS NOT NULL] AS evidence
