// params: tenant, id, now, actor, reason
// returns: fact
// Human rejection: the candidate is never served; history keeps it as rejected, with why.
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.status = 'candidate'
  AND f.superseded_at IS NULL AND f.retracted_at IS NULL
SET f.status = 'rejected', f.rejected_at = $now, f.rejected_by = $actor,
    f.reject_reason = $reason, f.reviewed_at = $now, f.reviewed_by = $actor,
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'rejected'
RETURN f {.*, embedding: null} AS fact
