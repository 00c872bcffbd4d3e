// params: tenant, moves, now, actor
// returns: id
// fact.retract for a batch of merged duplicates (one round trip, not one per version): the
// same ending of belief at `now`, the version kept, the reason naming the survivor.
UNWIND $moves AS m
MATCH (f:Fact {id: m.from})
WHERE f.tenant = $tenant AND f.retracted_at IS NULL
SET f.retracted_at = $now, f.retracted_by = $actor,
    f.retract_reason = 'duplicate of ' + m.to + ' (same object up to case and whitespace), merged',
    f.status = 'retracted',
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'retracted'
RETURN f.id AS id
