// params: tenant, scopes, subject, predicate, include_candidates, as_of, valid_at, include_expired, needs_verification, after_recorded, after_id, limit
// returns: fact, touched, at, at_id, forgetting
// One (subject, predicate) slot, in force at (as_of, valid_at): a seek on the stored timeline
// (cypher/timeline/_in_force), then the versions it lets answer.
#include forget/_hidden
MATCH (s:Segment)
USING INDEX s:Segment(tenant, scope, subject, predicate)
WHERE s.tenant = $tenant AND s.scope IN $scopes AND s.subject = $subject
  AND s.predicate = $predicate
#include timeline/_in_force
#include timeline/_after
#include fact/_listed
