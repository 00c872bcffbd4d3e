// params: tenant, scopes, now, limit
// returns: fact, sessions, contributors, evidence
// What awaits a human decision, with its evidence: active facts flagged for verification
// first (a contradiction consolidation found, a premise in doubt: each says why in
// verification_reason), oldest flag first, then candidates awaiting corroboration, the best
// supported first (closest to promotion), then the oldest. Anything past its TTL is left out.
// Two index seeks (tenant, status) rather than one scan of the tenant's facts.
#include forget/_hidden
CALL () {
  MATCH (f:Fact {tenant: $tenant, status: 'active'})
  WHERE f.needs_verification = true
  RETURN f, 0 AS band
  UNION
  MATCH (f:Fact {tenant: $tenant, status: 'candidate'})
  RETURN f, 1 AS band
}
WITH hidden, f, band
WHERE f.scope IN $scopes AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND (f.expires_at IS NULL OR f.expires_at > $now)
  AND NOT
#include forget/_hidden_fact(f)
OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
WHERE NOT
#include forget/_hidden_episode(e)
OPTIONAL MATCH (e)-[:CONTRIBUTED_BY]->(u:User)
WITH f, band, d, e, coalesce(u.id, e.user_id) AS user ORDER BY e.started_at
WITH f, band,
     // A session is (user, session id): two users' "s1" are two independent conversations.
     count(DISTINCT CASE WHEN e IS NULL THEN null ELSE [e.user_id, e.session_id] END) AS sessions,
     [x IN collect(DISTINCT user) WHERE x IS NOT NULL] AS contributors,
     collect(CASE WHEN e IS NULL THEN null ELSE {
        episode_id: e.id, session_id: e.session_id, user_id: user, weight: d.weight,
        linked_at: d.at, summary: e.summary, started_at: e.started_at, source: e.source
     } END) AS evidence
RETURN f {.*, embedding: null} AS fact, sessions, contributors, evidence
ORDER BY band, CASE WHEN band = 0 THEN f.flagged_at END ASC, sessions DESC,
         f.confidence DESC, f.recorded_at ASC, f.id ASC
LIMIT $limit
