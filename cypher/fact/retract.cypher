// params: tenant, id, now, actor, reason
// returns: fact
// Retraction ends belief at `now` but keeps the version: "X was removed at T by whom" stays
// answerable from history.
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.retracted_at IS NULL
SET f.retracted_at = $now, f.retracted_by = $actor, f.retract_reason = $reason,
    f.status = 'retracted',
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'retracted'
RETURN f {.*, embedding: null} AS fact
