// The earlier versions of @node's (scope, intent, role) still current end now, superseded by
// @node, as far as @node outranks them: a version served as truth (active: reviewed or
// proven by its successes) ends every one; a candidate (an agent's new steps, steps learned
// from one session's practice) ends only those not proven (candidates, demoted), so the
// proven steps stay served until the new ones prove themselves. Run when a version is
// written (procedure/create) and when one is promoted (procedure/recompute). Returns `ended`.
// A version itself ended since ends nothing (outcomes told of a replaced version promote it,
// but it no longer stands for its slot).
CALL (@node) {
  MATCH (old:Procedure {tenant: @node.tenant, intent: @node.intent, role: @node.role})
  WHERE @node.superseded_at IS NULL
    AND old.scope = @node.scope AND old.version < @node.version AND old.superseded_at IS NULL
    AND (@node.status = 'active' OR old.status <> 'active')
  SET old.superseded_at = $now, old.superseded_by = @node.id, old.updated_at = $now
  RETURN count(old) AS ended
}
