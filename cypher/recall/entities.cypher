// params: tenant, scopes, keys, as_of
// returns: name
// Which of these normalised word sequences of a recall query name an entity that facts in the
// asked scopes are about (or point to): recall judges relevance on the rest of the query too
// (services/recall/ranking.py, mask_names). Another user's entity named like a common word ("May")
// must not change what this user's question means. Only facts recorded by as_of count: what a
// recall asOf a past moment makes of its question must not change with what was told since.
#include forget/_hidden
UNWIND $keys AS key
MATCH (e:Entity {tenant: $tenant, key: key})
WHERE EXISTS { MATCH (f:Fact)-[:ABOUT|OBJECT]->(e)
               WHERE f.scope IN $scopes AND f.recorded_at <= $as_of AND NOT
#include forget/_hidden_fact(f)
}
RETURN e.name AS name
