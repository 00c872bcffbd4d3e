// params: tenant, id, episode_id, success, now
// returns: procedure_id, episode_id
// One episode is one piece of evidence: reporting the same episode again replaces its verdict.
MATCH (p:Procedure {id: $id})
WHERE p.tenant = $tenant
MATCH (e:Episode {id: $episode_id})
WHERE e.tenant = $tenant
MERGE (p)-[r:EVIDENCED_BY]->(e)
SET r.success = $success, r.at = $now
RETURN p.id AS procedure_id, e.id AS episode_id
