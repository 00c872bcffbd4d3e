// params: tenant, id, now, actor, rival, reason
// returns: fact, closed, turned_down
// Human approval of what the review queue holds (review/queue): a current candidate becomes
// active (approved_at marks it human-approved, so a later loss of corroborating evidence does
// not send it back to review); a flag on it (a contradiction, a premise in doubt) is cleared
// as verified (fact/_verify). An active fact is approved only when flagged: there is nothing
// else to decide about it; a reviewer's verification marks it human-approved too (as
// approving a candidate does), so a later loss of evidence does not send it back to review.
// An approved candidate ends the version it was written to supersede (`closed`:
// fact/_close_linked). Approving a flagged claim an entity merge silenced keeps it over
// $rival (review/rival, read under the same lock: the served version of another value the
// merge left answering the slot), which the same decision turns down (review/_reject, why:
// $reason): the side the reviewer kept is the slot's answer from then on.
MATCH (f:Fact {id: $id})
WHERE f.tenant = $tenant AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND (f.status = 'candidate' OR (f.status = 'active' AND f.needs_verification = true))
WITH f, f.status = 'candidate' AS promote, coalesce(f.needs_verification, false) AS flagged
SET f.reviewed_at = $now, f.reviewed_by = $actor,
    f.approved_at = coalesce(f.approved_at, $now), f.approved_by = coalesce(f.approved_by, $actor)
FOREACH (_ IN CASE WHEN promote THEN [1] ELSE [] END |
  SET f.status = 'active', f.activated_at = $now,
      f.changes_at = coalesce(f.changes_at, []) + $now,
      f.changes = coalesce(f.changes, []) + 'activated')
FOREACH (_ IN CASE WHEN flagged THEN [1] ELSE [] END |
#include fact/_verify(f)
)
WITH f, promote
OPTIONAL CALL (f, promote) {
  WITH f WHERE promote
#include fact/_close_linked(f)
}
OPTIONAL CALL (promote) {
  WITH promote WHERE NOT promote AND $rival IS NOT NULL
  MATCH (r:Fact {id: $rival})
  WHERE r.tenant = $tenant
#include review/_reject(r)
  RETURN r.id AS turned_down
}
RETURN f {.*, embedding: null} AS fact, closed, turned_down
