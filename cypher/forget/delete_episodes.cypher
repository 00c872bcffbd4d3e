// params: tenant, ids
// returns: deleted
UNWIND $ids AS id
MATCH (e:Episode {id: id})
WHERE e.tenant = $tenant
DETACH DELETE e
RETURN count(*) AS deleted
