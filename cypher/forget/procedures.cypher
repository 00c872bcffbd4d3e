// params: tenant, episode_ids
// returns: ids
// Procedures evidenced by the contributor's episodes (checked again after the deletion).
UNWIND $episode_ids AS eid
MATCH (p:Procedure)-[:EVIDENCED_BY]->(e:Episode {id: eid})
WHERE p.tenant = $tenant AND e.tenant = $tenant
RETURN collect(DISTINCT p.id) AS ids
