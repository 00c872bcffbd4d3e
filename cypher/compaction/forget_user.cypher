// params: tenant, user_id, before, now
// returns: digests, members
// Forgetting a contributor reaches through digests: every digest one of their episodes went
// into is deleted (its text came from theirs), and its other members are served again on
// their own (a later run may compact them anew). The audit events about the digest keep
// who/when/which action, not what they recorded (its members' ids, theirs among them:
// audit/_blank, as for every excised memory).
MATCH (d:Episode {tenant: $tenant})
WHERE d.scope IS NOT NULL  // seeks the (tenant, scope) index, not every tenant's episodes
  AND d.digest = true AND $user_id IN coalesce(d.member_users, [])
  // Made before the forget: the user id's later episodes are a new contributor's.
  AND ($before IS NULL OR d.recorded_at < $before)
CALL (d) {
  OPTIONAL MATCH (m:Episode {tenant: $tenant})
  WHERE m.compacted_into = d.id AND m.scope IS NOT NULL  // seeks (tenant, scope)
  REMOVE m.compacted_into, m.compacted_run, m.compacted_at
  RETURN count(m) AS members
}
CALL (d) {
  OPTIONAL MATCH (a:AuditEvent {tenant: $tenant, target_id: d.id})
  WHERE a.redacted_at IS NULL
#include audit/_blank(a)
  RETURN count(a) AS redacted
}
WITH d, members
DETACH DELETE d
RETURN count(*) AS digests, sum(members) AS members
