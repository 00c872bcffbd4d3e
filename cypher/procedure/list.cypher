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
// Its status at as_of: the last one logged by then (a log-less node has only today's).
WITH p, CASE WHEN p.status_log_at IS NULL THEN p.status
             ELSE last([i IN range(0, size(p.status_log_at) - 1)
                        WHERE p.status_log_at[i] <= $as_of | p.status_log[i]]) END AS status
WHERE status IN $statuses
RETURN p {.*, embedding: null, status_log_at: null, status_log: null, status: status} AS procedure
ORDER BY CASE status WHEN 'active' THEN 0 ELSE 1 END,
         p.success_count - p.failure_count DESC, p.updated_at DESC, p.id
LIMIT $limit
