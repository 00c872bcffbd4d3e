// params: tenant, scopes, predicate
// returns: touched
// The slots in the scopes (of one predicate, or all: $predicate null) where a forget in flight
// told a version with an end that its purge has not reached: their ended claim may cut what
// another user told, so that no stored segment answers the slot and a listing by scope or
// predicate meets none of its versions (a subject read asks forget/touched_slots). Only while
// a job's first batches run (forget/_next_facts: versions with an end go first, then the
// marker's `ends_left` is cleared); one seek on the forgotten_contributor index when no forget
// runs. A marker from before `ends_left` counts as having some.
#include forget/_hidden
WITH hidden WHERE size(hidden) > 0
MATCH (fg:Forgotten {tenant: $tenant})
WHERE coalesce(fg.ends_left, true)
MATCH (u:User {key: fg.contributor})<-[:CONTRIBUTED_BY]-(:Episode)<-[:DERIVED_FROM]-(f:Fact)
WHERE u.tenant = $tenant AND f.valid_to IS NOT NULL AND f.scope IN $scopes AND
      ($predicate IS NULL OR f.predicate = $predicate)
RETURN DISTINCT {scope: f.scope, subject: f.subject, predicate: f.predicate} AS touched
