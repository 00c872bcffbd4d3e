// @node is turned down by a reviewer ($actor, $now, why: $reason): never served again,
// history keeps it as rejected with why (review/reject; review/approve turns down the served
// version of another value that approving a claim a merge silenced keeps it over). A flag on
// it is settled by the decision (fact/_verify): a rejected fact does not read as still
// awaiting verification.
FOREACH (_ IN CASE WHEN coalesce(@node.needs_verification, false) THEN [1] ELSE [] END |
#include fact/_verify(@node)
)
SET @node.status = 'rejected', @node.rejected_at = $now, @node.rejected_by = $actor,
    @node.reject_reason = $reason, @node.reviewed_at = $now, @node.reviewed_by = $actor,
    @node.changes_at = coalesce(@node.changes_at, []) + $now,
    @node.changes = coalesce(@node.changes, []) + 'rejected'
