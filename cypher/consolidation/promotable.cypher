// params: tenant, scopes, now, promote_sessions
// returns: id
// Current candidates of these scopes whose evidence already spans the corroboration
// threshold (distinct (user, session) pairs) but that no write promoted (evidence that
// arrived before the threshold was lowered, an import, a write that failed half way).
MATCH (f:Fact {tenant: $tenant, status: 'candidate'})
WHERE f.scope IN $scopes AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND f.rejected_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > $now)
  // Not one a higher tier holds the slot against: it would not be promoted (and a batch that
  // touched it for nothing would leave it without the fingerprint a rollback checks).
  AND NOT
#include fact/_outranked(f)
MATCH (f)-[:DERIVED_FROM]->(e:Episode)
WITH f, count(DISTINCT [e.user_id, e.session_id]) AS sessions
WHERE sessions >= $promote_sessions
RETURN f.id AS id
ORDER BY id
