// params: tenant, scopes, intent, role, statuses, as_of, limit
// returns: procedure
// Procedures for one intent (exact, normalised), optionally one role: the version current at
// as_of, best proven first (active before candidates, then by net successes); never one only
// forgotten contributors' sessions evidence (forget/_hidden_procedure).
#include forget/_hidden
MATCH (p:Procedure)
WHERE p.tenant = $tenant AND p.intent = $intent AND p.scope IN $scopes
  AND ($role IS NULL OR p.role = $role)
  AND p.created_at <= $as_of
  AND (p.superseded_at IS NULL OR p.superseded_at > $as_of)
  AND NOT
#include forget/_hidden_procedure(p)
// As it stood at as_of (status, evidence, supersession): a read as of T is what a read at
// T answered.
#include procedure/_as_of(p)
WITH p, then WHERE then.status IN $statuses
RETURN then AS procedure
ORDER BY CASE then.status WHEN 'active' THEN 0 ELSE 1 END,
         then.success_count - then.failure_count DESC, then.updated_at DESC, p.id
LIMIT $limit
