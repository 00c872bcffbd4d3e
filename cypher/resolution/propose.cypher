// params: tenant, rows, run_id, now
// returns: id, created
// Merge proposals for a reviewer: a pair of entities of one scope whose names GDS found
// alike, one open proposal per pair (a later run refreshes its score).
UNWIND $rows AS row
MERGE (p:MergeProposal {tenant: $tenant, scope: row.scope, entity_a: row.a, entity_b: row.b})
ON CREATE SET p.id = row.id, p.created_at = $now, p.run_id = $run_id, p.status = 'open',
              p.created = true
ON MATCH SET p.created = false
SET p.score = row.score, p.name_a = row.name_a, p.name_b = row.name_b, p.updated_at = $now
WITH p, p.created AS created
REMOVE p.created
RETURN p.id AS id, created
