// params: tenant, scopes, now, limit
// returns: fact, sessions, contributors, evidence
// Candidates awaiting corroboration or review, with their evidence: the best supported first
// (closest to promotion), then the oldest. Candidates already past their TTL are not queued.
#include forget/_hidden
MATCH (f:Fact {tenant: $tenant, status: 'candidate'})
WHERE f.scope IN $scopes AND f.superseded_at IS NULL AND f.retracted_at IS NULL
  AND (f.expires_at IS NULL OR f.expires_at > $now)
  AND NOT
#include forget/_hidden_fact(f)
OPTIONAL MATCH (f)-[d:DERIVED_FROM]->(e:Episode)
WHERE NOT
#include forget/_hidden_episode(e)
OPTIONAL MATCH (e)-[:CONTRIBUTED_BY]->(u:User)
WITH f, d, e, coalesce(u.id, e.user_id) AS user ORDER BY e.started_at
WITH f,
     // A session is (user, session id): two users' "s1" are two independent conversations.
     count(DISTINCT CASE WHEN e IS NULL THEN null ELSE [e.user_id, e.session_id] END) AS sessions,
     [x IN collect(DISTINCT user) WHERE x IS NOT NULL] AS contributors,
     collect(CASE WHEN e IS NULL THEN null ELSE {
        episode_id: e.id, session_id: e.session_id, user_id: user, weight: d.weight,
        linked_at: d.at, summary: e.summary, started_at: e.started_at, source: e.source
     } END) AS evidence
RETURN f {.*, embedding: null} AS fact, sessions, contributors, evidence
ORDER BY sessions DESC, f.confidence DESC, f.recorded_at ASC, f.id ASC
LIMIT $limit
