// params: tenant, keys
// returns: name
// Which of these normalised word sequences of a recall query name a known entity: recall
// judges relevance on the rest of the query too (services/ranking.py, mask_names).
UNWIND $keys AS key
MATCH (e:Entity {tenant: $tenant, key: key})
RETURN e.name AS name
