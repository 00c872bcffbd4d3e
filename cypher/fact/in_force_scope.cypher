// params: tenant, scopes, include_candidates, as_of, valid_at, include_expired, needs_verification, after_recorded, after_id, limit
// returns: fact, touched, at, at_id, forgetting
// Everything in the scopes, in force at (as_of, valid_at): a seek on the stored timeline
// (cypher/timeline/_in_force), then the versions it lets answer.
#include forget/_hidden
MATCH (s:Segment)
USING INDEX s:Segment(tenant, scope, recorded_at)
WHERE s.tenant = $tenant AND s.scope IN $scopes AND s.recorded_at IS NOT NULL
#include timeline/_in_force
#include timeline/_after
#include fact/_listed
