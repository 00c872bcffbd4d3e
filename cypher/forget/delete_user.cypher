// params: tenant, user_id
// returns: deleted
OPTIONAL MATCH (u:User {tenant: $tenant, id: $user_id})
DETACH DELETE u
RETURN count(u) AS deleted
