// params: tenant, scopes, now, promote_sessions
// returns: id, ends
// Current candidates of these scopes whose evidence already spans the corroboration
// threshold (distinct (user, session) pairs) but that no write promoted (evidence that
// arrived before the threshold was lowered, an import, a write that failed half way).
MATCH (f:Fact {tenant: $tenant, status: 'candidate'})
WHERE f.scope IN $scopes AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND f.rejected_at IS NULL AND (f.expires_at IS NULL OR f.expires_at > $now)
MATCH (f)-[:DERIVED_FROM]->(e:Episode)
WITH f, count(DISTINCT [e.user_id, e.session_id]) AS sessions
WHERE sessions >= $promote_sessions
// What its promotion will change besides it (fact/_close_linked): the version it was written
// to supersede, if still open, and the conclusions drawn from that (fact.flag_dependents),
// for the run to snapshot before it changes them.
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact)
WHERE old.superseded_at IS NULL AND old.retracted_at IS NULL AND old.rejected_at IS NULL
OPTIONAL MATCH (d:Fact)-[:DEPENDS_ON*1..8]->(old)
WHERE d.tenant = $tenant AND d.superseded_at IS NULL AND d.retracted_at IS NULL
WITH f, [x IN collect(DISTINCT old.id) + collect(DISTINCT d.id) WHERE x IS NOT NULL] AS ends
RETURN f.id AS id, ends
ORDER BY id
