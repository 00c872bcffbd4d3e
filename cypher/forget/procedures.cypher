// params: tenant, episode_ids
// returns: id
// Procedures evidenced by the contributor's episodes (checked again after the deletion).
UNWIND $episode_ids AS eid
MATCH (p:Procedure)-[:EVIDENCED_BY]->(e:Episode {id: eid})
WHERE p.tenant = $tenant AND e.tenant = $tenant
RETURN DISTINCT p.id AS id
