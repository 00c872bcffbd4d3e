// params: tenant, user_id
// returns: episode, session, started_at, facts, graph
// Everything one user contributed: their episodes and the facts derived from them.
// In Browser: :param tenant => 'demo'  then  :param user_id => 'alice'
MATCH (u:User {tenant: $tenant, id: $user_id})<-[:CONTRIBUTED_BY]-(e:Episode)
OPTIONAL MATCH p = (f:Fact)-[:DERIVED_FROM]->(e)
RETURN e.caption AS episode, e.session_id AS session, e.started_at AS started_at,
       collect(DISTINCT f.caption) AS facts, collect(p) AS graph
ORDER BY e.started_at DESC
