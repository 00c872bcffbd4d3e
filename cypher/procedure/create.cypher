// params: tenant, row, now
// returns: procedure
// A new procedure version; the one it replaces (if any) ends its belief interval now and is
// linked by SUPERSEDES, so "which steps did we follow at T" stays answerable.
CREATE (p:Procedure {
  id: $row.id, tenant: $tenant, scope: $row.scope, ft_scope: $row.ft_scope,
  intent: $row.intent, role: $row.role, version: $row.version, steps: $row.steps,
  description: $row.description, text: $row.text, caption: $row.caption,
  status: $row.status, reviewed: $row.reviewed, success_count: 0, failure_count: 0,
  created_by: $row.created_by, created_at: $now, updated_at: $now, supersedes: $row.supersedes,
  retrieval_count: 0,
  // When each status began: reads as of a past moment serve the status it had then.
  status_log_at: [$now], status_log: [$row.status]
})
#include search/_kind(p)
WITH p
CALL (p) {
  WITH p WHERE $row.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(p, 'embedding', $row.embedding)
}
CALL (p) {
  WITH p WHERE $row.supersedes IS NOT NULL
  MATCH (old:Procedure {id: $row.supersedes})
  WHERE old.tenant = $tenant AND old.superseded_at IS NULL
  SET old.superseded_at = $now, old.superseded_by = p.id, old.updated_at = $now
  MERGE (p)-[:SUPERSEDES]->(old)
}
RETURN p {.*, embedding: null} AS procedure
