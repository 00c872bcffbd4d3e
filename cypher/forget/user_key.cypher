// params: tenant, user_id
// returns: key
// The contributor a user id names now (a forgotten one no longer answers to the id).
MATCH (u:User {tenant: $tenant, id: $user_id})
RETURN u.key AS key
