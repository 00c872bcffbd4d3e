// params: tenant, rows, now, actor
// returns: id
// The decay step collects: belief in each fact ends at `now` (as a retraction, the version
// kept for history, the reason saying why), re-checked against a retrieval or a retraction
// since the plan. A rollback restores it from its snapshot.
UNWIND $rows AS row
MATCH (f:Fact {id: row.id})
WHERE f.tenant = $tenant AND f.retracted_at IS NULL AND f.status IN ['active', 'candidate']
  AND toString(coalesce(f.last_retrieved_at, f.recorded_at)) = row.last_used
SET f.retracted_at = $now, f.retracted_by = $actor, f.retract_reason = row.reason,
    f.status = 'retracted', f.collected_at = $now,
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'retracted'
RETURN f.id AS id
