// params: tenant, ids
// returns: id, session_id, user_id, confidence, scope, started_at, forgotten
// forgotten: its contributor was forgotten (forget/_hidden): a write citing it is refused.
#include forget/_hidden
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
RETURN e.id AS id, e.session_id AS session_id, e.user_id AS user_id,
       e.confidence AS confidence, e.scope AS scope,
       e.started_at AS started_at,
#include forget/_hidden_episode(e)
       AS forgotten
