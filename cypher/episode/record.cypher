// params: tenant, rows, now
// returns: id
// The episode carries its contributor's key (the User node's, not the user id): a forget
// hides and purges by it, and a user id forgotten before starts a new contributor.
UNWIND $rows AS row
MERGE (u:User {tenant: $tenant, id: row.user_id})
ON CREATE SET u.key = randomUUID(), u.created_at = $now, u.caption = row.user_id, u.name = row.user_id
CREATE (e:Episode {
  id: row.id, tenant: $tenant, scope: row.scope, ft_scope: row.ft_scope,
  user_id: row.user_id, session_id: row.session_id, started_at: row.started_at,
  ended_at: row.ended_at, summary: row.summary, text: row.text, caption: row.caption,
  name: row.caption,
  outcome: row.outcome, topics: row.topics, key_entities: row.key_entities,
  source: row.source, confidence: row.confidence, recorded_at: $now, retrieval_count: 0,
  seq: row.seq, contributor: u.key
})
MERGE (e)-[:CONTRIBUTED_BY]->(u)
WITH row, e
CALL (row, e) {
  WITH row, e WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(e, 'embedding', row.embedding)
}
RETURN e.id AS id
