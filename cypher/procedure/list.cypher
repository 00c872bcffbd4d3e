// params: tenant, scopes, intent, role, statuses, as_of, limit
// returns: procedure
// Procedures for one intent (exact, normalised), optionally one role: the version current at
// as_of, best proven first (active before candidates, then by net successes).
MATCH (p:Procedure)
WHERE p.tenant = $tenant AND p.intent = $intent AND p.scope IN $scopes
  AND ($role IS NULL OR p.role = $role)
  AND p.status IN $statuses
  AND p.created_at <= $as_of
  AND (p.superseded_at IS NULL OR p.superseded_at > $as_of)
RETURN p {.*, embedding: null} AS procedure
ORDER BY CASE p.status WHEN 'active' THEN 0 ELSE 1 END,
         p.success_count - p.failure_count DESC, p.updated_at DESC, p.id
LIMIT $limit
