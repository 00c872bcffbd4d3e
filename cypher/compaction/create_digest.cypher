// params: tenant, rows, run_id, now
// returns: id, members
// Digest episodes: each stands for its members in recall (they are marked compacted_into it
// and recall skips them), keeps DERIVED_FROM provenance to every one of them and a
// CONTRIBUTED_BY to each member's contributor; facts citing a member keep citing it. The run
// id on both sides is what a rollback undoes; compacted_at keeps recall at an earlier asOf
// answering with the members (the digest did not exist yet).
UNWIND $rows AS row
CREATE (d:Episode {
  id: row.id, tenant: $tenant, scope: row.scope, ft_scope: row.ft_scope, user_id: row.user_id,
  session_id: row.id, started_at: row.started_at, ended_at: row.ended_at,
  summary: row.summary, text: row.summary, caption: 'digest', name: 'digest',
  outcome: row.outcome, topics: row.topics, key_entities: row.key_entities,
  source: 'consolidation', confidence: row.confidence, recorded_at: $now, retrieval_count: 0,
  digest: true, digest_run: $run_id, member_users: row.member_users
})
#include search/_kind(d)
WITH row, d
CALL db.create.setNodeVectorProperty(d, 'embedding', row.embedding)
WITH row, d
CALL (row, d) {
  UNWIND row.members AS mid
  MATCH (m:Episode {id: mid})
  WHERE m.tenant = $tenant AND m.compacted_into IS NULL
  SET m.compacted_into = d.id, m.compacted_run = $run_id, m.compacted_at = $now
  CREATE (d)-[:DERIVED_FROM {at: $now, run_id: $run_id}]->(m)
  RETURN count(m) AS members
}
CALL (row, d) {
  UNWIND row.member_users AS uid
  MATCH (u:User {tenant: $tenant, id: uid})
  MERGE (d)-[:CONTRIBUTED_BY]->(u)
  // Its words are every member's: hidden once any of them is forgotten (forget/_hidden_episode).
  WITH d, collect(u.key) AS keys
  SET d.contributors = keys
  RETURN size(keys) AS users
}
RETURN d.id AS id, members
