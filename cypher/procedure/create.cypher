// params: tenant, row, now
// returns: procedure
// A new procedure version, linked by SUPERSEDES to the one it replaces (if any), which ends
// its belief interval now unless it is proven and the new one is not (procedure/_end_older:
// then it ends when the new one is promoted), so "which steps did we follow at T" stays
// answerable.
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
  WHERE old.tenant = $tenant
  MERGE (p)-[:SUPERSEDES]->(old)
}
#include procedure/_end_older(p)
RETURN p {.*, embedding: null} AS procedure
