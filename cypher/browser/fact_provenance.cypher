// params: tenant, fact_id
// returns: fact, evidence, episode, contributor, graph
// Why do we believe this? The fact, its supporting episodes, who contributed them.
// In Browser (a fact id from GraphQL or subject_history):
// :param tenant => 'demo'  then  :param fact_id => 'fact_0123abcd'
MATCH p = (f:Fact {id: $fact_id})-[d:DERIVED_FROM]->(e:Episode)-[:CONTRIBUTED_BY]->(u:User)
WHERE f.tenant = $tenant
RETURN f.caption AS fact, d.weight AS evidence, e.caption AS episode, u.id AS contributor, p AS graph
