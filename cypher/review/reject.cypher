// params: tenant, id, now, actor, reason
// returns: fact
// Human rejection of what the review queue holds (review/queue): a candidate, or an active
// fact flagged for verification (the losing side of a contradiction), is never served again;
// history keeps it as rejected, with why (review/_reject).
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND (f.status = 'candidate' OR (f.status = 'active' AND f.needs_verification = true))
#include review/_reject(f)
RETURN f {.*, embedding: null} AS fact
