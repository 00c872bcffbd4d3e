// params: tenant, scope, intent, role
// returns: procedure
// The current (not superseded) version of one (scope, intent, role), if any.
MATCH (p:Procedure)
WHERE p.tenant = $tenant AND p.intent = $intent AND p.role = $role AND p.scope = $scope
  AND p.superseded_at IS NULL
RETURN p {.*, embedding: null} AS procedure
ORDER BY p.version DESC
LIMIT 1
