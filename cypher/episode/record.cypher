// params: tenant, rows, now
// returns: id
// The episode carries its contributor's key (the User node's, not the user id): a forget
// hides and purges by it, and a user id forgotten before starts a new contributor. A row
// whose id was derived from a contributor (`row.contributor`, remember under a key) is
// written only while the id still names that one: if the user was forgotten since, it is
// not returned and the caller derives the id again.
UNWIND $rows AS row
WITH row, row.user_id AS user_id
#include episode/_user(user_id)
WITH row, u
WHERE row.contributor IS NULL OR row.contributor = u.key
CREATE (e:Episode {
  id: row.id, tenant: $tenant, scope: row.scope, ft_scope: row.ft_scope,
  user_id: row.user_id, session_id: row.session_id, started_at: row.started_at,
  ended_at: row.ended_at, summary: row.summary, text: row.text, caption: row.caption,
  name: row.caption,
  outcome: row.outcome, topics: row.topics, key_entities: row.key_entities,
  speaker: row.speaker, source: row.source, confidence: row.confidence, recorded_at: $now, retrieval_count: 0,
  seq: row.seq, contributor: u.key
})
#include search/_kind(e)
MERGE (e)-[:CONTRIBUTED_BY]->(u)
WITH row, e
CALL (row, e) {
  WITH row, e WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
}
RETURN e.id AS id
