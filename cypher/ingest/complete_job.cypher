// params: tenant, id, token, changes, episode_id, facts, extractor, events, episode_vectors, fact_vectors, memo_vectors
// returns: id
// The last statement of a session's write transaction: the job is marked done while the
// caller's claim ($token) still holds it, and what it wrote is tagged with the job and the
// extractor (prompt version) that found it: the episode, so a later extractor can find what
// to re-run, and each fact's DERIVED_FROM edge with the turns its evidence rests on (a fact
// corroborated by several sessions rests on different turns of each). No row returned: the
// claim was lost (or a forget stopped the job), and the caller rolls the whole session back.
// The session's audit events (the episode's, the memos') and the vectors of what it created
// ({id, embedding}: its texts are embedded while its statements run) are written here too:
// one round trip fewer each, on the path every session takes.
MATCH (j:IngestJob {id: $id})
WHERE j.tenant = $tenant
SET j._lock = true
WITH j, j.lease_token = $token AND j.status = 'running' AS mine
REMOVE j._lock
WITH j WHERE mine
SET j += $changes
WITH j
CALL (j) {
  MATCH (e:Episode {id: $episode_id})
  WHERE e.tenant = $tenant
  SET e.ingest_job = j.id, e.extractor = $extractor
}
CALL (j) {
  UNWIND $facts AS row
  MATCH (f:Fact {id: row.fact_id})-[d:DERIVED_FROM]->(e:Episode {id: $episode_id})
  WHERE f.tenant = $tenant
  SET d.turns = row.turns, d.extractor = $extractor, d.ingest_job = j.id,
      f.extracted_by = CASE WHEN $extractor IN coalesce(f.extracted_by, []) THEN f.extracted_by
                            ELSE coalesce(f.extracted_by, []) + $extractor END
}
CALL () {
  UNWIND $events AS ev
#include audit/_create(ev)
}
// Stored through the procedure so the vector is kept as a float32 array the index expects.
CALL () {
  UNWIND $episode_vectors AS row
  MATCH (n:Episode {id: row.id})
  WHERE n.tenant = $tenant
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
CALL () {
  UNWIND $fact_vectors AS row
  MATCH (n:Fact {id: row.id})
  WHERE n.tenant = $tenant
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
CALL () {
  UNWIND $memo_vectors AS row
  MATCH (n:Memo {id: row.id})
  WHERE n.tenant = $tenant
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.embedding)
}
RETURN j.id AS id
