// params: tenant, id, now, actor
// returns: fact
// Human approval: a current candidate becomes active (approved_at marks it human-approved,
// so a later loss of corroborating evidence does not send it back to review).
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.status = 'candidate'
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
SET f.status = 'active', f.activated_at = $now, f.approved_at = $now, f.approved_by = $actor,
    f.reviewed_at = $now, f.reviewed_by = $actor,
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'activated'
RETURN f {.*, embedding: null} AS fact
