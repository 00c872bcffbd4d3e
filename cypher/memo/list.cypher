// params: tenant, scopes, kinds, statuses, now, limit
// returns: memo, provenance
// Newest first. An event past its TTL is no longer served; a todo is served until closed
// (statuses filter todos: open, done; events have no status and always pass).
#include forget/_hidden
MATCH (m:Memo)
WHERE m.tenant = $tenant AND m.scope IN $scopes AND m.kind IN $kinds
  AND (m.status IS NULL OR m.status IN $statuses)
  AND (m.expires_at IS NULL OR m.expires_at > $now)
  // A memo whose episode is gone (its contributor forgotten) is never served.
  AND EXISTS { (m)-[:DERIVED_FROM]->(:Episode) }
  AND NOT
#include forget/_hidden_fact(m)
WITH m ORDER BY m.recorded_at DESC, m.id LIMIT $limit
OPTIONAL MATCH (m)-[d:DERIVED_FROM]->(e:Episode)
WITH m, collect(CASE WHEN e IS NULL THEN null ELSE {
       episode_id: e.id, user_id: e.user_id, session_id: e.session_id, turns: d.turns
     } END) AS provenance
RETURN m {.*, embedding: null} AS memo, provenance
ORDER BY memo.recorded_at DESC, memo.id
