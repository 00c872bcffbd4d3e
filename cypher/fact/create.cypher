// params: tenant, rows, now
// returns: id
// Writes new fact versions with their subject/object entities and evidence edges, and closes
// the version each one supersedes. One statement per batch (UNWIND), one transaction.
UNWIND $rows AS row
MERGE (s:Entity {tenant: $tenant, key: row.subject})
ON CREATE SET s.id = row.subject_id, s.name = row.subject_name, s.created_at = $now
CREATE (f:Fact {
  id: row.id, tenant: $tenant, scope: row.scope, ft_scope: row.ft_scope,
  subject: row.subject, subject_name: row.subject_name, predicate: row.predicate,
  object: row.object, object_key: row.object_key, object_is_entity: row.object_is_entity,
  text: row.text, caption: row.caption, kind: row.kind, source: row.source,
  tier: row.tier, tier_rank: row.tier_rank, tier_cap: row.tier_cap, status: row.status,
  cardinality: row.cardinality, confidence: 0.0, version: row.version,
  recorded_at: $now, valid_from: row.valid_from, valid_to: row.valid_to,
  expires_at: row.expires_at, ttl_days: row.ttl_days, created_by: row.created_by,
  needs_verification: false, retrieval_count: 0, supersedes: row.supersedes
})
MERGE (f)-[:ABOUT]->(s)
WITH row, f
CALL (row, f) {
  WITH row, f WHERE row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', row.embedding)
}
CALL (row, f) {
  WITH row, f WHERE row.object_is_entity
  MERGE (o:Entity {tenant: $tenant, key: row.object_key})
  ON CREATE SET o.id = row.object_id, o.name = row.object, o.created_at = $now
  MERGE (f)-[:OBJECT]->(o)
}
CALL (row, f) {
  UNWIND row.citations AS c
  MATCH (e:Episode {id: c.episode_id})
  WHERE e.tenant = $tenant
  MERGE (f)-[d:DERIVED_FROM]->(e)
  ON CREATE SET d.weight = c.weight, d.at = $now
}
CALL (row, f) {
  UNWIND row.depends_on AS premise_id
  MATCH (p:Fact {id: premise_id})
  WHERE p.tenant = $tenant
  MERGE (f)-[:DEPENDS_ON]->(p)
}
CALL (row, f) {
  WITH row, f WHERE row.supersedes IS NOT NULL
  MATCH (old:Fact {id: row.supersedes})
  WHERE old.tenant = $tenant AND old.superseded_at IS NULL
  SET old.superseded_at = $now, old.status = 'superseded',
      old.successor_valid_from = row.valid_from, old.superseded_by = row.id
  MERGE (f)-[:SUPERSEDES]->(old)
}
RETURN f.id AS id
