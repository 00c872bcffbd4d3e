// params: tenant, scopes, keys
// returns: name
// Which of these normalised word sequences of a recall query name an entity that facts in the
// asked scopes are about (or point to): recall judges relevance on the rest of the query too
// (services/recall/ranking.py, mask_names). Another user's entity named like a common word ("May")
// must not change what this user's question means.
#include forget/_hidden
UNWIND $keys AS key
MATCH (e:Entity {tenant: $tenant, key: key})
WHERE EXISTS { MATCH (f:Fact)-[:ABOUT|OBJECT]->(e) WHERE f.scope IN $scopes AND NOT
#include forget/_hidden_fact(f)
}
RETURN e.name AS name
