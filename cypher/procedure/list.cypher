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
WITH p, hidden, CASE WHEN p.status_log_at IS NULL THEN p.status
             ELSE last([i IN range(0, size(p.status_log_at) - 1)
                        WHERE p.status_log_at[i] <= $as_of | p.status_log[i]]) END AS status
WHERE status IN $statuses
// Its evidence as told by then (procedure/recompute.cypher counts the same edges today): a
// read as of T is what a read at T answered.
#include procedure/_verdicts(p)
WITH p, status, r, e IS NOT NULL AND NOT
#include forget/_hidden_episode(e)
     AS counts
WITH p, status, count(CASE WHEN counts AND r.success THEN 1 END) AS wins,
     count(CASE WHEN counts AND r.success = false THEN 1 END) AS losses
// Current at as_of (the filter above): any supersession came later.
RETURN p {.*, embedding: null, status_log_at: null, status_log: null, status: status,
          success_count: wins, failure_count: losses, superseded_at: null,
          superseded_by: null} AS procedure
ORDER BY CASE status WHEN 'active' THEN 0 ELSE 1 END, wins - losses DESC, p.updated_at DESC, p.id
LIMIT $limit
