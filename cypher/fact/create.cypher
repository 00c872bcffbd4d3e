// params: tenant, rows, now
// returns: id
// New fact versions with their subject, evidence, embedding and (for a slot the batch opened)
// timeline segments, one statement per batch (UNWIND): a round trip and an id seek per part
// saved inside the write lock. Object, dependency and supersession edges are separate
// statements in the same transaction (most batches have none).
UNWIND $rows AS row
CREATE (f:Fact)
SET f += row.props  // += on a new node: skips clearing properties it does not have yet
#include search/_kind(f)
// Times travel as ISO strings: the driver's per-value datetime encoding cost more than the
// rest of the row. recorded_at/activated_at are the transaction's one clock reading.
SET f.recorded_at = $now,
    f.activated_at = CASE WHEN row.active THEN $now ELSE null END,
    // The change log (graph_memory/temporal/lifecycle.py): every lifecycle change since.
    f.changes_at = CASE WHEN row.active THEN [$now] ELSE [] END,
    f.changes = CASE WHEN row.active THEN ['activated'] ELSE [] END,
    f.valid_from = datetime(row.valid_from),
    f.valid_to = datetime(row.valid_to),
    f.expires_at = datetime(row.expires_at),
    f.told_at = datetime(row.told_at),
    // When it was said, as that moves with each re-telling (read by graph_memory/temporal).
    f.told_log_at = [$now], f.told_log = [coalesce(datetime(row.told_at), $now)]
MERGE (s:Entity {tenant: $tenant, key: row.subject})
ON CREATE SET s.id = row.subject_id, s.name = row.subject_name, s.caption = row.subject_name
CREATE (f)-[:ABOUT]->(s)
WITH f, row
// New versions have no edges yet, so CREATE (not MERGE) is exact and cheaper.
CALL (f, row) {
  UNWIND row.citations AS c
  MATCH (e:Episode {id: c.episode_id})
  WHERE e.tenant = $tenant
  // What this telling said (services/facts/rows.link_claim): a forget of the others rebuilds
  // the version from it (graph_memory/temporal/withdrawal.py).
  CREATE (f)-[:DERIVED_FROM {weight: c.weight, at: $now, tier: c.tier,
                             claim_source: c.claim_source,
                             claim_from: datetime(c.claim_from), claim_to: datetime(c.claim_to),
                             claim_stated: c.claim_stated}]->(e)
}
// Stored through the procedure so the vector is kept as a float32 array the index expects.
CALL (f, row) {
  WITH f, row
  WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
}
// Segments decided in memory (services/facts/fresh_slots.py): only for a slot that had no
// version before this batch; other slots are settled from what is stored (timeline.apply).
CALL (f, row) {
  UNWIND row.segments AS g
  CREATE (t:Segment {id: g.id, tenant: $tenant, scope: f.scope, subject: f.subject,
                     predicate: f.predicate, fact_id: f.id, recorded_at: f.recorded_at,
                     view: g.view})
  SET t.sys_from = datetime(g.sys_from), t.sys_to = datetime(g.sys_to),
      t.valid_from = datetime(g.valid_from), t.valid_to = datetime(g.valid_to)
  CREATE (t)-[:WINS]->(f)
}
RETURN count(f) AS id
