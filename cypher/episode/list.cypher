// params: tenant, scopes, user_id, session_id, from, to, after_recorded, after_id, limit
// returns: episode
#include forget/_hidden
MATCH (e:Episode)
WHERE e.tenant = $tenant AND e.scope IN $scopes AND NOT
#include forget/_hidden_episode(e)
  AND ($user_id IS NULL OR e.user_id = $user_id)
  AND ($session_id IS NULL OR e.session_id = $session_id)
  AND ($from IS NULL OR e.started_at >= $from)
  AND ($to IS NULL OR e.started_at < $to)
  AND ($after_recorded IS NULL OR e.recorded_at < $after_recorded
       OR (e.recorded_at = $after_recorded AND e.id < $after_id))
RETURN e {.*, embedding: null} AS episode
ORDER BY e.recorded_at DESC, e.id DESC
LIMIT $limit
