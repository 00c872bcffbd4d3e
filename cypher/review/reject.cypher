// params: tenant, id, now, actor, reason
// returns: fact
// Human rejection of what the review queue holds (review/queue): a candidate, or an active
// fact flagged for verification (the losing side of a contradiction), is never served again;
// history keeps it as rejected, with why. Its flag is settled by the decision, as approval
// settles it (fact/_verify): a rejected fact does not read as still awaiting verification.
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND (f.status = 'candidate' OR (f.status = 'active' AND f.needs_verification = true))
WITH f, coalesce(f.needs_verification, false) AS flagged
FOREACH (_ IN CASE WHEN flagged THEN [1] ELSE [] END |
#include fact/_verify(f)
)
SET f.status = 'rejected', f.rejected_at = $now, f.rejected_by = $actor,
    f.reject_reason = $reason, f.reviewed_at = $now, f.reviewed_by = $actor,
    f.changes_at = coalesce(f.changes_at, []) + $now,
    f.changes = coalesce(f.changes, []) + 'rejected'
RETURN f {.*, embedding: null} AS fact
