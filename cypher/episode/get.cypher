// params: tenant, ids
// returns: episode
#include forget/_hidden
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant AND NOT
#include forget/_hidden_episode(e)
RETURN e {.*, embedding: null} AS episode
