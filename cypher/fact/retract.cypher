// params: tenant, id, now, actor, acted_for, reason
// returns: fact
// Retraction ends belief at `now` but keeps the version: "X was removed at T by whom" stays
// answerable from history. `acted_for`: the user a session token retracted it for
// (forget/acted_for_marks finds it by that range-indexed field).
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.retracted_at IS NULL
SET f.retracted_at = $now, f.retracted_by = $actor, f.retracted_for = $acted_for,
    f.retract_reason = $reason,
    f.status = 'retracted',
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'retracted'
RETURN f {.*, embedding: null} AS fact
