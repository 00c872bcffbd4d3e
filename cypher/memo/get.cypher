// params: tenant, ids
// returns: memo, provenance
#include forget/_hidden
UNWIND $ids AS id
MATCH (m:Memo {id: id})
WHERE m.tenant = $tenant AND NOT
#include forget/_hidden_fact(m)
OPTIONAL MATCH (m)-[d:DERIVED_FROM]->(e:Episode)
WITH m, collect(CASE WHEN e IS NULL THEN null ELSE {
       episode_id: e.id, user_id: e.user_id, session_id: e.session_id, turns: d.turns
     } END) AS provenance
RETURN m {.*, embedding: null} AS memo, provenance
