// params: tenant, rows, now
// returns: row_id, id, created
// Events and todos extracted from a session. Ids are derived from (job, kind, index), so a
// resumed job finds what its first attempt wrote instead of writing it again. The same thing
// told again in a later session of the same user and scope (a todo still open, an event at
// the same moment, same words) is that memo, cited by this session too, not a twin: closing
// the todo closes it for good.
UNWIND $rows AS row
MATCH (e:Episode {id: row.episode_id})
WHERE e.tenant = $tenant
OPTIONAL CALL (row) {
  MATCH (o:Memo {tenant: $tenant, scope: row.scope, kind: row.kind})
  WHERE o.text = row.text AND o.user_id = row.user_id AND o.id <> row.id
    AND ((o.at IS NULL AND row.at IS NULL) OR o.at = row.at)
    AND (row.kind <> 'todo' OR o.status = 'open')
    AND (o.expires_at IS NULL OR o.expires_at > $now)
  RETURN o.id AS told_before ORDER BY o.recorded_at LIMIT 1
}
MERGE (m:Memo {id: coalesce(told_before, row.id)})
ON CREATE SET m.tenant = $tenant, m.scope = row.scope, m.ft_scope = row.ft_scope,
              m.kind = row.kind, m.text = row.text, m.caption = row.caption, m.name = row.caption,
              m.at = row.at, m.status = row.status, m.user_id = row.user_id,
              m.session_id = row.session_id, m.source = row.source, m.tier = row.tier,
              m.confidence = row.confidence, m.expires_at = row.expires_at,
              m.extractor = row.extractor, m.ingest_job = row.job_id, m.recorded_at = $now,
              m.fresh = true
WITH row, e, m, coalesce(m.fresh, false) AS created
REMOVE m.fresh
FOREACH (_ IN CASE WHEN created THEN [1] ELSE [] END |
#include search/_kind(m)
)
MERGE (m)-[d:DERIVED_FROM]->(e)
ON CREATE SET d.turns = row.turns, d.at = $now, d.weight = row.confidence
// A label per kind for Neo4j Browser; the kind comes from our allow-list, never from input.
FOREACH (_ IN CASE WHEN created AND row.kind = 'event' THEN [1] ELSE [] END | SET m:Event)
FOREACH (_ IN CASE WHEN created AND row.kind = 'todo' THEN [1] ELSE [] END | SET m:Todo)
WITH m, created, row
CALL (m, row, created) {
  WITH m, row, created WHERE created AND row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', row.embedding)
}
RETURN row.id AS row_id, m.id AS id, created
